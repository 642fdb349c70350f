//! A small Python tokenizer for the risk classifier: names (NFKC-normalised, as Python
//! itself does, so `ｅｖａｌ` is `eval`), string literals with their values (escapes and
//! prefixes handled well enough to read a name out of one), operators and logical line ends.
//! Comments are dropped; the `{…}` parts of f-strings are tokenised as code, since that is
//! what they are.
//!
//! Owns: tokenising only. Does not own rating (see `python`). Like the shell lexer it never
//! fails — an unterminated string runs to the end — because its output is advice for a
//! human, and the sandbox is the containment.

use unicode_normalization::UnicodeNormalization;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    Name(String),
    /// A string literal's value; `f` for f-strings (their code parts follow as tokens).
    Str {
        value: String,
        f: bool,
    },
    Op(char),
    /// The end of a logical line (newline outside brackets, or `;`).
    End,
}

/// Deeper f-string nesting than this is not tokenised further (its text is dropped).
const MAX_FSTRING_DEPTH: usize = 4;

pub(crate) fn lex(src: &str) -> Vec<Tok> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    lex_into(&chars, &mut out, 0);
    out
}

fn is_name_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_name_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// `r`, `b`, `u`, `f` and their two-letter combinations, any case.
fn string_prefix(word: &str) -> Option<(bool, bool)> {
    let w = word.to_ascii_lowercase();
    let ok = matches!(
        w.as_str(),
        "r" | "b" | "u" | "f" | "rb" | "br" | "fr" | "rf"
    );
    ok.then(|| (w.contains('r'), w.contains('f')))
}

fn lex_into(s: &[char], out: &mut Vec<Tok>, fdepth: usize) {
    let mut i = 0;
    let mut depth = 0usize;
    while i < s.len() {
        let c = s[i];
        match c {
            ' ' | '\t' | '\r' | '\u{c}' => i += 1,
            '\\' if s.get(i + 1) == Some(&'\n') => i += 2,
            '#' => {
                while i < s.len() && s[i] != '\n' {
                    i += 1;
                }
            }
            '\n' => {
                if depth == 0 {
                    out.push(Tok::End);
                }
                i += 1;
            }
            ';' => {
                out.push(Tok::End);
                i += 1;
            }
            '\'' | '"' => i = string(s, i, false, false, out, fdepth),
            c if is_name_start(c) => {
                let start = i;
                while i < s.len() && is_name_char(s[i]) {
                    i += 1;
                }
                let word: String = s[start..i].iter().collect();
                if let (Some((raw, f)), Some('\'' | '"')) = (string_prefix(&word), s.get(i)) {
                    i = string(s, i, raw, f, out, fdepth);
                } else {
                    out.push(Tok::Name(word.nfkc().collect()));
                }
            }
            c if c.is_ascii_digit() => {
                while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == '_' || s[i] == '.') {
                    i += 1;
                }
            }
            _ => {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                out.push(Tok::Op(c));
                i += 1;
            }
        }
    }
}

/// A string literal starting at the quote `s[i]`; returns the index after it.
fn string(s: &[char], i: usize, raw: bool, f: bool, out: &mut Vec<Tok>, fdepth: usize) -> usize {
    let q = s[i];
    let triple = s.get(i + 1) == Some(&q) && s.get(i + 2) == Some(&q);
    let mut j = i + if triple { 3 } else { 1 };
    let mut value = String::new();
    // Code inside `{…}` of an f-string, tokenised after the string itself.
    let mut code: Vec<String> = Vec::new();
    while j < s.len() {
        let c = s[j];
        if c == q && (!triple || (s.get(j + 1) == Some(&q) && s.get(j + 2) == Some(&q))) {
            j += if triple { 3 } else { 1 };
            break;
        }
        if c == '\n' && !triple {
            break;
        }
        if c == '\\' && j + 1 < s.len() {
            let n = s[j + 1];
            j += 2;
            if raw {
                value.push('\\');
                value.push(n);
                continue;
            }
            escape(s, &mut j, n, &mut value);
            continue;
        }
        if f && c == '{' {
            if s.get(j + 1) == Some(&'{') {
                value.push('{');
                j += 2;
                continue;
            }
            let (body, next) = braces(s, j + 1, q, triple);
            code.push(body);
            j = next;
            continue;
        }
        value.push(c);
        j += 1;
    }
    out.push(Tok::Str { value, f });
    if fdepth < MAX_FSTRING_DEPTH {
        for body in code {
            let chars: Vec<char> = body.chars().collect();
            lex_into(&chars, out, fdepth + 1);
            out.push(Tok::End);
        }
    }
    j
}

