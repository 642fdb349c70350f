//! The layering of docs/ARCHITECTURE.md, enforced: a crate may depend only on crates in
//! lower layers, the test kit never ships in production code, and every workspace crate
//! has a place in the table (a new crate must be placed on purpose); only the resolve path
//! changes an action's status; each value rule (fact keys, tags, tool names, ids) lives
//! only in `steward_protocol`; the surface rules of `architecture/surfaces.rs` (who makes a
//! `Principal`, how surfaces reach memory); and the ports' rules of `architecture/ports.rs`
//! (the clock, the store constructor, the test-only failpoints).
//!
//! In `architecture/`: `unsafe` appears only in steward-sandbox and every crate takes the
//! workspace's lints (`unsafe_code.rs`); no module cycles (`cycles.rs`). The cycle rule
//! (`deps.rs`): a reference from module A to module B (`use`, or a `crate::`/`super::`/
//! `self::` path, resolved through re-exports to the module that defines the item) is a
//! dependency between the two children of their closest common module that hold A and B; a
//! module's references to its own ancestors or descendants are the tree, not dependencies;
//! `#[cfg(test)]` modules are left out; under every module, its children's dependencies must
//! form no cycle.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "architecture/cycles.rs"]
mod cycles;
#[path = "architecture/deps.rs"]
mod deps;
#[path = "architecture/modules.rs"]
mod modules;
#[path = "architecture/ports.rs"]
mod ports;
#[path = "architecture/source.rs"]
mod source;
#[path = "architecture/surfaces.rs"]
mod surfaces;
#[path = "architecture/unsafe_code.rs"]
mod unsafe_code;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Higher number = higher layer. Same number = siblings, which may not depend on each other.
const LAYERS: &[(&str, u32)] = &[
    ("steward", 9),
    ("steward-server", 8),
    ("steward-telegram", 8),
    ("steward-jobs", 7),
    ("steward-mcp", 7),
    ("steward-core", 6),
    // Tool implementations beside core: they know the `Tool` trait, core knows neither
    // (its tests run the real `run_code`, a same-layer dev-dependency).
    ("steward-sandbox", 6),
    ("steward-web", 6),
    ("steward-tools", 5),
    ("steward-memory", 4),
    ("steward-llm", 3),
    ("steward-store", 2),
    ("steward-protocol", 1),
    ("steward-testkit", 2),
];

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn steward_deps(table: Option<&toml::Value>) -> Vec<String> {
    table
        .and_then(|t| t.as_table())
        .map(|t| {
            t.keys()
                .filter(|k| k.starts_with("steward"))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn manifests() -> BTreeMap<String, toml::Value> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(crates_dir()).unwrap() {
        let path = entry.unwrap().path().join("Cargo.toml");
        if !path.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let value: toml::Value = toml::from_str(&text).unwrap();
        let name = value["package"]["name"].as_str().unwrap().to_owned();
        out.insert(name, value);
    }
    out
}

fn layer(name: &str) -> u32 {
    LAYERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, l)| *l)
        .unwrap_or_else(|| panic!("crate {name} is not placed in the layer table of this test"))
}

fn violations(manifests: &BTreeMap<String, toml::Value>) -> Vec<String> {
    let mut bad = Vec::new();
    for (name, manifest) in manifests {
        let own = layer(name);
        for dep in steward_deps(manifest.get("dependencies")) {
            if dep == "steward-testkit" {
                bad.push(format!(
                    "{name} depends on the test kit outside [dev-dependencies]"
                ));
            } else if layer(&dep) >= own {
                bad.push(format!(
                    "{name} (layer {own}) depends on {dep} (layer {}), which is not below it",
                    layer(&dep)
                ));
            }
        }
        for dep in steward_deps(manifest.get("dev-dependencies")) {
            if dep != "steward-testkit" && dep != *name && layer(&dep) > own {
                bad.push(format!(
                    "{name} has a dev-dependency on {dep}, a higher layer"
                ));
            }
        }
    }
    bad
}

#[test]
fn dependencies_point_down() {
    let m = manifests();
    assert!(
        m.len() >= 8,
        "expected the workspace crates, found {:?}",
        m.keys()
    );
    let bad = violations(&m);
    assert!(bad.is_empty(), "layering violations:\n{}", bad.join("\n"));
}

