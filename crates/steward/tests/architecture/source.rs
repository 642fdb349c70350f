//! A small Rust tokenizer for the architecture checks: identifiers, `::`, punctuation and
//! string literals, each with its line; comments are dropped and literals kept apart, so a
//! word in a comment or a string is never taken for code (`unsafe` in a doc comment,
//! `crate::x` in an error message, `unsafe_kill` as a name).
//!
//! Owns: splitting source text into tokens. Does not own what the checks look for
//! (`unsafe_code.rs`, `modules.rs`). Not a full lexer: numbers, lifetimes and char literals
//! only need to be skipped, never understood.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    /// A string literal's content as written (escapes not decoded).
    Str,
    /// One punctuation character, or `::`.
    Punct,
    /// Numbers, lifetimes, char literals.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tok {
    pub kind: Kind,
    pub text: String,
    pub line: usize,
}

impl Tok {
    pub fn is(&self, kind: Kind, text: &str) -> bool {
        self.kind == kind && self.text == text
    }
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: usize,
    out: Vec<Tok>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Moves past one character, counting lines.
    fn bump(&mut self) {
        if self.peek(0) == Some('\n') {
            self.line += 1;
        }
        self.at += 1;
    }

    fn push(&mut self, kind: Kind, text: String, line: usize) {
        self.out.push(Tok { kind, text, line });
    }

    fn line_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    /// Block comments nest in Rust.
    fn block_comment(&mut self) {
        let mut depth = 0;
        while let Some(c) = self.peek(0) {
            if c == '/' && self.peek(1) == Some('*') {
                depth += 1;
                self.bump();
            } else if c == '*' && self.peek(1) == Some('/') {
                depth -= 1;
                self.bump();
                if depth == 0 {
                    self.bump();
                    return;
                }
            }
            self.bump();
        }
    }

