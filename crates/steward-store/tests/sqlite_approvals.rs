//! SQLite-specific behaviour of the approval tables that the contract cannot see: the
//! append-only triggers against a raw connection, the v1 → latest upgrade of an existing database,
//! the protected table names, corrupt rows, and compare-and-set across two connections.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::TempDir;
use rusqlite::Connection;
use std::path::Path;
use std::sync::Arc;
use steward_protocol::{
    ActionKind, ActionStatus, ConversationId, Message, PendingAction, PrincipalId, Surface,
};
use steward_store::{
    ActionPatch, ApprovalStore, AuditEntry, CasGuard, ConversationStore, KvStore, PROTECTED_TABLES,
    SqliteStore, StoreError, Transition,
};

fn action(id: &str) -> PendingAction {
    PendingAction {
        id: id.into(),
        kind: ActionKind::Tool,
        tool: "send_email".into(),
        arguments: r#"{"to":"ann@example.com"}"#.into(),
        payload_hash: "ab".repeat(32),
        preview: "Send an email to ann".into(),
        trace_id: "trace-1".into(),
        conversation: ConversationId::parse("c1").unwrap(),
        surface: Surface::Cli,
        principal: PrincipalId::parse("owner").unwrap(),
        created_at_ms: 1_000,
        expires_at_ms: 2_000,
        status: ActionStatus::Pending,
        revision: 0,
        awaiting_edit: false,
        outcome: None,
        updated_at_ms: 1_000,
    }
}

fn audit(id: &str, event: &str) -> AuditEntry {
    AuditEntry {
        action_id: id.into(),
        at_ms: 1_000,
        principal: PrincipalId::parse("owner").unwrap(),
        surface: Surface::Cli,
        event: event.into(),
        detail: String::new(),
        trace_id: "trace-1".into(),
    }
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn audit_rows_cannot_be_updated_or_deleted_even_with_raw_sql() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    store
        .insert_action(&action("a1"), &audit("a1", "created"))
        .await
        .unwrap();
    let before = store.list_audit("a1").await.unwrap();

    let raw = Connection::open(&path).unwrap();
    for sql in [
        "UPDATE action_audit SET event = 'confirm'",
        "UPDATE action_audit SET detail = '{}' WHERE action_id = 'a1'",
        "DELETE FROM action_audit WHERE action_id = 'a1'",
        "DELETE FROM action_audit",
        "INSERT OR REPLACE INTO action_audit (id, action_id, at_ms, principal, surface, event, \
         detail, trace_id) SELECT id, action_id, at_ms, principal, surface, 'forged', detail, \
         trace_id FROM action_audit",
    ] {
        let err = raw.execute(sql, []).unwrap_err();
        assert!(
            err.to_string().contains("action_audit is append-only"),
            "{sql}: {err}"
        );
    }
    assert_eq!(store.list_audit("a1").await.unwrap(), before);
    // Appending is still allowed: that is the whole point of the table.
    store.append_audit(&audit("a1", "refused")).await.unwrap();
    assert_eq!(store.list_audit("a1").await.unwrap().len(), 2);
}

/// Only `transition_action` may change a status: the schema must not carry a trigger (or
/// anything else) that writes `pending_actions` behind its back.
#[test]
fn nothing_in_the_schema_writes_pending_actions() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    drop(SqliteStore::open(&path).unwrap());
    let raw = Connection::open(&path).unwrap();
    let mut stmt = raw
        .prepare("SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'trigger'")
        .unwrap();
    let triggers: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(triggers.len(), 3, "{triggers:?}");
    for (name, sql) in &triggers {
        assert!(name.starts_with("action_audit_"), "{name}");
        assert!(!sql.to_lowercase().contains("pending_actions"), "{name}");
    }
    let views = count(
        &raw,
        "SELECT count(*) FROM sqlite_master WHERE type = 'view'",
    );
    assert_eq!(views, 0);
}

#[test]
fn every_protected_table_exists() {
    let store_dir = TempDir::new();
    let path = store_dir.path().join("steward.db");
    drop(SqliteStore::open(&path).unwrap());
    let raw = Connection::open(&path).unwrap();
    for table in PROTECTED_TABLES {
        let found: i64 = raw
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            found, 1,
            "protected table {table} is missing from the schema"
        );
    }
}

/// A database created by the v1 binary, with data in it, is upgraded in place on open.
#[tokio::test]
async fn a_v1_database_migrates_to_the_latest_schema_keeping_its_data() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    write_v1_database(&path);

    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 18);
    let raw = Connection::open(&path).unwrap();
    assert_eq!(count(&raw, "PRAGMA user_version"), 18);
    let old = ConversationId::parse("old").unwrap();
    assert_eq!(
        store.recent_messages(&old, 10).await.unwrap(),
        [
            Message::user("from v1"),
            Message::assistant("still here", vec![])
        ]
    );
    assert_eq!(
        store.kv_get("settings/model").await.unwrap().as_deref(),
        Some("small")
    );
    // Appending continues the v1 sequence, and the new tables work.
    store
        .append_messages(&old, &[Message::user("after upgrade")])
        .await
        .unwrap();
    assert_eq!(store.recent_messages(&old, 10).await.unwrap().len(), 3);
    store
        .insert_action(&action("a1"), &audit("a1", "created"))
        .await
        .unwrap();
    assert_eq!(store.get_action("a1").await.unwrap(), Some(action("a1")));
    drop(store);
    // Reopening an upgraded database applies nothing further.
    assert_eq!(
        SqliteStore::open(&path).unwrap().schema_version().unwrap(),
        18
    );
}

