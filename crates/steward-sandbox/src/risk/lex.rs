//! A small POSIX-shell lexer for the risk classifier: splits a script into pipelines of
//! simple commands (words with quotes removed, redirections, a background flag) and
//! collects the bodies of `$(…)`, backticks and `<(…)` so they can be judged as scripts
//! of their own.
//!
//! Owns: tokenising only. Does not own: wrapper stripping or rating (see `unwrap`,
//! `rules`). It is deliberately forgiving — it never fails; an unterminated quote simply
//! runs to the end — because its output is advice shown to a human, and the sandbox is
//! the containment.

/// `>`, `>>`, `<` … and the word after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    pub op: String,
    pub target: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Simple {
    pub words: Vec<String>,
    pub redirects: Vec<Redirect>,
    /// Ended by a lone `&`.
    pub background: bool,
}

/// Commands joined by `|`; a lone command is a pipeline of one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pipeline {
    pub cmds: Vec<Simple>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Script {
    pub pipelines: Vec<Pipeline>,
    /// Bodies of command and process substitutions, to be lexed and judged separately.
    pub substitutions: Vec<String>,
}

pub(crate) fn lex(src: &str) -> Script {
    let mut lx = Lexer {
        s: src.chars().collect(),
        i: 0,
        out: Script::default(),
        cmd: Simple::default(),
        pipe: Pipeline::default(),
        heredocs: Vec::new(),
    };
    lx.run();
    lx.out
}

struct Lexer {
    s: Vec<char>,
    i: usize,
    out: Script,
    cmd: Simple,
    pipe: Pipeline,
    /// Delimiters of here-documents whose bodies start at the next newline.
    heredocs: Vec<(String, bool)>,
}

