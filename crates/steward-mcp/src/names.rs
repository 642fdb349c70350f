//! Namespaced registry names for a server's tools: `<server>__<tool>`, sanitised to
//! `[a-z0-9_]`, at most 64 characters, stable for a given tool set and free of collisions.
//!
//! Owns: the mapping from (server, server tool name) to a registry name. Does not own the
//! server name rules (see `spec`) or which tools exist (see `client`).
//!
//! Rules: lowercase ASCII letters and digits are kept, every other character becomes `_`
//! (`get-sum` → `get_sum`). A name that is too long, or that collides with another tool of
//! the same server after sanitising, gets `_` + eight hex digits of a hash of the server's
//! original tool name, so the result depends only on that name (and on the set only to the
//! extent of which names collide).

use std::collections::BTreeMap;

/// A registry name is a `steward_protocol::ToolName`.
const MAX_NAME: usize = steward_protocol::MAX_TOOL_NAME_LEN;
const SEPARATOR: &str = "__";
/// `_` + 8 hex digits.
const SUFFIX_LEN: usize = 9;

/// `[a-z0-9_]` only; everything else (uppercase included, to keep names case-stable) → `_`.
fn sanitise(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '_' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '_',
        })
        .collect()
}

/// FNV-1a, 32 bits: tiny, stable across releases and platforms (unlike std's hasher).
fn fnv1a(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

fn with_suffix(base: &str, original: &str) -> String {
    let keep = MAX_NAME - SUFFIX_LEN;
    let cut: String = base.chars().take(keep).collect();
    format!("{cut}_{:08x}", fnv1a(original))
}

/// Registry names for `tools` (the server's own names) of server `server`, keyed by the
/// server's name. Deterministic: the same inputs give the same map, whatever their order.
pub fn namespaced(server: &str, tools: &[&str]) -> BTreeMap<String, String> {
    let mut sorted: Vec<&str> = tools.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let prefix = format!("{}{SEPARATOR}", sanitise(server));
    let plain: Vec<(&str, String)> = sorted
        .iter()
        .map(|t| (*t, format!("{prefix}{}", sanitise(t))))
        .collect();
    // How many originals map to each plain name: more than one = a collision.
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, p) in &plain {
        *counts.entry(p.as_str()).or_default() += 1;
    }
    let mut out = BTreeMap::new();
    let mut taken: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for (original, p) in &plain {
        let collides = counts.get(p.as_str()).copied().unwrap_or(0) > 1;
        // Among colliding names, one already in canonical form keeps the plain name.
        let canonical = sanitise(original) == *original;
        let mut name = if p.len() > MAX_NAME || (collides && !canonical) {
            with_suffix(p, original)
        } else {
            p.clone()
        };
        // A hash suffix can itself collide (or match a plain name); rehash with a salt until
        // it is free. Practically never loops more than once.
        let mut salt = 0u32;
        while taken.contains(&name) {
            salt += 1;
            name = with_suffix(p, &format!("{original}#{salt}"));
        }
        taken.insert(name.clone());
        out.insert((*original).to_owned(), name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(n: &str) -> bool {
        steward_protocol::ToolName::parse(n).is_ok()
    }

    #[test]
    fn plain_names() {
        let m = namespaced("everything", &["echo", "get-sum", "Get.Env"]);
        assert_eq!(m["echo"], "everything__echo");
        assert_eq!(m["get-sum"], "everything__get_sum");
        assert_eq!(m["Get.Env"], "everything__get_env");
    }

    #[test]
    fn collisions_get_distinct_stable_names() {
        let a = namespaced("s", &["a-b", "a_b", "a.b"]);
        assert_eq!(a["a_b"], "s__a_b", "the canonical one keeps the plain name");
        assert_ne!(a["a-b"], a["a.b"]);
        assert!(a.values().all(|n| valid(n)));
        let b = namespaced("s", &["a.b", "a_b", "a-b"]);
        assert_eq!(a, b, "order of the input does not matter");
    }

    #[test]
    fn long_and_hostile_names_fit() {
        let long = "x".repeat(500);
        let hostile = "../../etc/passwd\u{202e}<script>";
        let emoji = "🙂🙂";
        let m = namespaced("srv", &[&long, hostile, emoji, "", " "]);
        assert_eq!(m.len(), 5);
        let mut seen = std::collections::BTreeSet::new();
        for n in m.values() {
            assert!(valid(n), "{n}");
            assert!(seen.insert(n.clone()), "duplicate {n}");
        }
        assert_eq!(m[&long].len(), 64);
    }

    #[test]
    fn many_colliding_names_stay_unique() {
        let names: Vec<String> = (0..300)
            .map(|i| format!("t{}", "-".repeat(i % 7)) + &"?".repeat(i))
            .collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let m = namespaced("s", &refs);
        let unique: std::collections::BTreeSet<_> = m.values().collect();
        assert_eq!(unique.len(), m.len());
        assert!(m.values().all(|n| valid(n)));
    }
}
