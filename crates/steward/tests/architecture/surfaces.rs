//! Two rules of the surface layer, enforced on the source: only a surface's authentication
//! step makes a `Principal` (so core, tools and memory can only pass on one they were given,
//! and no stored record becomes someone to act for), and the surfaces reach memory through
//! `steward_core::MemoryDesk`, never `steward_memory::Memory` itself (so HTTP, the terminal
//! and MCP apply one set of checks).

use super::{crates_dir, ships, source_files, without_test_items};

/// The authentication steps: the HTTP bearer check (which `/mcp` is behind too, and the web
/// session and the Telegram Mini App's `initData` beside it), the terminal's local user
/// (`chat`, `approvals`, `memory`, `mcp serve` over stdio) and the Telegram bot's allowlisted
/// updates. A new surface adds its own here, on purpose.
const AUTHENTICATION_STEPS: &[&str] = &[
    "steward-server/src/auth.rs",
    "steward/src/local_user.rs",
    "steward-telegram/src/auth.rs",
    // The scheduler: recurring tasks run for the owner who set them, nobody else.
    "steward/src/jobs_wiring.rs",
];

/// The one constructor, however it is called (`Principal::authenticated(id)`, or passed
/// along as `.map(Principal::authenticated)`).
const CONSTRUCTOR: &str = "Principal::authenticated";

/// The code of a source file that ships: its `#[cfg(test)]` items cut out, comments left out.
/// (Test code may make principals; which files ship at all is `ships`.)
fn shipped_code(text: &str) -> String {
    without_test_items(text)
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn principal_makers_in(rel: &str, text: &str) -> Option<String> {
    if !ships(rel) || AUTHENTICATION_STEPS.contains(&rel) {
        return None;
    }
    shipped_code(text)
        .contains(CONSTRUCTOR)
        .then(|| rel.to_owned())
}

/// Where surfaces handle memory for a person: the HTTP server, the MCP server, and the
/// terminal's browsing commands (`memory_cmd.rs` itself keeps `Memory` for the upkeep
/// commands: reflection, retention and backfill, which are no person's edits).
fn is_memory_surface(rel: &str) -> bool {
    rel.starts_with("steward-server/src/")
        || rel.starts_with("steward-mcp/src/server/")
        || rel == "steward/src/memory_cmd/browse.rs"
}

/// Whether `code` names `steward_memory`'s `Memory` type: `steward_memory::Memory` or a
/// `use steward_memory::{…, Memory, …}` list.
fn names_memory(code: &str) -> bool {
    code.match_indices("steward_memory::").any(|(at, prefix)| {
        let rest = &code[at + prefix.len()..];
        let names = match rest.strip_prefix('{') {
            Some(list) => list.split('}').next().unwrap_or(""),
            None => rest,
        };
        names
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .take(if rest.starts_with('{') { usize::MAX } else { 1 })
            .any(|w| w == "Memory")
    })
}

fn memory_bypasses_in(rel: &str, text: &str) -> Option<String> {
    (is_memory_surface(rel) && names_memory(&shipped_code(text))).then(|| rel.to_owned())
}

fn scan(check: fn(&str, &str) -> Option<String>) -> Vec<String> {
    source_files()
        .iter()
        .filter_map(|(rel, text)| check(rel, text))
        .collect()
}

#[test]
fn only_a_surfaces_authentication_step_makes_a_principal() {
    let bad = scan(principal_makers_in);
    assert!(
        bad.is_empty(),
        "`{CONSTRUCTOR}` outside the authentication steps {AUTHENTICATION_STEPS:?}: {bad:?}; \
         take the principal from the Inbound, the ToolContext or the caller instead"
    );
    // Each listed step really makes one (a stale entry would allow a file that no longer does).
    for step in AUTHENTICATION_STEPS {
        let text = std::fs::read_to_string(crates_dir().join(step)).unwrap();
        assert!(shipped_code(&text).contains(CONSTRUCTOR), "{step}");
    }
}

#[test]
fn the_principal_check_catches_a_maker_outside_the_surfaces() {
    let made = "let p = Principal::authenticated(PrincipalId::parse(\"owner\").unwrap());";
    for rel in [
        "steward-core/src/turn/mod.rs",
        "steward-tools/src/memory/facts.rs",
        "steward-memory/src/extract.rs",
        "steward-store/src/sqlite/approvals/audit.rs",
        "steward-mcp/src/server/mod.rs",
    ] {
        assert!(principal_makers_in(rel, made).is_some(), "{rel}");
    }
    let passed_along = "ids.into_iter().map(Principal::authenticated)";
    assert!(principal_makers_in("steward-core/src/feed.rs", passed_along).is_some());
    // Allowed: the authentication steps, tests, and words in comments.
    assert!(principal_makers_in("steward-server/src/auth.rs", made).is_none());
    assert!(principal_makers_in("steward-core/tests/approvals.rs", made).is_none());
    assert!(principal_makers_in("steward-core/src/memory_desk/tests.rs", made).is_none());
    let in_tests = format!("fn f() {{}}\n#[cfg(test)]\nmod tests {{ {made} }}");
    assert!(principal_makers_in("steward-core/src/port.rs", &in_tests).is_none());
    // Only the test item is cut: shipped code after it is still read.
    let after_tests = format!("#[cfg(test)]\nmod tests {{ }}\nfn g() {{ {made} }}");
    assert!(principal_makers_in("steward-core/src/port.rs", &after_tests).is_some());
    let comment = format!("/// Never call {CONSTRUCTOR} here.\nfn f() {{}}");
    assert!(principal_makers_in("steward-core/src/port.rs", &comment).is_none());
}

#[test]
fn surfaces_reach_memory_only_through_the_desk() {
    let bad = scan(memory_bypasses_in);
    assert!(
        bad.is_empty(),
        "a surface names steward_memory::Memory; go through steward_core::MemoryDesk: {bad:?}"
    );
}

#[test]
fn the_desk_check_catches_the_former_direct_calls() {
    // The imports the three surfaces had before the desk.
    for (rel, text) in [
        (
            "steward-server/src/memory/mod.rs",
            "use steward_memory::{Memory, MemoryError};",
        ),
        (
            "steward-server/src/lib.rs",
            "pub memory: Option<Arc<steward_memory::Memory>>,",
        ),
        (
            "steward-mcp/src/server/tools.rs",
            "use steward_memory::Memory;",
        ),
        (
            "steward/src/memory_cmd/browse.rs",
            "use steward_memory::{\n    RecallOptions,\n    Memory,\n};",
        ),
    ] {
        assert!(memory_bypasses_in(rel, text).is_some(), "{rel}: {text}");
    }
    // What the surfaces may still use, and code that is no surface.
    let rendering = "use steward_memory::{RecallHit, Strength};\nuse steward_memory::MemoryError;";
    assert!(memory_bypasses_in("steward-server/src/memory/search.rs", rendering).is_none());
    let core = "use steward_memory::{Memory, MemoryError, RecallOptions};";
    assert!(memory_bypasses_in("steward-core/src/memory_desk/service.rs", core).is_none());
}