/// A database of the previous release (v5) opens, keeps its actions, and takes `running`.
#[tokio::test]
async fn a_v5_database_opens_keeps_its_actions_and_records_running() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    {
        let conn = Connection::open(&path).unwrap();
        for sql in [
            include_str!("../migrations/sqlite/V1__init.sql"),
            include_str!("../migrations/sqlite/V2__approvals.sql"),
            include_str!("../migrations/sqlite/V3__memory.sql"),
            include_str!("../migrations/sqlite/V4__vector_bits.sql"),
            include_str!("../migrations/sqlite/V5__vector_index.sql"),
        ] {
            conn.execute_batch(sql).unwrap();
        }
        conn.execute_batch(
            "INSERT INTO pending_actions VALUES ('left', 'tool', 'send_email', '{}', 'h', 'p', \
             't', 'c1', 'http', 'owner', 1, 2, 'confirmed', 0, 0, NULL, 3);
             PRAGMA user_version = 5;",
        )
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 18);
    let left = store.get_action("left").await.unwrap().unwrap();
    assert_eq!(left.status, ActionStatus::Confirmed);
    assert_eq!(left.tool, "send_email");
    let guard = CasGuard {
        from: ActionStatus::Confirmed,
        expected_hash: Some("h"),
        unexpired_at_ms: None,
    };
    let t = store
        .transition_action(
            "left",
            guard,
            ActionStatus::Running,
            &ActionPatch::default(),
            &audit("left", "running"),
            10,
        )
        .await
        .unwrap();
    assert!(
        matches!(t, Transition::Applied(ref a) if a.status == ActionStatus::Running),
        "{t:?}"
    );
}

fn write_v1_database(path: &Path) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(include_str!("../migrations/sqlite/V1__init.sql"))
        .unwrap();
    conn.execute_batch(
        "INSERT INTO conversations (id, created_at, updated_at) VALUES ('old', 5, 6);
         INSERT INTO messages (conversation_id, seq, role, content, created_at)
             VALUES ('old', 0, 'user', 'from v1', 5), ('old', 1, 'assistant', 'still here', 6);
         INSERT INTO kv (key, value, updated_at) VALUES ('settings/model', 'small', 5);
         PRAGMA user_version = 1;",
    )
    .unwrap();
}

#[tokio::test]
async fn corrupt_action_rows_are_errors_and_bad_statuses_are_refused() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    let mut secret = action("a1");
    secret.arguments = r#"{"token":"sk-live-secret"}"#.into();
    store
        .insert_action(&secret, &audit("a1", "created"))
        .await
        .unwrap();
    let raw = Connection::open(&path).unwrap();
    let err = raw
        .execute("UPDATE pending_actions SET status = 'approved'", [])
        .unwrap_err();
    assert!(err.to_string().contains("CHECK"), "{err}");

    raw.execute("UPDATE pending_actions SET surface = 'martian'", [])
        .unwrap();
    let err = store.get_action("a1").await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    assert!(err.to_string().contains("surface"), "{err}");
    assert!(!err.to_string().contains("sk-live"), "{err}");
    let err = store.list_actions(None, None, 10).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
}

/// Two stores on one file stand in for two processes: their compare-and-sets serialise on
/// SQLite's write lock, and exactly one confirm wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_and_set_holds_across_two_connections() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let stores = [
        Arc::new(SqliteStore::open(&path).unwrap()),
        Arc::new(SqliteStore::open(&path).unwrap()),
    ];
    stores[0]
        .insert_action(&action("a1"), &audit("a1", "created"))
        .await
        .unwrap();
    let tasks: Vec<_> = (0..40)
        .map(|i| {
            let store = Arc::clone(&stores[i % 2]);
            tokio::spawn(async move {
                let guard = CasGuard {
                    from: ActionStatus::Pending,
                    expected_hash: None,
                    unexpired_at_ms: Some(1_500),
                };
                let patch = ActionPatch::default();
                store
                    .transition_action(
                        "a1",
                        guard,
                        ActionStatus::Confirmed,
                        &patch,
                        &audit("a1", "confirm"),
                        1_500,
                    )
                    .await
            })
        })
        .collect();
    let mut applied = 0;
    for task in tasks {
        match task.await.unwrap().unwrap() {
            Transition::Applied(_) => applied += 1,
            Transition::Conflict(row) => assert_eq!(row.status, ActionStatus::Confirmed),
            Transition::NotFound => panic!("NotFound"),
        }
    }
    assert_eq!(applied, 1);
    assert_eq!(stores[1].list_audit("a1").await.unwrap().len(), 2);
}

/// A v13 database's scores (no genre yet) read back after the v14 upgrade with no genre,
/// and a new score keeps the genre it was given.
#[tokio::test]
async fn a_v13_database_keeps_its_scores_and_gains_their_genre() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    drop(SqliteStore::open(&path).unwrap());
    let raw = Connection::open(&path).unwrap();
    raw.execute_batch(
        "DROP TABLE job_occurrences; DROP TABLE job_heartbeats;
         DROP TABLE proactive_messages; DROP TABLE reminders; DROP TABLE scheduled_tasks; DROP TABLE vault_secrets;
         ALTER TABLE scores DROP COLUMN genre;
         INSERT INTO scores (trace_id, name, value, action_id, at_ms)
             VALUES ('trace-old', 'user_feedback', 1.0, NULL, 5);
         PRAGMA user_version = 13;",
    )
    .unwrap();
    drop(raw);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 18);
    let old = store.scores_for_trace("trace-old").await.unwrap();
    assert_eq!(old.len(), 1);
    assert_eq!((old[0].value, old[0].genre.as_deref()), (1.0, None));
    let mut new = old[0].clone();
    new.genre = Some("reminder".into());
    store.record_score(&new).await.unwrap();
    let both = store.scores_for_trace("trace-old").await.unwrap();
    assert_eq!(both[1].genre.as_deref(), Some("reminder"));
}
