//! Wrapper stripping: turns `env -i FOO=1 nice -n 5 timeout 10 sudo rm -rf /` into the
//! command that really runs (`rm -rf /`). Shell re-entry (`sh -c '…'`, `bash -lc "…"`,
//! `eval …`, `env -S '…'`) and `find … -exec CMD ;` come back as nested scripts or
//! commands for the caller to judge recursively.
//!
//! Owns: the wrapper vocabulary and each wrapper's option syntax. Does not own: rating
//! (see `rules`) or tokenising (see `lex`).

/// What a simple command turned out to be once its wrappers are gone.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Unwrapped {
    /// The real command and its arguments; empty if only wrappers/assignments were there.
    pub words: Vec<String>,
    /// Wrappers that matter for the rating (`sudo`, `nohup`, `setsid`, …).
    pub wrappers: Vec<&'static str>,
    /// Scripts handed to a shell (`sh -c`, `eval`, `env -S`), to be judged as scripts.
    pub scripts: Vec<String>,
    /// Commands run by `find -exec` / `xargs`-like constructs, to be judged as commands.
    pub commands: Vec<Vec<String>>,
    /// A shell that reads its script from stdin (`… | sh`).
    pub shell_reads_stdin: bool,
}

const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash", "fish",
];

pub(crate) fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

