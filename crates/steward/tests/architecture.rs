//! The layering of docs/ARCHITECTURE.md, enforced: a crate may depend only on crates in
//! lower layers, the test kit never ships in production code, and every workspace crate
//! has a place in the table (a new crate must be placed on purpose).

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

/// Files allowed to change an action's status: the resolve path, and the store adapter
/// that implements the compare-and-set (plus its own contract tests).
fn may_write_action_status(rel: &str) -> bool {
    rel == "steward-core/src/approvals/resolve.rs" || rel.starts_with("steward-store/")
}

fn status_writers() -> Vec<String> {
    let root = crates_dir();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut bad = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("steward/tests/architecture.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
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