    /// `"…"` with backslash escapes; the cursor is on the opening quote.
    fn string(&mut self) {
        let line = self.line;
        self.bump();
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            if c == '\\' {
                text.push(c);
                self.bump();
                if let Some(escaped) = self.peek(0) {
                    text.push(escaped);
                    self.bump();
                }
                continue;
            }
            self.bump();
            if c == '"' {
                break;
            }
            text.push(c);
        }
        self.push(Kind::Str, text, line);
    }

    /// `r"…"`, `r#"…"#`, …; the cursor is on the `r`.
    fn raw_string(&mut self) {
        let line = self.line;
        self.bump();
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.bump();
        }
        self.bump(); // the opening quote
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            if c == '"' && (1..=hashes).all(|k| self.peek(k) == Some('#')) {
                for _ in 0..=hashes {
                    self.bump();
                }
                break;
            }
            text.push(c);
            self.bump();
        }
        self.push(Kind::Str, text, line);
    }

    /// Whether a raw string starts `ahead` characters on (`r"`, `r#"`, `r##"`, …).
    fn raw_string_at(&self, ahead: usize) -> bool {
        if self.peek(ahead) != Some('r') {
            return false;
        }
        let mut k = ahead + 1;
        while self.peek(k) == Some('#') {
            k += 1;
        }
        self.peek(k) == Some('"')
    }

    /// A char literal (`'a'`, `'\n'`, `'\u{1F600}'`) or a lifetime (`'a`); the cursor is on
    /// the quote.
    fn quote(&mut self) {
        let line = self.line;
        let literal = self.peek(1) == Some('\\') || self.peek(2) == Some('\'');
        self.bump();
        if literal {
            if self.peek(0) == Some('\\') {
                self.bump();
            }
            self.bump();
            while self.peek(0).is_some_and(|c| c != '\'') {
                self.bump();
            }
            self.bump();
        } else {
            while self.peek(0).is_some_and(is_ident_char) {
                self.bump();
            }
        }
        self.push(Kind::Other, String::new(), line);
    }

    fn ident(&mut self) {
        let line = self.line;
        let mut text = String::new();
        while let Some(c) = self.peek(0).filter(|c| is_ident_char(*c)) {
            text.push(c);
            self.bump();
        }
        self.push(Kind::Ident, text, line);
    }

    fn number(&mut self) {
        let line = self.line;
        loop {
            match self.peek(0) {
                Some(c) if is_ident_char(c) => self.bump(),
                // `1.5`, but not the range `1..2` nor the method call `1.max(2)`.
                Some('.') if self.peek(1).is_some_and(|c| c.is_ascii_digit()) => self.bump(),
                _ => break,
            }
        }
        self.push(Kind::Other, String::new(), line);
    }

    fn run(mut self) -> Vec<Tok> {
        while let Some(c) = self.peek(0) {
            let next = self.peek(1);
            match c {
                _ if c.is_whitespace() => self.bump(),
                '/' if next == Some('/') => self.line_comment(),
                '/' if next == Some('*') => self.block_comment(),
                '"' => self.string(),
                '\'' => self.quote(),
                'r' if self.raw_string_at(0) => self.raw_string(),
                // Byte and C strings: `b"…"`, `br"…"`, `c"…"`, `cr#"…"#`; byte chars `b'x'`.
                'b' | 'c' if next == Some('"') => {
                    self.bump();
                    self.string();
                }
                'b' | 'c' if self.raw_string_at(1) => {
                    self.bump();
                    self.raw_string();
                }
                'b' if next == Some('\'') => {
                    self.bump();
                    self.quote();
                }
                // A raw identifier: `r#type` is the identifier `type`.
                'r' if next == Some('#') && self.peek(2).is_some_and(is_ident_start) => {
                    self.bump();
                    self.bump();
                    self.ident();
                }
                _ if is_ident_start(c) => self.ident(),
                _ if c.is_ascii_digit() => self.number(),
                ':' if next == Some(':') => {
                    let line = self.line;
                    self.bump();
                    self.bump();
                    self.push(Kind::Punct, "::".to_owned(), line);
                }
                _ => {
                    let line = self.line;
                    self.bump();
                    self.push(Kind::Punct, c.to_string(), line);
                }
            }
        }
        self.out
    }
}

/// The tokens of one source file, lines counted from 1.
pub fn tokens(src: &str) -> Vec<Tok> {
    Lexer {
        chars: src.chars().collect(),
        at: 0,
        line: 1,
        out: Vec::new(),
    }
    .run()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(src: &str) -> Vec<String> {
        tokens(src)
            .into_iter()
            .filter(|t| t.kind == Kind::Ident)
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn comments_and_literals_hide_their_words() {
        let src = r##"
            // unsafe in a line comment
            /* unsafe /* nested */ unsafe */
            let a = "unsafe { \" still a string }";
            let b = r#"unsafe "quoted" crate::x"#;
            let c = b"unsafe";
            let d = '"';
            let e = '\'';
            fn f<'unsafe_life>(x: &'unsafe_life str) {}
            let g = br#"unsafe"#;
        "##;
        assert!(!idents(src).iter().any(|w| w == "unsafe" || w == "crate"));
        // The literal after the tricky ones is still seen as code.
        assert!(idents(src).contains(&"g".to_owned()));
    }

    #[test]
    fn lines_are_counted_through_multiline_literals_and_comments() {
        let toks = tokens("/* a\nb */\nlet s = \"x\ny\";\nunsafe {}");
        let unsafe_tok = toks.iter().find(|t| t.text == "unsafe").map(|t| t.line);
        assert_eq!(unsafe_tok, Some(5));
    }

    #[test]
    fn paths_keep_their_double_colons() {
        let texts: Vec<String> = tokens("use crate::a::{b, c};")
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(
            texts,
            [
                "use", "crate", "::", "a", "::", "{", "b", ",", "c", "}", ";"
            ]
        );
        assert_eq!(idents("r#type + 1.5e3 + 0..2"), ["type"]);
    }
}
