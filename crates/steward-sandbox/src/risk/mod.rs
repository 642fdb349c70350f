//! The advisory risk classifier shown on `run_code` approval cards. Shell code is lexed,
//! every simple command is unwrapped (`env`, `time`, `nice`, `timeout`, `sudo`, `sh -c`,
//! `eval`, `find -exec`, … recursively) and the *real* command is rated low / medium /
//! high; Python code gets a coarser pattern scan, the shell rating of any command string
//! it hands to `os.system` or `subprocess`, and a token-level look for dynamic code
//! (`exec`, `eval`, `__import__`, computed `getattr`, decoding hidden payloads).
//!
//! Owns: combining ratings into one `Assessment` and its card text. Does not own:
//! containment (the sandbox does that; this only informs the human), tokenising (`lex`,
//! `pylex`), wrapper syntax (`unwrap`), the per-command table (`rules`) or the Python
//! rules (`python`, `dynamic`).

mod dynamic;
mod lex;
mod pylex;
mod python;
mod rules;
mod unwrap;

pub use python::assess_python;

use lex::Redirect;
use rules::{is_fetcher, is_interpreter};
use unwrap::base;

/// Deeper nesting than this (`sh -c "sh -c '…'"` …) is itself rated high: we will not
/// pretend to understand it.
const MAX_DEPTH: usize = 8;
/// Longest command quoted on the card.
const MAX_SHOWN_CHARS: usize = 100;
/// Most commands listed on the card.
const MAX_LISTED: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Risk {
    Low,
    Medium,
    High,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    pub risk: Risk,
    /// Why, most serious first; empty for plain low-risk code.
    pub reasons: Vec<String>,
    /// The real commands after unwrapping, as shown on the card.
    pub commands: Vec<String>,
}

impl Assessment {
    /// The card text: rating, reasons, unwrapped commands.
    pub fn render(&self) -> String {
        let mut out = format!("risk: {}", self.risk.as_str());
        for r in &self.reasons {
            out.push_str("\n  - ");
            out.push_str(r);
        }
        if !self.commands.is_empty() {
            out.push_str("\nruns (wrappers removed):");
            for c in self.commands.iter().take(MAX_LISTED) {
                out.push_str("\n  $ ");
                out.push_str(c);
            }
            if self.commands.len() > MAX_LISTED {
                out.push_str(&format!("\n  … {} more", self.commands.len() - MAX_LISTED));
            }
        }
        out
    }
}

#[derive(Default)]
struct Judge {
    findings: Vec<(Risk, String)>,
    commands: Vec<String>,
}

impl Judge {
    fn add(&mut self, risk: Risk, reason: String) {
        if !self.findings.iter().any(|(_, r)| *r == reason) {
            self.findings.push((risk, reason));
        }
    }

    fn finish(mut self) -> Assessment {
        // Most serious first; stable, so equal risks keep their order in the code.
        self.findings.sort_by_key(|f| std::cmp::Reverse(f.0));
        Assessment {
            risk: self.findings.first().map_or(Risk::Low, |f| f.0),
            reasons: self.findings.into_iter().map(|f| f.1).collect(),
            commands: self.commands,
        }
    }

    fn script(&mut self, src: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.add(
                Risk::High,
                "shell code nested too deeply to judge".to_owned(),
            );
            return;
        }
        if let Some(name) = fork_bomb(src) {
            self.add(
                Risk::High,
                format!("fork bomb (function `{name}` spawns itself)"),
            );
        }
        let s = lex::lex(src);
        let fetched = s.substitutions.iter().any(|sub| {
            lex::lex(sub)
                .pipelines
                .iter()
                .flat_map(|p| &p.cmds)
                .any(|c| {
                    let u = unwrap::unwrap(&c.words);
                    u.words.first().is_some_and(|w| is_fetcher(base(w)))
                })
        });
        for sub in &s.substitutions {
            self.script(sub, depth + 1);
        }
        for p in &s.pipelines {
            let mut upstream_fetch = false;
            for (k, cmd) in p.cmds.iter().enumerate() {
                let real = self.simple(&cmd.words, &cmd.redirects, cmd.background, depth);
                let name = real.first().map(|w| base(w).to_owned()).unwrap_or_default();
                let reads_code = is_interpreter(&name) || name == "source" || name == ".";
                let no_script_arg =
                    real.len() == 1 || real.get(1).is_some_and(|a| a == "-" || a == "-s");
                if k > 0 && reads_code && no_script_arg {
                    if upstream_fetch {
                        self.add(Risk::High, format!("downloads and runs code (… | {name})"));
                    } else {
                        self.add(
                            Risk::Medium,
                            format!("runs code read from a pipe (… | {name})"),
                        );
                    }
                }
                if fetched && reads_code {
                    self.add(
                        Risk::High,
                        format!("runs downloaded code ({name} with a download substitution)"),
                    );
                }
                upstream_fetch |= is_fetcher(&name);
            }
        }
    }

    /// Unwraps and rates one simple command; returns the real command's words.
    fn simple(
        &mut self,
        words: &[String],
        redirects: &[Redirect],
        background: bool,
        depth: usize,
    ) -> Vec<String> {
        let u = unwrap::unwrap(words);
        for s in &u.scripts {
            self.script(s, depth + 1);
        }
        for c in &u.commands {
            if depth + 1 > MAX_DEPTH {
                self.add(
                    Risk::High,
                    "shell code nested too deeply to judge".to_owned(),
                );
            } else {
                self.simple(c, &[], false, depth + 1);
            }
        }
        let shown = shorten(&u.words.join(" "));
        if !u.words.is_empty() && self.commands.len() <= MAX_LISTED {
            self.commands.push(shown.clone());
        }
        for finding in rules::rate(&u.words, redirects, &shown) {
            self.add(finding.risk, finding.reason);
        }
        if let Some(first) = u.words.first()
            && first.starts_with("$(")
            && first
                .split_whitespace()
                .any(|w| is_fetcher(base(w.trim_start_matches("$("))))
        {
            self.add(Risk::High, format!("runs downloaded code ({shown})"));
        }
        if u.wrappers.contains(&"sudo") {
            self.add(
                Risk::Medium,
                format!("asks for root privileges (sudo) for: {shown}"),
            );
        }
        if background || u.wrappers.contains(&"nohup") || u.wrappers.contains(&"setsid") {
            self.add(
                Risk::Medium,
                format!("starts a background process ({shown})"),
            );
        }
        u.words
    }
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= MAX_SHOWN_CHARS {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(MAX_SHOWN_CHARS).collect();
        format!("{cut}…")
    }
}

/// `:(){ :|:& };:` and friends: a function whose body calls itself twice (piped or in the
/// background). Judged on the code with all whitespace removed.
fn fork_bomb(src: &str) -> Option<String> {
    let flat: String = src.chars().filter(|c| !c.is_whitespace()).collect();
    let mut from = 0;
    while let Some(pos) = flat[from..].find("(){") {
        let at = from + pos;
        let name: String = flat[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '.' | '-'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let body = &flat[at..];
        if !name.is_empty()
            && (body.contains(&format!("{name}|{name}"))
                || body.contains(&format!("{name}&{name}")))
        {
            return Some(name);
        }
        from = at + 3;
    }
    None
}

/// Rates shell code on its unwrapped commands.
pub fn assess_shell(code: &str) -> Assessment {
    let mut judge = Judge::default();
    judge.script(code, 0);
    judge.finish()
}
