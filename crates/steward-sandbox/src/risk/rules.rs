//! The rating table: what an unwrapped command does and how risky that is. Advisory
//! only — shown to the human on the approval card; the sandbox is the containment.
//!
//! Owns: command → (risk, reason). Does not own: finding the real command (`unwrap`) or
//! combining ratings (`risk`).

use super::Risk;
use super::lex::Redirect;
use super::unwrap::{base, is_shell};

/// System locations a write to which is high risk (on a real host it would change it).
const SYSTEM_PREFIXES: &[&str] = &[
    "/etc",
    "/boot",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/var/lib",
    "/sys",
    "/proc/sys",
    "/dev/sd",
    "/dev/nvme",
    "/dev/hd",
    "/dev/vd",
    "/dev/mmcblk",
    "/dev/mem",
    "/root",
];
/// Arguments that, as the target of a recursive delete or permission change, mean "all".
const EVERYTHING: &[&str] = &[
    "/", "/*", "~", "~/", "~/*", "$HOME", "${HOME}", "*", ".", "..", "./*",
];
const FETCHERS: &[&str] = &[
    "curl", "wget", "fetch", "aria2c", "nc", "ncat", "netcat", "socat",
];
const INTERPRETERS: &[&str] = &["python", "python3", "perl", "ruby", "node", "php", "lua"];

pub(crate) fn is_fetcher(name: &str) -> bool {
    FETCHERS.contains(&name)
}

pub(crate) fn is_interpreter(name: &str) -> bool {
    is_shell(name) || INTERPRETERS.contains(&name) || name.starts_with("python3.")
}

fn system_path(arg: &str) -> bool {
    let arg = arg.strip_prefix("of=").unwrap_or(arg);
    SYSTEM_PREFIXES.iter().any(|p| {
        arg == *p
            || arg.starts_with(&format!("{p}/"))
            || (p.starts_with("/dev/") && arg.starts_with(p))
    })
}

/// Short options containing `letter` (`-rf`, `-Rv`) or the long form.
fn has_flag(args: &[String], letters: &[char], long: &str) -> bool {
    args.iter().any(|a| {
        a == long
            || (a.starts_with('-')
                && !a.starts_with("--")
                && a[1..].chars().any(|c| letters.contains(&c)))
    })
}

pub(crate) struct Finding {
    pub risk: Risk,
    pub reason: String,
}

fn f(risk: Risk, reason: impl Into<String>) -> Finding {
    Finding {
        risk,
        reason: reason.into(),
    }
}

/// Rates one real command (already unwrapped). `shown` is how it is quoted in reasons.
pub(crate) fn rate(words: &[String], redirects: &[Redirect], shown: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in redirects {
        if r.op.contains('>') && system_path(&r.target) {
            out.push(f(
                Risk::High,
                format!("writes to a system location ({})", r.target),
            ));
        }
    }
    let Some(first) = words.first() else {
        return out;
    };
    let name = base(first);
    let args = &words[1..];
    if name.starts_with('$') || name.starts_with("$(") {
        out.push(f(
            Risk::Medium,
            format!("the command name is computed at run time ({shown})"),
        ));
        return out;
    }
    let everything = args.iter().any(|a| EVERYTHING.contains(&a.as_str()));
    let touches_system = args.iter().any(|a| system_path(a));
    match name {
        "rm" | "unlink" | "rmdir" | "srm" => {
            if has_flag(args, &['r', 'R'], "--recursive") {
                let what = if everything {
                    " of everything"
                } else if touches_system {
                    " of system files"
                } else {
                    ""
                };
                out.push(f(Risk::High, format!("recursive delete{what} ({shown})")));
            } else if touches_system || everything {
                out.push(f(Risk::High, format!("deletes system files ({shown})")));
            } else {
                out.push(f(Risk::Medium, format!("deletes files ({shown})")));
            }
        }
        "shred" | "wipefs" | "mkswap" | "blkdiscard" | "fdisk" | "sfdisk" | "cfdisk" | "parted"
        | "mke2fs" | "format" => out.push(f(Risk::High, format!("destroys disk data ({shown})"))),
        n if n.starts_with("mkfs") => {
            out.push(f(Risk::High, format!("formats a file system ({shown})")))
        }
        "dd" => {
            let risk = if args.iter().any(|a| a.starts_with("of=")) {
                Risk::High
            } else {
                Risk::Medium
            };
            out.push(f(risk, format!("raw copy with dd ({shown})")));
        }
        "chmod" | "chown" | "chgrp" | "setfacl" | "chattr" => {
            if has_flag(args, &['R'], "--recursive") {
                out.push(f(
                    Risk::High,
                    format!("recursive permission change ({shown})"),
                ));
            } else if touches_system || everything {
                out.push(f(
                    Risk::High,
                    format!("changes system file permissions ({shown})"),
                ));
            } else {
                out.push(f(Risk::Medium, format!("changes permissions ({shown})")));
            }
        }
        "tee" | "cp" | "mv" | "install" | "ln" | "truncate" | "rsync" if touches_system => {
            out.push(f(
                Risk::High,
                format!("writes to a system location ({shown})"),
            ));
        }
        "mv" if everything => out.push(f(Risk::High, format!("moves everything ({shown})"))),
        "sed" if touches_system && has_flag(args, &['i'], "--in-place") => {
            out.push(f(
                Risk::High,
                format!("edits a system file in place ({shown})"),
            ));
        }
        "shutdown" | "reboot" | "halt" | "poweroff" | "init" | "telinit" => {
            out.push(f(
                Risk::High,
                format!("stops or restarts the machine ({shown})"),
            ));
        }
        "kill" | "pkill" | "killall" | "killall5" => {
            // `kill -9 -1`: the last argument -1 means every process the user may signal.
            let all = args.last().is_some_and(|a| a == "-1");
            let risk = if all || name == "killall5" {
                Risk::High
            } else {
                Risk::Medium
            };
            out.push(f(risk, format!("kills processes ({shown})")));
        }
        "crontab" | "at" | "batch" | "systemctl" | "service" | "launchctl" | "update-rc.d"
        | "chkconfig" => out.push(f(
            Risk::High,
            format!("installs or controls a persistent service ({shown})"),
        )),
        "iptables" | "ip6tables" | "nft" | "mount" | "umount" | "insmod" | "rmmod" | "modprobe"
        | "swapon" | "swapoff" | "useradd" | "userdel" | "usermod" | "passwd" | "visudo" => {
            out.push(f(
                Risk::High,
                format!("changes the system configuration ({shown})"),
            ));
        }
        "sysctl" if has_flag(args, &['w'], "--write") => {
            out.push(f(Risk::High, format!("changes kernel settings ({shown})")));
        }
        "daemon" | "daemonize" | "screen" | "tmux" => {
            out.push(f(
                Risk::Medium,
                format!("starts a background process ({shown})"),
            ));
        }
        "ssh" | "scp" | "sftp" | "ftp" | "telnet" => {
            out.push(f(
                Risk::Medium,
                format!("network access; the sandbox has none ({shown})"),
            ));
        }
        n if is_fetcher(n) => out.push(f(
            Risk::Medium,
            format!("network access; the sandbox has none ({shown})"),
        )),
        "git"
            if args
                .iter()
                .any(|a| a == "--force" || a == "-f" || a == "--hard" || a == "clean") =>
        {
            out.push(f(
                Risk::Medium,
                format!("discards git history or files ({shown})"),
            ));
        }
        n if is_shell(n) && args.iter().any(|a| !a.starts_with('-')) => {
            out.push(f(Risk::Medium, format!("runs a script file ({shown})")));
        }
        _ => {}
    }
    out
}
