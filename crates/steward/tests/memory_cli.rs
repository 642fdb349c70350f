//! `steward memory ...` through the real binary against a fresh data directory: a user's
//! `fact set` makes source=user (and beats an extracted fact), notes round-trip, search finds
//! them, retention is a dry run unless --apply, and commands that cannot run say why and
//! exit 1. Stored text is shown escaped so it cannot drive the terminal.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::path::Path;
use std::process::Output;
use steward_protocol::{FactSource, Provenance};
use steward_store::{MemoryStore, NewFact};
use support::{TempDir, base_command};

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

fn steward(dir: &Path, args: &[&str]) -> Output {
    base_command(dir)
        .env("STEWARD_LOG", "warn")
        .arg("memory")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = steward(dir, args);
    assert!(
        out.status.success(),
        "{args:?} failed\nstdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

fn open_store(dir: &Path) -> std::sync::Arc<dyn steward_store::Store> {
    steward_store::open(&steward_store::StoreConfig::sqlite_file(
        dir.join("steward.db"),
    ))
    .unwrap()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn extracted(key: &str, value: &str, expires_at_ms: Option<i64>) -> NewFact {
    NewFact {
        key: key.into(),
        value: value.into(),
        source: FactSource::Extracted,
        confidence: 0.8,
        expires_at_ms,
        provenance: Provenance::Assistant { conversation: None },
    }
}

#[tokio::test]
async fn fact_set_is_the_users_word() {
    let dir = TempDir::new("mem-facts");
    {
        let store = open_store(dir.path());
        store
            .upsert_fact("owner", &extracted("home.city", "Lyon", None), now_ms())
            .await
            .unwrap();
    }
    let out = ok(dir.path(), &["fact", "set", "home.city", "Paris"]);
    assert_eq!(out.trim(), "set home.city = Paris (source user)");
    let store = open_store(dir.path());
    let fact = store.get_fact("owner", "home.city").await.unwrap().unwrap();
    assert_eq!(fact.value, "Paris");
    assert_eq!(fact.source, FactSource::User);
    // Extraction can no longer change it.
    store
        .upsert_fact("owner", &extracted("home.city", "Nice", None), now_ms())
        .await
        .unwrap();
    drop(store);

    let listed = ok(dir.path(), &["facts"]);
    assert_eq!(
        listed.trim(),
        "home.city = Paris  (source user, confidence 1.00, from user, id 1)"
    );

    assert_eq!(
        ok(dir.path(), &["fact", "delete", "home.city"]).trim(),
        "deleted home.city"
    );
    let again = steward(dir.path(), &["fact", "delete", "home.city"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("no fact is stored under home.city"),
        "{}",
        stderr(&again)
    );

    let bad = steward(dir.path(), &["fact", "set", "Home City", "x"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("invalid fact key: 1 to 64 of a-z, 0-9, _ and ."),
        "{}",
        stderr(&bad)
    );
    let usage = steward(dir.path(), &["fact", "set", "only.key"]);
    assert_eq!(usage.status.code(), Some(2), "clap usage error");
}

#[tokio::test]
async fn stored_text_cannot_drive_the_terminal() {
    let dir = TempDir::new("mem-escape");
    ok(
        dir.path(),
        &["fact", "set", "colour", "red\u{1b}[2J\nfake.key = planted"],
    );
    let listed = ok(dir.path(), &["facts"]);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(!listed.contains('\u{1b}'), "{listed:?}");
    assert!(
        listed.contains("red\\u{1b}[2J\\nfake.key = planted"),
        "{listed}"
    );
}

#[tokio::test]
async fn notes_round_trip_and_search_finds_them() {
    let dir = TempDir::new("mem-notes");
    let out = ok(
        dir.path(),
        &[
            "note",
            "add",
            "--title",
            "Boiler",
            "service due in March",
            "--tag",
            "House",
        ],
    );
    let id: i64 = out
        .trim()
        .strip_prefix("saved note ")
        .unwrap()
        .parse()
        .unwrap();
    ok(
        dir.path(),
        &["note", "add", "--title", "Books", "read Dune next"],
    );

    let house = ok(dir.path(), &["notes", "--tag", "house"]);
    assert!(
        house.starts_with(&format!("{id}  Boiler  [house]\n")),
        "{house}"
    );
    assert!(!house.contains("Books"), "{house}");
    assert!(ok(dir.path(), &["notes"]).contains("Books"));

    let id_s = id.to_string();
    ok(
        dir.path(),
        &["note", "edit", &id_s, "--body", "boiler serviced in March"],
    );
    let found = ok(dir.path(), &["search", "serviced", "--kind", "note"]);
    // No embedding model in this data dir: full text only, so found by its words.
    assert!(
        found.starts_with(&format!("note {id}  matched by words")),
        "{found}"
    );
    assert!(found.contains("from user"), "{found}");
    assert!(
        found.contains("Boiler: boiler serviced in March"),
        "{found}"
    );

    let empty_edit = steward(dir.path(), &["note", "edit", &id_s]);
    assert_eq!(empty_edit.status.code(), Some(1));
    assert_eq!(
        ok(dir.path(), &["note", "delete", &id_s]).trim(),
        format!("deleted note {id}")
    );
    let gone = steward(dir.path(), &["note", "delete", &id_s]);
    assert_eq!(gone.status.code(), Some(1));
    assert!(stderr(&gone).contains(&format!("no note {id}")));
    let bad_kind = steward(dir.path(), &["search", "x", "--kind", "notes"]);
    assert_eq!(bad_kind.status.code(), Some(2));
}

#[tokio::test]
async fn retention_is_a_dry_run_unless_applied() {
    let dir = TempDir::new("mem-retention");
    let now = now_ms();
    {
        let store = open_store(dir.path());
        let old = now - 40 * DAY_MS;
        for (fact, at) in [
            (extracted("episode.monday", "went swimming", None), old),
            (extracted("episode.today", "went running", None), now),
            (extracted("home.city", "Lyon", None), old),
            (
                extracted("trip.flight", "AF123", Some(now - DAY_MS)),
                now - 2 * DAY_MS,
            ),
        ] {
            store.upsert_fact("owner", &fact, at).await.unwrap();
        }
    }
    let args = [
        "retention",
        "--expired",
        "--prefix",
        "episode.",
        "--unseen-days",
        "30",
    ];
    let dry = ok(dir.path(), &args);
    assert!(
        dry.contains("would delete: episode.monday = went swimming"),
        "{dry}"
    );
    assert!(dry.contains("would delete: trip.flight = AF123"), "{dry}");
    assert!(
        !dry.contains("episode.today") && !dry.contains("home.city"),
        "{dry}"
    );
    assert!(dry.contains("2 facts would be deleted (dry run"), "{dry}");
    let keys = |dir: &Path| {
        let dir = dir.to_owned();
        async move {
            let store = open_store(&dir);
            let facts = store.list_facts("owner", 100, 0).await.unwrap();
            facts.into_iter().map(|f| f.key).collect::<Vec<_>>()
        }
    };
    assert_eq!(
        keys(dir.path()).await,
        [
            "episode.monday",
            "episode.today",
            "home.city",
            "trip.flight"
        ],
        "a dry run deletes nothing"
    );

    let mut applied: Vec<&str> = args.to_vec();
    applied.push("--apply");
    let done = ok(dir.path(), &applied);
    assert!(done.contains("deleted: episode.monday"), "{done}");
    assert!(done.contains("2 facts deleted"), "{done}");
    assert_eq!(keys(dir.path()).await, ["episode.today", "home.city"]);

    // One left to sweep: a count of one is singular.
    let one = ok(
        dir.path(),
        &["retention", "--prefix", "home.", "--unseen-days", "30"],
    );
    assert!(one.contains("1 fact would be deleted (dry run"), "{one}");

    let unpaired = steward(dir.path(), &["retention", "--prefix", "episode."]);
    assert_eq!(unpaired.status.code(), Some(1));
    assert!(
        stderr(&unpaired).contains("--unseen-days"),
        "{}",
        stderr(&unpaired)
    );
    let nothing = steward(dir.path(), &["retention"]);
    assert_eq!(nothing.status.code(), Some(1));
    let broad = steward(
        dir.path(),
        &["retention", "--prefix", "%", "--unseen-days", "1"],
    );
    assert_eq!(broad.status.code(), Some(1), "a pattern is not a prefix");
}

#[tokio::test]
async fn commands_that_cannot_run_say_why() {
    let dir = TempDir::new("mem-nomodel");
    let reflect = steward(dir.path(), &["reflect"]);
    assert_eq!(reflect.status.code(), Some(1));
    assert!(
        stderr(&reflect).contains("reflection needs a model"),
        "{}",
        stderr(&reflect)
    );
    let backfill = steward(dir.path(), &["backfill"]);
    assert_eq!(backfill.status.code(), Some(1));
    assert!(
        stderr(&backfill).contains("no embedding model"),
        "{}",
        stderr(&backfill)
    );
}

#[tokio::test]
async fn a_tainted_fact_is_listed_as_unconfirmed_until_the_owner_confirms_it() {
    let dir = TempDir::new("mem-confirm");
    ok(dir.path(), &["facts"]);
    let store = open_store(dir.path());
    let mut fact = extracted("dentist", "Dr Alvarez", None);
    fact.provenance = Provenance::Tainted {
        conversation: Some(steward_protocol::ConversationId::parse("c1").unwrap()),
        sources: vec!["fetch_url".into()],
    };
    let id = store
        .upsert_fact("owner", &fact, now_ms())
        .await
        .unwrap()
        .fact()
        .id;
    drop(store);
    let listed = ok(dir.path(), &["facts"]);
    assert!(
        listed.contains("from tainted:fetch_url (unconfirmed)"),
        "{listed}"
    );
    let done = ok(dir.path(), &["confirm", "fact", &id.to_string()]);
    assert!(done.contains("confirmed fact"), "{done}");
    let listed = ok(dir.path(), &["facts"]);
    assert!(listed.contains("from assistant"), "{listed}");
    // Only unconfirmed rows can be confirmed; other kinds are refused by the parser.
    let again = steward(dir.path(), &["confirm", "fact", &id.to_string()]);
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    let kind = steward(dir.path(), &["confirm", "learning", "1"]);
    assert!(!kind.status.success());
    assert!(
        stderr(&kind).contains("expected fact or note"),
        "{}",
        stderr(&kind)
    );
}

/// `memory search` with the real local model, as in the issue: five notes, a question about
/// none of them lists nothing (it used to list all five with near-equal scores), and a hit
/// says how well it matches in words a person reads.
#[tokio::test]
async fn search_lists_nothing_unrelated_and_says_how_well_a_hit_matches() {
    let dir = TempDir::new("mem-floor");
    let model = steward_memory::embed::test_model_dir();
    let with_model = |args: &[&str]| {
        let out = base_command(dir.path())
            .env("STEWARD_LOG", "warn")
            .env("STEWARD_EMBED_MODEL_DIR", &model)
            .arg("memory")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        out
    };
    for (title, body) in [
        (
            "Dentist",
            "Dentist appointment moved to Thursday 3pm at Dr. Okafor's",
        ),
        ("Boiler", "The boiler is serviced every March by Heatwise"),
        ("Books", "Read Dune next, then the Expanse series"),
        (
            "Car insurance",
            "Car insurance renews on 1 September; compare quotes first",
        ),
        (
            "Mum's birthday",
            "Mum's birthday is on 12 May; she likes orchids",
        ),
    ] {
        with_model(&["note", "add", "--title", title, body]);
    }
    let unrelated = with_model(&["search", "who won the battle of Hastings?"]);
    assert_eq!(
        stdout(&unrelated),
        "",
        "an unrelated question lists nothing"
    );
    assert!(
        stderr(&unrelated).contains("no matches"),
        "{}",
        stderr(&unrelated)
    );

    let found = stdout(&with_model(&["search", "when do I see the tooth doctor?"]));
    let first = found.lines().next().unwrap_or_default();
    assert!(
        first.contains("% similar)") && first.contains(" match ("),
        "a hit says how well it matches: {found}"
    );
    assert!(
        found.lines().nth(1).unwrap_or_default().contains("Dentist"),
        "the dentist note comes first: {found}"
    );
    assert!(!found.contains("score "), "{found}");
}