/// `\n`, `\x65`, `\u0065`, `\145` …: enough to see the name an escaped string spells.
fn escape(s: &[char], j: &mut usize, n: char, value: &mut String) {
    let hex = |j: &mut usize, len: usize| -> Option<char> {
        let digits: String = s.get(*j..*j + len)?.iter().collect();
        let c = u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)?;
        *j += len;
        Some(c)
    };
    let decoded = match n {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        '0'..='7' => {
            let mut v = n.to_digit(8).unwrap_or(0);
            let mut k = 0;
            while k < 2 && s.get(*j).is_some_and(|c| c.is_digit(8)) {
                v = v * 8 + s[*j].to_digit(8).unwrap_or(0);
                *j += 1;
                k += 1;
            }
            char::from_u32(v)
        }
        'x' => hex(j, 2),
        'u' => hex(j, 4),
        'U' => hex(j, 8),
        '\n' => None,
        other => Some(other),
    };
    if let Some(c) = decoded {
        value.push(c);
    }
}

/// The code of an f-string replacement field from `start` to its matching `}`.
fn braces(s: &[char], start: usize, q: char, triple: bool) -> (String, usize) {
    let mut depth = 1usize;
    let mut j = start;
    let mut body = String::new();
    while j < s.len() {
        let c = s[j];
        if c == q && !triple {
            // The f-string ends here (unbalanced braces): stop before its quote.
            return (body, j);
        }
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return (body, j + 1);
                }
            }
            _ => {}
        }
        body.push(c);
        j += 1;
    }
    (body, j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<String> {
        lex(src)
            .into_iter()
            .filter_map(|t| match t {
                Tok::Name(n) => Some(n),
                _ => None,
            })
            .collect()
    }

    fn strs(src: &str) -> Vec<String> {
        lex(src)
            .into_iter()
            .filter_map(|t| match t {
                Tok::Str { value, .. } => Some(value),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn names_strings_and_comments() {
        assert_eq!(
            names("x = eval ( 'a' ) # exec(1)\nprint(\"exec\")"),
            ["x", "eval", "print"]
        );
        assert_eq!(
            strs("a = 'x\\x65c' + r'\\n' b\"\\145v\" '''tri\"ple''' u'\\u0065'"),
            ["xec", "\\n", "ev", "tri\"ple", "e"]
        );
        // Python folds compatibility characters in names.
        assert_eq!(names("ｅｘｅｃ('1')"), ["exec"]);
    }

    #[test]
    fn fstring_code_is_code() {
        let toks = lex("f'{eval(x)} {{not code}}'");
        assert!(toks.contains(&Tok::Name("eval".into())), "{toks:?}");
        assert!(!toks.contains(&Tok::Name("not".into())), "{toks:?}");
    }

    #[test]
    fn line_ends_only_outside_brackets() {
        let ends = |src: &str| lex(src).iter().filter(|t| **t == Tok::End).count();
        assert_eq!(ends("f(a,\n b)\nx"), 1);
        assert_eq!(ends("a; b"), 1);
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for src in [
            "'abc",
            "\"\"\"abc",
            "f'{abc",
            "f'{",
            "'\\",
            "'\\x4",
            "r'\\",
            "b'\\777'",
        ] {
            let _ = lex(src);
        }
    }
}
