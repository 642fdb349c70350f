//! Counts in the CLI's output: "1 tool", "2 tools", never "1 tools" or "tool(s)".
//!
//! Owns: the one place the binary spells a count with its noun. Does not own any wording
//! beyond that.

/// `n` followed by `one` when n is 1, else by `many`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1, "tool", "tools"), "1 tool");
        assert_eq!(count(0, "tool", "tools"), "0 tools");
        assert_eq!(count(2, "summary", "summaries"), "2 summaries");
    }
}
