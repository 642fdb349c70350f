//! SQLite-specific behaviour the contract cannot see: persistence across reopen, pragmas,
//! migrations versioning, open failures, corrupt rows and transaction rollback inside SQLite.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::TempDir;
use rusqlite::Connection;
use std::sync::Arc;
use steward_protocol::{ConversationId, Message, ToolCall};
use steward_store::{ConversationStore, KvStore, SqliteStore, Store, StoreError};

fn conv(raw: &str) -> ConversationId {
    ConversationId::parse(raw).unwrap()
}

fn call() -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: "weather".into(),
        arguments: r#"{"city":"Oslo"}"#.into(),
    }
}

#[tokio::test]
async fn data_survives_close_and_reopen() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let id = conv("persist");
    let messages = vec![
        Message::user("hi"),
        Message::assistant("", vec![call()]),
        Message::tool_result(&call(), "sunny"),
    ];
    {
        let store = SqliteStore::open(&path).unwrap();
        store.append_messages(&id, &messages).await.unwrap();
        store.kv_put("settings/model", "small").await.unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.recent_messages(&id, 10).await.unwrap(), messages);
    assert_eq!(
        store.kv_get("settings/model").await.unwrap().as_deref(),
        Some("small")
    );
    let listed = store.list_conversations(10).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].id.as_str(), listed[0].message_count),
        ("persist", 3)
    );
    // Appending after reopen continues the sequence instead of colliding with it.
    store
        .append_messages(&id, &[Message::user("again")])
        .await
        .unwrap();
    assert_eq!(
        store.recent_messages(&id, 1).await.unwrap(),
        [Message::user("again")]
    );
    assert_eq!(store.schema_version().unwrap(), 18);
    assert_eq!(
        store.describe(),
        format!("sqlite {} (schema v18)", path.display())
    );
}

#[tokio::test]
async fn file_database_uses_wal_and_in_memory_describes_itself() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    store.ping().await.unwrap();
    let raw = Connection::open(&path).unwrap();
    let mode: String = raw
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");

    let memory = SqliteStore::open_in_memory().unwrap();
    memory.ping().await.unwrap();
    assert_eq!(memory.describe(), "sqlite :memory: (schema v18)");
    assert_eq!(memory.schema_version().unwrap(), 18);
}

#[tokio::test]
async fn newer_schema_is_refused_and_left_untouched() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    drop(SqliteStore::open(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();

    let err = SqliteStore::open(&path).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::SchemaTooNew {
                found: 99,
                known: 18,
                ..
            }
        ),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("v99") && msg.contains(&path.display().to_string()),
        "{msg}"
    );
    let version: i64 = Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 99, "refusing must not rewrite the version");
}

#[test]
fn a_directory_path_is_refused_naming_the_path() {
    let dir = TempDir::new();
    let err = SqliteStore::open(dir.path()).unwrap_err();
    match &err {
        StoreError::Open { location, .. } => {
            assert_eq!(location, &dir.path().display().to_string())
        }
        other => panic!("expected Open, got {other:?}"),
    }
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );
}

#[test]
fn an_uncreatable_path_is_refused_naming_the_path() {
    let dir = TempDir::new();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    // The parent "directory" is a regular file, so neither it nor the database can be created.
    let path = file.join("steward.db");
    let err = SqliteStore::open(&path).unwrap_err();
    match &err {
        StoreError::Open { location, .. } => assert_eq!(location, &path.display().to_string()),
        other => panic!("expected Open, got {other:?}"),
    }
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    std::fs::write(&path, "this is plain text, not sqlite ".repeat(200)).unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
}

#[tokio::test]
async fn corrupt_stored_rows_are_errors_not_panics() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    let id = conv("corrupt");
    store
        .append_messages(&id, &[Message::assistant("secret-content", vec![call()])])
        .await
        .unwrap();
    let raw = Connection::open(&path).unwrap();
    raw.execute("UPDATE messages SET tool_calls = '[{\"id\": 1' ", [])
        .unwrap();
    let err = store.recent_messages(&id, 10).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    assert!(err.to_string().contains("tool_calls"), "{err}");
    assert!(!err.to_string().contains("secret-content"), "{err}");

    // Valid JSON of the wrong shape is just as corrupt.
    raw.execute("UPDATE messages SET tool_calls = '{\"id\": \"x\"}'", [])
        .unwrap();
    let err = store.recent_messages(&id, 10).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");

    // A BLOB with invalid UTF-8 where text belongs.
    raw.execute(
        "UPDATE messages SET tool_calls = NULL, content = x'ff00fe'",
        [],
    )
    .unwrap();
    let err = store.recent_messages(&id, 10).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");

    // The store still works for other conversations.
    store
        .append_messages(&conv("fine"), &[Message::user("ok")])
        .await
        .unwrap();
    assert_eq!(
        store.recent_messages(&conv("fine"), 1).await.unwrap().len(),
        1
    );
}