fn is_operator(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>' | '\n')
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => self.i += 1,
                '\\' if self.peek(1) == Some('\n') => self.i += 2,
                '#' => self.skip_comment(),
                '\n' => {
                    self.i += 1;
                    self.end_pipeline();
                    self.skip_heredoc_bodies();
                }
                ';' | '(' | ')' => {
                    self.i += 1;
                    self.end_pipeline();
                }
                '&' if self.peek(1) == Some('&') => {
                    self.i += 2;
                    self.end_pipeline();
                }
                '&' if self.peek(1) == Some('>') => self.redirect(),
                '&' => {
                    self.i += 1;
                    self.cmd.background = true;
                    self.end_pipeline();
                }
                '|' if self.peek(1) == Some('|') => {
                    self.i += 2;
                    self.end_pipeline();
                }
                '|' => {
                    self.i += if self.peek(1) == Some('&') { 2 } else { 1 };
                    self.end_cmd();
                }
                '<' | '>' if self.peek(1) == Some('(') => {
                    self.i += 2;
                    let body = self.balanced(')');
                    self.out.substitutions.push(body);
                }
                '<' | '>' => self.redirect(),
                d if d.is_ascii_digit() && self.fd_redirect_follows() => self.redirect(),
                _ => {
                    let w = self.word();
                    self.cmd.words.push(w);
                }
            }
        }
        self.end_pipeline();
    }

    fn skip_comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                break;
            }
            self.i += 1;
        }
    }

    /// `2>file`, `10<&3`: digits directly followed by a redirection operator.
    fn fd_redirect_follows(&self) -> bool {
        let mut k = 0;
        while self.peek(k).is_some_and(|c| c.is_ascii_digit()) {
            k += 1;
        }
        matches!(self.peek(k), Some('<' | '>'))
    }

    fn redirect(&mut self) {
        let mut op = String::new();
        while let Some(c) = self.peek(0) {
            if c.is_ascii_digit() || matches!(c, '<' | '>' | '&' | '|' | '-') {
                // `>&-` / `<<-` end with '-'; digits after `>&` name a descriptor.
                op.push(c);
                self.i += 1;
                if op.len() > 4 {
                    break;
                }
            } else {
                break;
            }
        }
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        let target = match self.peek(0) {
            Some(c) if !is_operator(c) => self.word(),
            _ => String::new(),
        };
        if op.contains("<<") && !op.contains("<<<") {
            self.heredocs.push((target.clone(), op.ends_with('-')));
        }
        self.cmd.redirects.push(Redirect { op, target });
    }

    fn skip_heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.heredocs);
        for (delim, strip_tabs) in pending {
            while self.i < self.s.len() {
                let start = self.i;
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let line: String = self.s[start..self.i].iter().collect();
                self.i = (self.i + 1).min(self.s.len());
                let line = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if line == delim {
                    break;
                }
            }
        }
    }

    /// One word, quotes removed. Substitution bodies are recorded and kept in the word
    /// text (as `$(…)`) so the word still shows what it was.
    fn word(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => break,
                c if is_operator(c) => break,
                '\\' => {
                    if let Some(n) = self.peek(1) {
                        if n != '\n' {
                            w.push(n);
                        }
                        self.i += 2;
                    } else {
                        self.i += 1;
                    }
                }
                '\'' => {
                    self.i += 1;
                    while let Some(q) = self.peek(0) {
                        self.i += 1;
                        if q == '\'' {
                            break;
                        }
                        w.push(q);
                    }
                }
                '"' => {
                    self.i += 1;
                    self.double_quoted(&mut w);
                }
                '$' | '`' => self.dollar(&mut w),
                _ => {
                    w.push(c);
                    self.i += 1;
                }
            }
        }
        w
    }

    fn double_quoted(&mut self, w: &mut String) {
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.i += 1;
                    return;
                }
                '\\' if matches!(self.peek(1), Some('"' | '\\' | '$' | '`' | '\n')) => {
                    if let Some(n) = self.peek(1)
                        && n != '\n'
                    {
                        w.push(n);
                    }
                    self.i += 2;
                }
                '$' | '`' => self.dollar(w),
                _ => {
                    w.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// `$(…)`, `$((…))`, `${…}`, `` `…` `` or a plain `$`.
    fn dollar(&mut self, w: &mut String) {
        if self.peek(0) == Some('`') {
            self.i += 1;
            let mut body = String::new();
            while let Some(c) = self.peek(0) {
                self.i += 1;
                match c {
                    '`' => break,
                    '\\' => {
                        if let Some(n) = self.peek(0) {
                            body.push(n);
                            self.i += 1;
                        }
                    }
                    _ => body.push(c),
                }
            }
            w.push_str(&format!("$({body})"));
            self.out.substitutions.push(body);
            return;
        }
        match (self.peek(1), self.peek(2)) {
            (Some('('), Some('(')) => {
                self.i += 3;
                let body = self.balanced(')');
                w.push_str(&format!("$(({body})"));
            }
            (Some('('), _) => {
                self.i += 2;
                let body = self.balanced(')');
                w.push_str(&format!("$({body})"));
                self.out.substitutions.push(body);
            }
            (Some('{'), _) => {
                self.i += 2;
                let body = self.balanced('}');
                w.push_str(&format!("${{{body}}}"));
            }
            _ => {
                w.push('$');
                self.i += 1;
            }
        }
    }

    /// Text up to the matching `close`, skipping quoted parts; consumes the closer.
    fn balanced(&mut self, close: char) -> String {
        let open = if close == ')' { '(' } else { '{' };
        let mut depth = 1usize;
        let mut body = String::new();
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '\\' => {
                    body.push(c);
                    if let Some(n) = self.peek(0) {
                        body.push(n);
                        self.i += 1;
                    }
                }
                '\'' | '"' => {
                    body.push(c);
                    while let Some(q) = self.peek(0) {
                        self.i += 1;
                        body.push(q);
                        if q == c {
                            break;
                        }
                        if q == '\\'
                            && c == '"'
                            && let Some(n) = self.peek(0)
                        {
                            body.push(n);
                            self.i += 1;
                        }
                    }
                }
                c if c == open => {
                    depth += 1;
                    body.push(c);
                }
                c if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        return body;
                    }
                    body.push(c);
                }
                _ => body.push(c),
            }
        }
        body
    }

    fn end_cmd(&mut self) {
        let cmd = std::mem::take(&mut self.cmd);
        if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
            self.pipe.cmds.push(cmd);
        }
    }

    fn end_pipeline(&mut self) {
        self.end_cmd();
        let pipe = std::mem::take(&mut self.pipe);
        if !pipe.cmds.is_empty() {
            self.out.pipelines.push(pipe);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &Script) -> Vec<Vec<String>> {
        s.pipelines
            .iter()
            .flat_map(|p| p.cmds.iter().map(|c| c.words.clone()))
            .collect()
    }

    #[test]
    fn quotes_operators_and_substitutions() {
        let s = lex("echo 'a b' \"c $(rm -rf /)\" && ls | wc -l; sleep 1 &\n# rm -rf /\nx");
        assert_eq!(
            words(&s),
            vec![
                vec!["echo", "a b", "c $(rm -rf /)"],
                vec!["ls"],
                vec!["wc", "-l"],
                vec!["sleep", "1"],
                vec!["x"],
            ]
        );
        assert_eq!(s.substitutions, vec!["rm -rf /"]);
        assert_eq!(s.pipelines[1].cmds.len(), 2);
        assert!(s.pipelines[2].cmds[0].background);
    }

    #[test]
    fn redirects_and_heredocs() {
        let s = lex("cat <<EOF > /etc/x\nrm -rf /\nEOF\necho 2>/dev/null hi");
        assert_eq!(words(&s), vec![vec!["cat"], vec!["echo", "hi"]]);
        let r = &s.pipelines[0].cmds[0].redirects;
        assert_eq!(r[1].target, "/etc/x");
        assert_eq!(s.pipelines[1].cmds[0].redirects[0].op, "2>");
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for src in [
            "'abc", "\"abc", "$(abc", "`abc", "${", "a\\", "<<", "2>", "&",
        ] {
            let _ = lex(src);
        }
    }
}