/// The command name without its directory and a leading backslash (`\rm`, `/bin/rm`).
pub(crate) fn base(word: &str) -> &str {
    let w = word.trim_start_matches('\\');
    w.rsplit('/').next().unwrap_or(w)
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Skips options of a wrapper: `with_value` options consume the next word unless glued
/// (`-n5`, `--signal=KILL`). Stops at `--` (consumed) or the first non-option.
fn skip_options(words: &[String], mut i: usize, with_value: &[&str]) -> usize {
    while let Some(w) = words.get(i) {
        if w == "--" {
            return i + 1;
        }
        if !w.starts_with('-') || w == "-" {
            return i;
        }
        let takes_value = with_value.iter().any(|o| w == o);
        i += if takes_value { 2 } else { 1 };
    }
    i
}

pub(crate) fn unwrap(words: &[String]) -> Unwrapped {
    let mut out = Unwrapped::default();
    let mut i = 0;
    // Each pass strips one wrapper; the bound only guards against a pathological loop.
    for _ in 0..64 {
        while words.get(i).is_some_and(|w| is_assignment(w)) {
            i += 1;
        }
        let Some(first) = words.get(i) else {
            return out;
        };
        let name = base(first);
        let next = match name {
            "env" => {
                let mut j = i + 1;
                while let Some(w) = words.get(j) {
                    if w == "--" {
                        j += 1;
                        break;
                    } else if w == "-S" || w == "--split-string" {
                        if let Some(s) = words.get(j + 1) {
                            out.scripts.push(s.clone());
                        }
                        j += 2;
                    } else if let Some(s) = w
                        .strip_prefix("--split-string=")
                        .or_else(|| w.strip_prefix("-S").filter(|s| !s.is_empty()))
                    {
                        out.scripts.push(s.to_owned());
                        j += 1;
                    } else if matches!(w.as_str(), "-u" | "--unset" | "-C" | "--chdir") {
                        j += 2;
                    } else if w.starts_with('-') || is_assignment(w) {
                        j += 1;
                    } else {
                        break;
                    }
                }
                j
            }
            "time" => skip_options(words, i + 1, &["-f", "-o", "--format", "--output"]),
            "nice" => skip_options(words, i + 1, &["-n", "--adjustment"]),
            "timeout" => {
                let j = skip_options(words, i + 1, &["-s", "-k", "--signal", "--kill-after"]);
                j + 1 // the duration
            }
            "stdbuf" => skip_options(
                words,
                i + 1,
                &["-i", "-o", "-e", "--input", "--output", "--error"],
            ),
            "ionice" => skip_options(
                words,
                i + 1,
                &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
            ),
            "setsid" | "nohup" | "disown" => {
                out.wrappers
                    .push(if name == "setsid" { "setsid" } else { "nohup" });
                skip_options(words, i + 1, &[])
            }
            "command" => {
                if words.get(i + 1).is_some_and(|w| w == "-v" || w == "-V") {
                    // `command -v rm` only asks where rm is.
                    out.words = words[i..].to_vec();
                    return out;
                }
                skip_options(words, i + 1, &[])
            }
            "exec" => skip_options(words, i + 1, &["-a"]),
            "builtin" | "then" | "do" | "else" | "elif" | "if" | "while" | "until" | "!" | "{"
            | "}" | "busybox" | "unbuffer" | "chronic" | "catchsegv" => i + 1,
            "sudo" | "doas" => {
                out.wrappers.push("sudo");
                let mut j = skip_options(
                    words,
                    i + 1,
                    &[
                        "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user",
                        "--group",
                    ],
                );
                while words.get(j).is_some_and(|w| is_assignment(w)) {
                    j += 1;
                }
                j
            }
            "xargs" => skip_options(
                words,
                i + 1,
                &[
                    "-I",
                    "-n",
                    "-L",
                    "-P",
                    "-d",
                    "-E",
                    "-s",
                    "-a",
                    "--max-args",
                    "--max-procs",
                    "--delimiter",
                    "--arg-file",
                ],
            ),
            "su" => {
                out.wrappers.push("sudo");
                let c = words[i + 1..]
                    .iter()
                    .position(|w| w == "-c" || w == "--command");
                match c.and_then(|k| words.get(i + 2 + k)) {
                    Some(script) => out.scripts.push(script.clone()),
                    None => out.words = words[i..].to_vec(),
                }
                return out;
            }
            "eval" => {
                out.scripts.push(words[i + 1..].join(" "));
                return out;
            }
            n if is_shell(n) => {
                shell_invocation(words, i, &mut out);
                return out;
            }
            "find" => {
                find_exec(words, i, &mut out);
                return out;
            }
            _ => {
                out.words = words[i..].to_vec();
                return out;
            }
        };
        i = next;
    }
    out.words = words[i.min(words.len())..].to_vec();
    out
}

/// `sh [-e] -c 'script' [name args…]`, `bash -lc "…"`, `sh script.sh`, or `sh` alone.
fn shell_invocation(words: &[String], i: usize, out: &mut Unwrapped) {
    let mut j = i + 1;
    let mut has_c = false;
    while let Some(w) = words.get(j) {
        if w == "--" {
            j += 1;
            break;
        }
        if w == "-o" || w == "+o" || w == "-O" || w == "+O" {
            j += 2;
            continue;
        }
        if (w.starts_with('-') || w.starts_with('+')) && w.len() > 1 && !w.starts_with("--") {
            has_c |= w[1..].contains('c');
            j += 1;
            continue;
        }
        if w.starts_with("--") {
            j += 1;
            continue;
        }
        break;
    }
    match words.get(j) {
        Some(script) if has_c => out.scripts.push(script.clone()),
        Some(_) => out.words = words[i..].to_vec(),
        None => {
            out.words = words[i..].to_vec();
            out.shell_reads_stdin = true;
        }
    }
}

/// `find … -exec CMD … ;` (and `-execdir`, `-ok`, `-okdir`); `-delete` stays visible in
/// the find command itself.
fn find_exec(words: &[String], i: usize, out: &mut Unwrapped) {
    out.words = words[i..].to_vec();
    let mut j = i + 1;
    while let Some(w) = words.get(j) {
        if matches!(w.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = j + 1;
            let mut end = start;
            while words.get(end).is_some_and(|w| w != ";" && w != "+") {
                end += 1;
            }
            out.commands
                .push(words[start..end.min(words.len())].to_vec());
            j = end + 1;
        } else {
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn strips_wrappers() {
        for (input, real) in [
            ("env rm -rf /", "rm -rf /"),
            ("env -i A=1 -u B rm x", "rm x"),
            ("time nice -n 5 rm -rf ~", "rm -rf ~"),
            (
                "nohup timeout -s KILL 10 stdbuf -oL dd of=/dev/sda",
                "dd of=/dev/sda",
            ),
            ("A=1 B=2 sudo -u root -E C=3 /bin/rm -rf /", "/bin/rm -rf /"),
            ("command exec -a x rm y", "rm y"),
            ("xargs -0 -n 1 rm -f", "rm -f"),
            ("nice -5 ionice -c 3 chmod -R 777 /", "chmod -R 777 /"),
        ] {
            assert_eq!(unwrap(&w(input)).words, w(real), "{input}");
        }
    }

    #[test]
    fn shells_and_find() {
        let u = unwrap(&w("bash -lc x"));
        assert_eq!(u.scripts, vec!["x"]);
        let u = unwrap(&w("find . -name a -exec rm -rf {} ; -print"));
        assert_eq!(u.commands, vec![w("rm -rf {}")]);
        assert!(unwrap(&w("sh")).shell_reads_stdin);
        assert_eq!(unwrap(&w("command -v rm")).words, w("command -v rm"));
    }
}