/// A tampered attachments column (bad JSON, a path for a blob reference, a media type off the
/// list, a kind that lies about its type) is `Corrupt`, never let through.
#[tokio::test]
async fn corrupt_attachment_rows_are_errors() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    let id = conv("corrupt-parts");
    let photo = steward_protocol::Attachment::new(
        steward_protocol::MimeType::parse("image/png").unwrap(),
        3,
        None,
        steward_protocol::BlobRef::of(b"abc"),
    );
    store
        .append_messages(&id, &[Message::user_with("look", vec![photo.clone()])])
        .await
        .unwrap();
    let raw = Connection::open(&path).unwrap();
    let stored: String = raw
        .query_row("SELECT attachments FROM messages", [], |r| r.get(0))
        .unwrap();
    assert!(stored.contains(photo.blob().as_str()), "{stored}");
    let hostile = [
        "[{\"kind\": ".to_owned(),
        stored.replace(photo.blob().as_str(), "../../etc/passwd"),
        stored.replace("image/png", "text/html"),
        stored.replace("\"image\"", "\"audio\""),
        "{\"not\": \"a list\"}".to_owned(),
    ];
    for bad in hostile {
        raw.execute("UPDATE messages SET attachments = ?1", [&bad])
            .unwrap();
        let err = store.recent_messages(&id, 10).await.unwrap_err();
        assert!(matches!(err, StoreError::Corrupt(_)), "{bad}: {err:?}");
        assert!(err.to_string().contains("attachments"), "{err}");
        assert!(!err.to_string().contains("look"), "{err}");
    }
}

/// An append that fails inside SQLite after some rows were inserted rolls back all of them,
/// including the creation of the conversation.
#[tokio::test]
async fn an_append_failing_midway_inside_sqlite_leaves_nothing() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    let existing = conv("existing");
    store
        .append_messages(&existing, &[Message::user("kept")])
        .await
        .unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TRIGGER boom BEFORE INSERT ON messages WHEN NEW.content = 'boom' \
             BEGIN SELECT RAISE(ABORT, 'forced failure'); END;",
        )
        .unwrap();
    let batch = [
        Message::user("one"),
        Message::user("two"),
        Message::user("boom"),
    ];

    let err = store.append_messages(&existing, &batch).await.unwrap_err();
    // RAISE(ABORT) in a trigger is a constraint to SQLite.
    assert!(matches!(err, StoreError::Constraint(_)), "{err:?}");
    assert_eq!(
        store.recent_messages(&existing, 10).await.unwrap(),
        [Message::user("kept")]
    );

    let fresh = conv("fresh");
    store.append_messages(&fresh, &batch).await.unwrap_err();
    assert!(store.recent_messages(&fresh, 10).await.unwrap().is_empty());
    let listed = store.list_conversations(10).await.unwrap();
    let ids: Vec<&str> = listed.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["existing"]);
    assert_eq!(listed[0].message_count, 1);
}

/// Two stores on one file stand in for two processes: their appends serialise on SQLite's
/// write lock (IMMEDIATE transactions + busy timeout) without errors or duplicate seq.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stores_on_one_file_append_safely() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let stores = [
        Arc::new(SqliteStore::open(&path).unwrap()),
        Arc::new(SqliteStore::open(&path).unwrap()),
    ];
    let id = conv("shared");
    let mut tasks = Vec::new();
    for i in 0..40 {
        let store = Arc::clone(&stores[i % 2]);
        let id = id.clone();
        tasks.push(tokio::spawn(async move {
            let batch = [
                Message::user(format!("{i}.a")),
                Message::user(format!("{i}.b")),
            ];
            store.append_messages(&id, &batch).await
        }));
    }
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    let back = stores[0].recent_messages(&id, usize::MAX).await.unwrap();
    assert_eq!(back.len(), 80);
    for pair in back.chunks(2) {
        let n = pair[0].content.strip_suffix(".a").unwrap();
        assert_eq!(pair[1].content, format!("{n}.b"), "batches interleaved");
    }
}

#[tokio::test]
async fn the_store_stamps_its_own_times_from_the_injected_clock() {
    use steward_protocol::ManualClock;
    use steward_store::StoreConfig;
    let clock = ManualClock::at_ms(1_700_000_000_000);
    let store = steward_store::open(&StoreConfig::in_memory().with_clock(clock.clone())).unwrap();
    let id = conv("clocked");
    store
        .append_messages(&id, &[Message::user("first")])
        .await
        .unwrap();
    clock.advance(std::time::Duration::from_secs(90));
    store
        .append_messages(&id, &[Message::user("second")])
        .await
        .unwrap();
    let summary = store.conversation(&id).await.unwrap().unwrap();
    assert_eq!(summary.created_at_ms, 1_700_000_000_000);
    assert_eq!(summary.updated_at_ms, 1_700_000_090_000);
}

#[tokio::test]
async fn open_names_the_location_and_opens_a_file_that_persists() {
    use steward_store::StoreConfig;
    let dir = TempDir::new();
    let Err(err) = steward_store::open(&StoreConfig::sqlite_file(dir.path())) else {
        panic!("a directory opened as a database");
    };
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );

    let path = dir.path().join("steward.db");
    let store = steward_store::open(&StoreConfig::sqlite_file(&path)).unwrap();
    store.kv_put("k", "v").await.unwrap();
    assert!(store.describe().contains(&path.display().to_string()));
    drop(store);
    let again = steward_store::open(&StoreConfig::sqlite_file(&path)).unwrap();
    assert_eq!(again.kv_get("k").await.unwrap().as_deref(), Some("v"));
}

#[tokio::test]
async fn a_write_held_up_past_the_busy_timeout_is_busy_not_a_generic_failure() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    // The store waits its busy timeout (5 s) for the other writer, then gives up.
    let err = store.kv_put("k", "secret-value").await.unwrap_err();
    assert!(matches!(err, StoreError::Busy(_)), "{err:?}");
    assert!(err.is_transient());
    assert!(!err.to_string().contains("secret-value"), "{err}");
    holder.execute_batch("ROLLBACK").unwrap();
    store.kv_put("k", "v").await.unwrap();
}
