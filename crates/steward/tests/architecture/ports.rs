//! The ports' rules, enforced over the sources: every production read of the wall-clock time
//! goes through `steward_protocol::Clock`; only steward-store names its SQLite adapter (every
//! other crate opens a store with `steward_store::open`); and the crash failpoints exist only in
//! test builds (steward-core's feature `failpoints`, off by default, turned on by no normal
//! dependency, and the gate around `failpoint` in place).

use super::{crates_dir, manifests, ships, source_files, without_test_items};

/// How a production file reads the wall clock without the port.
const CLOCK_READS: &[&str] = &["SystemTime::now", "Utc::now", "Local::now"];

/// The port itself.
const CLOCK_HOME: &str = "steward-protocol/src/clock.rs";

/// Production files that may read the system time directly, and why.
const CLOCK_READ_ALLOWED: &[(&str, &str)] = &[(
    // An HTTP-date `Retry-After` becomes a wait at once; nothing stores or schedules it, and
    // `parse_retry_after` is tested with fixed instants.
    "steward-llm/src/retry.rs",
    "parse_retry_after(text(\"retry-after\")?, SystemTime::now())",
)];

fn clock_reads_in(rel: &str, text: &str) -> Vec<String> {
    if rel == CLOCK_HOME || !ships(rel) {
        return Vec::new();
    }
    let code = without_test_items(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut bad = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(read) = CLOCK_READS.iter().find(|r| line.contains(*r)) else {
            continue;
        };
        let allowed = CLOCK_READ_ALLOWED
            .iter()
            .any(|(file, l)| *file == rel && line.contains(l));
        // A read used only for its sub-second nanoseconds is a uniqueness nonce (the
        // sandbox's work directory name), not a time.
        let nonce = lines[n..lines.len().min(n + 4)]
            .iter()
            .any(|l| l.contains("subsec_nanos"));
        if !allowed && !nonce {
            bad.push(format!("{rel}: `{read}` ({})", line.trim()));
        }
    }
    bad
}

#[test]
fn every_production_read_of_the_time_goes_through_the_clock() {
    let bad: Vec<String> = source_files()
        .iter()
        .flat_map(|(rel, text)| clock_reads_in(rel, text))
        .collect();
    assert!(
        bad.is_empty(),
        "read the time from the injected `steward_protocol::Clock` (the composition root passes \
         `SystemClock`), not the system directly:\n{}",
        bad.join("\n")
    );
    // Every allowance still matches: a stale one would hide a new read.
    for (file, line) in CLOCK_READ_ALLOWED {
        let text = std::fs::read_to_string(crates_dir().join(file)).unwrap();
        assert!(text.contains(line), "{file}: `{line}`");
    }
    let home = std::fs::read_to_string(crates_dir().join(CLOCK_HOME)).unwrap();
    assert!(home.contains("pub trait Clock") && home.contains("SystemTime::now"));
}

#[test]
fn the_clock_check_catches_a_direct_read_and_spares_tests() {
    let direct = "fn now_ms() -> i64 {\n    std::time::SystemTime::now()\n        .duration_since(UNIX_EPOCH)\n}";
    assert!(!clock_reads_in("steward-core/src/approvals/record.rs", direct).is_empty());
    assert!(
        !clock_reads_in(
            "steward-tools/src/builtins/time.rs",
            "current_time_at(Utc::now(), tz)"
        )
        .is_empty()
    );
    // After a test module, production code is still checked.
    let after = format!("#[cfg(test)]\nmod tests {{\n    fn f() {{ {{ }} }}\n}}\n{direct}");
    assert!(!clock_reads_in("steward-core/src/x.rs", &after).is_empty());
    // Test code, test files, the test kit and the port itself may read it.
    let in_tests = format!("fn a() {{}}\n#[cfg(test)]\nmod tests {{\n{direct}\n}}\n");
    assert!(clock_reads_in("steward-core/src/x.rs", &in_tests).is_empty());
    assert!(clock_reads_in("steward-core/tests/approvals.rs", direct).is_empty());
    assert!(clock_reads_in("steward-core/src/taint/tests.rs", direct).is_empty());
    assert!(clock_reads_in("steward-testkit/src/wire.rs", direct).is_empty());
    assert!(clock_reads_in(CLOCK_HOME, direct).is_empty());
    // The sandbox's directory nonce is not a clock read.
    let nonce = "let nanos = std::time::SystemTime::now()\n    .duration_since(std::time::UNIX_EPOCH)\n    .map_or(0, |d| d.subsec_nanos());";
    assert!(clock_reads_in("steward-sandbox/src/run.rs", nonce).is_empty());
}

/// Files that name the SQLite adapter type: only steward-store's own.
fn adapter_users(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(rel, text)| {
            !rel.starts_with("steward-store/")
                && rel != "steward/tests/architecture/ports.rs"
                && text.contains("SqliteStore")
        })
        .map(|(rel, _)| rel.clone())
        .collect()
}

