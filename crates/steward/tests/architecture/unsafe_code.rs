//! `unsafe` only in steward-sandbox, and every crate under the workspace's lints.
//!
//! The compiler already refuses `unsafe` where `unsafe_code = "forbid"` applies; this check
//! also covers the two crates that only deny it (an `#[allow(unsafe_code)]` added to
//! steward-store's code would pass the compiler) and keeps the lint tables themselves from
//! drifting: the workspace's must stay strict, a crate must take it, and the two copies must
//! match it but for `unsafe_code = "deny"`.
//!
//! Owns: the source scan for the `unsafe` keyword (comments and strings ignored) and the
//! `[lints]` check. Does not own the lint levels (Cargo.toml's `[workspace.lints]`).

use crate::source::{Kind, tokens};
use crate::{crates_dir, manifests};
use std::collections::BTreeMap;

/// The crate whose source may use `unsafe` (its own lints deny it outside the items that
/// allow it).
const UNSAFE_HOME: &str = "steward-sandbox/src/";

/// Other files that may, with the number of `unsafe` keywords each holds and why.
const UNSAFE_ELSEWHERE: &[(&str, usize, &str)] = &[(
    "steward-store/tests/sqlite_vector_upgrade.rs",
    2,
    "a test registers the statically linked sqlite-vec through its C entry point",
)];

/// Crates that keep their own copy of the workspace lints, with `unsafe_code = "deny"`.
const OWN_LINT_TABLES: &[&str] = &["steward-sandbox", "steward-store"];

/// Lines of `text` holding the `unsafe` keyword (blocks, functions, impls, fn pointer
/// types, `#[unsafe(…)]` attributes alike).
pub fn unsafe_lines(text: &str) -> Vec<usize> {
    tokens(text)
        .into_iter()
        .filter(|t| t.kind == Kind::Ident && t.text == "unsafe")
        .map(|t| t.line)
        .collect()
}

/// `unsafe` outside its home, as `file:line` lines; and per allowed file, the count found.
fn unsafe_outside_the_sandbox() -> (Vec<String>, BTreeMap<String, usize>) {
    let mut bad = Vec::new();
    let mut counts = BTreeMap::new();
    for (rel, text) in super::source_files() {
        let lines = unsafe_lines(&text);
        counts.insert(rel.clone(), lines.len());
        let allowed = rel.starts_with(UNSAFE_HOME)
            || UNSAFE_ELSEWHERE
                .iter()
                .any(|(f, n, _)| *f == rel && *n == lines.len());
        if !allowed {
            bad.extend(lines.iter().map(|l| format!("{rel}:{l}")));
        }
    }
    (bad, counts)
}

#[test]
fn unsafe_appears_only_in_the_sandbox() {
    let (bad, counts) = unsafe_outside_the_sandbox();
    assert!(
        bad.is_empty(),
        "`unsafe` outside steward-sandbox (put the system call behind a safe function there, or \
         use a safe crate such as rustix):\n{}",
        bad.join("\n")
    );
    // The scan is not blind: the sandbox's system calls are found.
    let in_sandbox: usize = counts
        .iter()
        .filter(|(f, _)| f.starts_with(UNSAFE_HOME))
        .map(|(_, n)| n)
        .sum();
    assert!(in_sandbox >= 10, "{in_sandbox}");
}

#[test]
fn the_unsafe_scan_sees_code_not_words() {
    for code in [
        "fn f() { unsafe { g() } }",
        "unsafe fn f() {}",
        "unsafe impl Send for X {}",
        "type F = unsafe extern \"C\" fn();",
        "#[unsafe(no_mangle)] extern \"C\" fn f() {}",
    ] {
        assert_eq!(unsafe_lines(code), [1], "{code}");
    }
    let words = "// no unsafe here\n/* unsafe */ fn unsafe_kill() {}\nlet s = \"unsafe {\";\n\
                 let r = r#\"unsafe\"#;\n/// `unsafe` in a doc comment\nfn f<'unsafe_ok>() {}";
    assert!(unsafe_lines(words).is_empty());
    assert_eq!(unsafe_lines("let a = 1;\n\n  unsafe { b() }"), [3]);
}

fn workspace_lints() -> toml::Value {
    let text = std::fs::read_to_string(crates_dir().join("../Cargo.toml")).unwrap();
    let root: toml::Value = toml::from_str(&text).unwrap();
    root["workspace"]["lints"].clone()
}

/// What is wrong with the `[lints]` of each manifest.
fn lint_problems(
    manifests: &BTreeMap<String, toml::Value>,
    workspace: &toml::Value,
) -> Vec<String> {
    let mut bad = Vec::new();
    for (rule, level) in [
        ("rust.unsafe_code", "forbid"),
        ("clippy.unwrap_used", "deny"),
        ("clippy.expect_used", "deny"),
        ("clippy.panic", "deny"),
    ] {
        let (tool, lint) = rule.split_once('.').unwrap();
        if workspace
            .get(tool)
            .and_then(|t| t.get(lint))
            .and_then(|v| v.as_str())
            != Some(level)
        {
            bad.push(format!("[workspace.lints] must set {rule} = \"{level}\""));
        }
    }
    let mut own_copy = workspace.clone();
    own_copy["rust"]["unsafe_code"] = toml::Value::String("deny".into());
    for (name, manifest) in manifests {
        let lints = manifest.get("lints");
        if OWN_LINT_TABLES.contains(&name.as_str()) {
            if lints != Some(&own_copy) {
                bad.push(format!(
                    "{name}: its [lints] must be the workspace's with unsafe_code = \"deny\", found {lints:?}"
                ));
            }
        } else if !lints.and_then(|l| l.as_table()).is_some_and(|t| {
            t.len() == 1 && t.get("workspace") == Some(&toml::Value::Boolean(true))
        }) {
            bad.push(format!(
                "{name}: Cargo.toml needs `[lints] workspace = true`, found {lints:?}"
            ));
        }
    }
    bad
}

#[test]
fn every_crate_takes_the_workspace_lints() {
    let workspace = workspace_lints();
    let bad = lint_problems(&manifests(), &workspace);
    assert!(bad.is_empty(), "{}", bad.join("\n"));

    // The check can fail: a crate without the table, a copy that drifts, a weakened workspace.
    let mut m = manifests();
    m.get_mut("steward-tools")
        .unwrap()
        .as_table_mut()
        .unwrap()
        .remove("lints");
    m.get_mut("steward-sandbox").unwrap()["lints"]["clippy"]["panic"] = "allow".into();
    let bad = lint_problems(&m, &workspace);
    assert!(
        bad.iter().any(|b| b.starts_with("steward-tools:")),
        "{bad:?}"
    );
    assert!(
        bad.iter().any(|b| b.starts_with("steward-sandbox:")),
        "{bad:?}"
    );
    let mut weak = workspace.clone();
    weak["rust"]["unsafe_code"] = "deny".into();
    assert!(
        lint_problems(&manifests(), &weak)
            .iter()
            .any(|b| b.contains("forbid"))
    );
}