#[test]
fn the_check_catches_an_upward_dependency() {
    // Guard against a checker that passes everything: plant a violation and see it caught.
    let mut m = manifests();
    let store = m.get_mut("steward-store").unwrap();
    store["dependencies"]
        .as_table_mut()
        .unwrap()
        .insert("steward-core".into(), toml::Value::String("0.1".into()));
    let bad = violations(&m);
    assert!(
        bad.iter()
            .any(|v| v.contains("steward-store") && v.contains("steward-core")),
        "{bad:?}"
    );

    let mut m = manifests();
    let core = m.get_mut("steward-core").unwrap();
    core["dependencies"]
        .as_table_mut()
        .unwrap()
        .insert("steward-testkit".into(), toml::Value::String("0.1".into()));
    assert!(violations(&m).iter().any(|v| v.contains("test kit")));
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every Rust file of the workspace as `(path relative to crates/, text)`: what each source
/// rule below (and in `architecture/`) scans.
fn source_files() -> Vec<(String, String)> {
    let root = crates_dir();
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap();
            (rel, text)
        })
        .collect()
}

/// The part of `text` that is built without `cfg(test)`: each `#[cfg(test)]` item (a `mod
/// tests { … }`, a `mod tests;`, a test-only function) is cut out by matching its braces.
fn without_test_items(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let open = item.find('{');
        let semi = item.find(';');
        let end = match (open, semi) {
            (Some(o), Some(s)) if s < o => s + 1,
            (Some(o), _) => {
                let mut depth = 0usize;
                let mut end = item.len();
                for (i, c) in item[o..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = o + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, Some(s)) => s + 1,
            (None, None) => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Whether `rel` (relative to `crates/`) is code that ships: a crate's `src/`, minus the test
/// kit, the store's test-only contract suite and test files under `src/`.
fn ships(rel: &str) -> bool {
    let Some((krate, path)) = rel.split_once("/src/") else {
        return false;
    };
    let test_only = krate == "steward-testkit"
        || (krate == "steward-store" && path.starts_with("contract/"))
        || path.ends_with("tests.rs")
        || path.contains("/tests/");
    !test_only
}

/// Files allowed to change an action's status: the resolve path, and the store adapter
/// that implements the compare-and-set (plus its own contract tests).
fn may_write_action_status(rel: &str) -> bool {
    rel == "steward-core/src/approvals/resolve.rs" || rel.starts_with("steward-store/")
}

fn status_writers() -> Vec<String> {
    let mut bad = Vec::new();
    for (rel, text) in source_files() {
        if rel.starts_with("steward/tests/architecture.rs") {
            continue;
        }
        let writes = text.contains(".transition_action(")
            || text.to_lowercase().contains("update pending_actions");
        if writes && !may_write_action_status(&rel) {
            bad.push(rel);
        }
    }
    bad
}

#[test]
fn only_resolve_changes_an_actions_status() {
    let bad = status_writers();
    assert!(
        bad.is_empty(),
        "only steward-core/src/approvals/resolve.rs may change an action's status; also found in: {bad:?}"
    );
    // The check itself can fail: the resolve path really does call it.
    let resolve =
        std::fs::read_to_string(crates_dir().join("steward-core/src/approvals/resolve.rs"))
            .unwrap();
    assert!(resolve.contains(".transition_action("));
    assert!(!may_write_action_status("steward-core/src/turn.rs"));
}

/// The value rules of `steward_protocol::values` (fact keys, tags, tool names, opaque ids) in
/// the shapes their former copies took: a limit constant of the same name, or the rule's
/// character class written out by hand. Each class is specific enough (the fact key's `.`, the
/// tag's closing `-`) that it matches no unrelated check but the few listed in
/// `OTHER_VALUES_WITH_THE_SAME_CLASS`.
const VALUE_RULE_COPIES: &[(&str, &str)] = &[
    ("const MAX_TAG_LEN", "a second tag length limit"),
    ("const MAX_TAGS:", "a second tag count limit"),
    ("const MAX_KEY_LEN", "a second fact-key length limit"),
    ("const MAX_FACT_KEY_LEN", "a second fact-key length limit"),
    ("const MAX_TOOL_LEN", "a second tool-name length limit"),
    ("const MAX_TOOL_NAME_LEN", "a second tool-name length limit"),
    ("const MAX_OPAQUE_ID_LEN", "a second id length limit"),
    ("b == b'_' || b == b'.'", "a hand-rolled fact-key check"),
    ("b == b'_' || b == b'-')", "a hand-rolled tag check"),
    (
        "b.is_ascii_digit() || b == b'_')",
        "a hand-rolled tool-name check",
    ),
    (
        "b.is_ascii_alphanumeric() || b == b'-')",
        "a hand-rolled id check",
    ),
];

/// Where the rules live.
const VALUE_RULES_HOME: &str = "steward-protocol/src/values.rs";

/// Other values that happen to share a rule's character class, each allowed exactly as many
/// times as it is there today (a second occurrence in the same file is a copy).
const OTHER_VALUES_WITH_THE_SAME_CLASS: &[(&str, &str, usize)] = &[
    // User-defined provider names, `[a-z0-9_-]{1,32}`: a configuration name, not a tag.
    ("steward/src/config/rules.rs", "b == b'_' || b == b'-')", 1),
    // Skill names, `[a-z0-9][a-z0-9_-]{0,63}`.
    (
        "steward-tools/src/skills/parse.rs",
        "b == b'_' || b == b'-')",
        1,
    ),
    // Telegram bot tokens, `<digits>:[A-Za-z0-9_-]{30,100}`: @BotFather's shape, a secret.
    (
        "steward-telegram/src/token.rs",
        "b == b'_' || b == b'-')",
        1,
    ),
    // MCP server names, `[a-z0-9_]{1,32}` without leading, trailing or double `_`.
    (
        "steward-mcp/src/spec.rs",
        "b.is_ascii_digit() || b == b'_')",
        1,
    ),
];

fn value_rule_copies_in(rel: &str, text: &str) -> Vec<String> {
    if rel == VALUE_RULES_HOME {
        return Vec::new();
    }
    let mut bad = Vec::new();
    for (pattern, what) in VALUE_RULE_COPIES {
        let found = text.matches(pattern).count();
        let allowed = OTHER_VALUES_WITH_THE_SAME_CLASS
            .iter()
            .filter(|(file, p, _)| *file == rel && p == pattern)
            .map(|(_, _, n)| *n)
            .sum::<usize>();
        if found > allowed {
            bad.push(format!("{rel}: {what} (`{pattern}`)"));
        }
    }
    bad
}

fn value_rule_copies() -> Vec<String> {
    source_files()
        .iter()
        .filter(|(rel, _)| rel != "steward/tests/architecture.rs")
        .flat_map(|(rel, text)| value_rule_copies_in(rel, text))
        .collect()
}

#[test]
fn each_value_rule_has_one_home() {
    let bad = value_rule_copies();
    assert!(
        bad.is_empty(),
        "value rules belong in {VALUE_RULES_HOME} (use FactKey, Tag, ToolName, ActionId, GrantId, TurnId and their parse); copies found:\n{}",
        bad.join("\n")
    );
    // The home really holds the limits the patterns look for.
    let home = std::fs::read_to_string(crates_dir().join(VALUE_RULES_HOME)).unwrap();
    for name in [
        "MAX_TAG_LEN",
        "MAX_TAGS:",
        "MAX_FACT_KEY_LEN",
        "MAX_TOOL_NAME_LEN",
    ] {
        assert!(home.contains(&format!("pub const {name}")), "{name}");
    }
    // Every allowance still matches something: a stale one would hide a future copy.
    for (file, pattern, n) in OTHER_VALUES_WITH_THE_SAME_CLASS {
        let text = std::fs::read_to_string(crates_dir().join(file)).unwrap();
        assert_eq!(text.matches(pattern).count(), *n, "{file}: `{pattern}`");
    }
}

#[test]
fn the_value_rule_check_catches_the_former_copies() {
    // Guard against a checker that passes everything: the copies this check replaced, as
    // they were written, are each caught.
    let former = [
        (
            "steward-server/src/memory/mod.rs",
            "const MAX_TAGS: usize = 20;\nconst MAX_TAG_LEN: usize = 32;",
        ),
        (
            "steward/src/memory_cmd.rs",
            ".all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.');",
        ),
        (
            "steward-tools/src/memory/mod.rs",
            ".all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');",
        ),
        (
            "steward-server/src/approvals/grants.rs",
            ".all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');",
        ),
        (
            "steward-server/src/approvals/mod.rs",
            "raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');",
        ),
        (
            "steward-store/src/validate/memory.rs",
            "pub const MAX_FACT_KEY_LEN: usize = 256;",
        ),
    ];
    for (rel, text) in former {
        assert!(!value_rule_copies_in(rel, text).is_empty(), "{rel}: {text}");
    }
    // An allowed other value is allowed once, not twice.
    let provider =
        ".all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')";
    assert!(value_rule_copies_in("steward/src/config/rules.rs", provider).is_empty());
    let twice = format!("{provider}\n{provider}");
    assert!(!value_rule_copies_in("steward/src/config/rules.rs", &twice).is_empty());
    // Unrelated code that shares words with the rules is not caught.
    for fine in [
        "pub const MAX_KV_KEY_LEN: usize = 512;",
        "if key.len() > MAX_KV_KEY_LEN {",
        "Tag::normalise_strings(raw)",
        "matches!(c, '\\'' | '-' | '_' | '.')",
    ] {
        assert!(
            value_rule_copies_in("steward-x/src/y.rs", fine).is_empty(),
            "{fine}"
        );
    }
}
