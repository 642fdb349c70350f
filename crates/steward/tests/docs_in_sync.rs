//! Docs that must match the code: the configuration reference is generated from the field
//! table, the README's two set-up commands are the ones CI runs, and the key and tag rules the
//! README states are the ones `steward_protocol` enforces.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

fn repo_file(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn config_reference_matches_the_field_table() {
    assert_eq!(
        repo_file("docs/CONFIG.md"),
        steward::config::config_reference(),
        "docs/CONFIG.md is stale: regenerate it with `steward config docs > docs/CONFIG.md`"
    );
}

#[test]
fn every_environment_variable_in_the_readme_exists() {
    let readme = repo_file("README.md");
    let reference = steward::config::config_reference();
    for word in readme.split(|c: char| !(c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()))
    {
        let is_env_name = word.len() > 4
            && word.contains('_')
            && (word.starts_with("STEWARD_")
                || word.ends_with("_API_KEY")
                || word.ends_with("_BASE_URL"));
        // GROQ_API_KEY is the README's example of a user-named variable.
        if is_env_name && word != "GROQ_API_KEY" {
            assert!(
                reference.contains(word),
                "README mentions {word}, which no setting reads"
            );
        }
    }
}

#[test]
fn ci_runs_the_readme_test_command() {
    let readme = repo_file("README.md");
    let ci = repo_file(".ci/run");
    let test_cmd = "scripts/test";
    assert!(
        readme.contains(test_cmd),
        "README must give the test command"
    );
    assert!(
        ci.lines().any(|l| l.trim() == test_cmd),
        ".ci/run must run the README's test command"
    );
    let script = repo_file("scripts/test");
    assert!(
        script.contains("cargo test --workspace --locked"),
        "scripts/test runs every test"
    );
    assert!(readme.contains("cargo run --release -- serve"));
}

#[test]
fn the_readme_states_the_key_and_tag_rules_in_force() {
    use steward_protocol::{MAX_TAGS, ValueKind};
    let readme = repo_file("README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for stated in [
        format!("Fact keys are {}", ValueKind::FactKey.rule()),
        format!("tags are {}", ValueKind::Tag.rule()),
        format!("at most {MAX_TAGS} on a note"),
    ] {
        assert!(readme.contains(&stated), "README must say: {stated}");
    }
}
