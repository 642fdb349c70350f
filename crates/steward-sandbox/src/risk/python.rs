//! The Python rating: call patterns that matter (deleting, processes, network), the shell
//! rating of command strings handed to `os.system` / `os.popen` / `subprocess`, writes to
//! system paths, and the dynamic-code findings of `dynamic`.
//!
//! Owns: `assess_python`. Does not own the dynamic-code rules (`dynamic`), tokenising
//! (`pylex`) or combining findings (`Judge` in the parent).

use super::{Assessment, Judge, Risk};

/// Python: call patterns that matter, plus the shell rating of command strings passed
/// to `os.system` / `os.popen` / `subprocess` (the first string literal after the call).
pub fn assess_python(code: &str) -> Assessment {
    const PATTERNS: &[(&str, Risk, &str)] = &[
        (
            "shutil.rmtree",
            Risk::High,
            "recursive delete (shutil.rmtree)",
        ),
        ("os.system", Risk::Medium, "runs shell commands (os.system)"),
        ("os.popen", Risk::Medium, "runs shell commands (os.popen)"),
        (
            "subprocess",
            Risk::Medium,
            "runs other programs (subprocess)",
        ),
        (
            "os.exec",
            Risk::Medium,
            "replaces itself with another program (os.exec*)",
        ),
        ("pty.spawn", Risk::Medium, "runs other programs (pty.spawn)"),
        ("os.fork", Risk::Medium, "forks processes (os.fork)"),
        (
            "os.kill",
            Risk::Medium,
            "sends signals to processes (os.kill)",
        ),
        ("ctypes", Risk::Medium, "calls native code (ctypes)"),
        (
            "socket",
            Risk::Medium,
            "network access; the sandbox has none (socket)",
        ),
        (
            "urllib",
            Risk::Medium,
            "network access; the sandbox has none (urllib)",
        ),
        (
            "requests",
            Risk::Medium,
            "network access; the sandbox has none (requests)",
        ),
        (
            "http.client",
            Risk::Medium,
            "network access; the sandbox has none (http.client)",
        ),
        ("os.remove", Risk::Medium, "deletes files (os.remove)"),
        ("os.unlink", Risk::Medium, "deletes files (os.unlink)"),
        ("os.chmod", Risk::Medium, "changes permissions (os.chmod)"),
    ];
    let mut judge = Judge::default();
    super::dynamic::judge(code, &mut judge);
    for (pat, risk, reason) in PATTERNS {
        if code.contains(pat) {
            judge.add(*risk, (*reason).to_owned());
        }
    }
    for call in ["os.system(", "os.popen(", "subprocess."] {
        let mut rest = code;
        while let Some(pos) = rest.find(call) {
            rest = &rest[pos + call.len()..];
            if let Some(cmd) = first_string_literal(rest) {
                judge.script(&cmd, 1);
            }
        }
    }
    if ["/etc/", "/usr/", "/boot/", "/bin/"]
        .iter()
        .any(|p| code.contains(&format!("'{p}")) || code.contains(&format!("\"{p}")))
        && ["'w'", "\"w\"", "'a'", "\"a\"", "write_text", "write_bytes"]
            .iter()
            .any(|m| code.contains(m))
    {
        judge.add(Risk::High, "writes to a system location".to_owned());
    }
    judge.finish()
}

/// The first '…' or "…" literal within the next 200 bytes (the call's first argument).
fn first_string_literal(s: &str) -> Option<String> {
    let window: String = s.chars().take(200).collect();
    let start = window.find(['\'', '"'])?;
    let quote = window[start..].chars().next()?;
    let body = &window[start + 1..];
    let end = body.find(quote)?;
    Some(body[..end].to_owned())
}