#[test]
fn a_store_is_opened_only_through_steward_store_open() {
    let bad = adapter_users(&source_files());
    assert!(
        bad.is_empty(),
        "open the store with `steward_store::open(&StoreConfig)` (the app: `app::open_store`), \
         never the SQLite adapter, so another backend plugs in at one place; found in {bad:?}"
    );
    let caught = adapter_users(&[(
        "steward/src/app.rs".into(),
        "let store = Arc::new(SqliteStore::open(&path)?);".into(),
    )]);
    assert_eq!(caught, ["steward/src/app.rs"]);
    let lib = std::fs::read_to_string(crates_dir().join("steward-store/src/open.rs")).unwrap();
    assert!(lib.contains("pub fn open(config: &StoreConfig)"));
}

/// What is wrong with the failpoint gate in `run.rs`'s text: each `fn failpoint` must sit
/// under a `cfg` of the feature, the one that reads the environment under
/// `cfg(feature = "failpoints")`, the other one empty.
fn failpoint_gate_problems(text: &str) -> Vec<String> {
    const ON: &str = "#[cfg(feature = \"failpoints\")]";
    const OFF: &str = "#[cfg(not(feature = \"failpoints\"))]";
    let mut bad = Vec::new();
    let mut found = (false, false);
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        if !line.contains("fn failpoint(") {
            continue;
        }
        // The attributes right above the function (doc comments and attributes only).
        let attrs: Vec<&str> = lines[..n]
            .iter()
            .rev()
            .take_while(|l| {
                let t = l.trim_start();
                t.starts_with("#[") || t.starts_with("///")
            })
            .map(|l| l.trim())
            .collect();
        let body: String = lines[n..lines.len().min(n + 6)].join("\n");
        if attrs.contains(&ON) {
            found.0 = true;
            if !body.contains("FAILPOINT_ENV") {
                bad.push("the gated failpoint no longer reads FAILPOINT_ENV".into());
            }
        } else if attrs.contains(&OFF) {
            found.1 = true;
            if !line.trim_end().ends_with("{}") {
                bad.push("the failpoint without the feature must be empty".into());
            }
        } else {
            bad.push(format!(
                "`fn failpoint` without a cfg of the feature: {}",
                line.trim()
            ));
        }
    }
    if !found.0 || !found.1 {
        bad.push(
            "expected one failpoint per cfg(feature = \"failpoints\") and its negation".into(),
        );
    }
    bad
}

#[test]
fn the_failpoints_exist_only_in_test_builds() {
    let run =
        std::fs::read_to_string(crates_dir().join("steward-core/src/approvals/run.rs")).unwrap();
    let problems = failpoint_gate_problems(&run);
    assert!(problems.is_empty(), "{problems:?}");
    // The check fails on the ungated function it replaced.
    let ungated = "/// Aborts.\npub(crate) fn failpoint(name: &str) {\n    if std::env::var(FAILPOINT_ENV).as_deref() == Ok(name) {\n        std::process::abort();\n    }\n}";
    assert!(!failpoint_gate_problems(ungated).is_empty());

    // The feature exists, is not a default, and no normal dependency turns it on: only
    // `[dev-dependencies]` (test builds) may.
    let manifests = manifests();
    let core = &manifests["steward-core"];
    let features = core["features"]
        .as_table()
        .expect("steward-core has features");
    assert!(features.contains_key("failpoints"));
    let defaults = features.get("default").and_then(|d| d.as_array());
    assert!(
        !defaults.is_some_and(|d| d.iter().any(|f| f.as_str() == Some("failpoints"))),
        "failpoints must stay off by default"
    );
    let mut turned_on_by = Vec::new();
    for (name, manifest) in &manifests {
        for table in ["dependencies", "build-dependencies"] {
            let on = manifest
                .get(table)
                .and_then(|t| t.get("steward-core"))
                .and_then(|d| d.get("features"))
                .and_then(|f| f.as_array())
                .is_some_and(|f| f.iter().any(|x| x.as_str() == Some("failpoints")));
            if on {
                turned_on_by.push(format!("{name} [{table}]"));
            }
        }
        let forwarded = manifest
            .get("features")
            .and_then(|f| f.as_table())
            .is_some_and(|f| {
                f.values()
                    .filter_map(|v| v.as_array())
                    .flatten()
                    .any(|x| x.as_str() == Some("steward-core/failpoints"))
            });
        if forwarded {
            turned_on_by.push(format!("{name} [features]"));
        }
    }
    assert!(
        turned_on_by.is_empty(),
        "failpoints reach a release build through {turned_on_by:?}"
    );
    // And the end-to-end crash tests do get them.
    let steward = &manifests["steward"];
    let dev = steward["dev-dependencies"]["steward-core"]["features"]
        .as_array()
        .expect("steward's dev-dependency on steward-core names its features");
    assert!(dev.iter().any(|f| f.as_str() == Some("failpoints")));
}
