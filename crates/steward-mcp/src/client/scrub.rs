//! One rule for server-supplied text Steward shows or logs (errors, stderr lines, tool names
//! and descriptions, summaries): every configured secret value replaced, control characters
//! turned to spaces, one line, bounded. A leaf every part of the client uses.
//!
//! Owns: that rule. Does not own which secrets a server has (`ServerSpec::secret_values`) or
//! fencing results for the model (`crate::fence`).

/// Replace every secret value in `text` with `[redacted]`, then make it one bounded line.
pub(crate) fn scrub(text: &str, secrets: &[String], max_chars: usize) -> String {
    let mut out = text.to_owned();
    for s in secrets {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), "[redacted]");
        }
    }
    let flat: String = out
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut line = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > max_chars {
        line = line.chars().take(max_chars).collect::<String>() + "…";
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrub_redacts_and_bounds() {
        let secrets = vec!["sk-secret-1234".to_owned()];
        let s = scrub("token=sk-secret-1234\n\u{7}next", &secrets, 100);
        assert_eq!(s, "token=[redacted] next");
        let long = scrub(&"x".repeat(1000), &[], 10);
        assert_eq!(long.chars().count(), 11);
    }
}
