//! SQLite-specific memory behaviour the contract cannot see: the v2 → v3 upgrade of a database
//! with data, the index tables emptied by deletes, the per-model vector tables and their
//! bookkeeping, vectors surviving a reopen, two stores on one file seeing each other's vector
//! writes (each with its own in-process index), and corrupt rows reported as errors.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::TempDir;
use rusqlite::Connection;
use std::path::Path;
use steward_protocol::{ConversationId, FactSource, MemoryKind, MemoryRef, Message, Provenance};
use steward_store::{
    ConversationStore, KvStore, MemoryFilter, MemoryStore, NewFact, NewNote, SqliteStore,
    StoreError,
};

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn fact(key: &str, value: &str) -> NewFact {
    NewFact {
        key: key.into(),
        value: value.into(),
        source: FactSource::User,
        confidence: 1.0,
        expires_at_ms: None,
        provenance: Provenance::User { conversation: None },
    }
}

fn note(title: &str, body: &str) -> NewNote {
    NewNote {
        title: title.into(),
        body: body.into(),
        tags: vec!["t".into()],
        provenance: Provenance::User { conversation: None },
    }
}

fn write_v2_database(path: &Path) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(include_str!("../migrations/sqlite/V1__init.sql"))
        .unwrap();
    conn.execute_batch(include_str!("../migrations/sqlite/V2__approvals.sql"))
        .unwrap();
    conn.execute_batch(
        "INSERT INTO conversations (id, created_at, updated_at) VALUES ('old', 1, 2);
         INSERT INTO messages (conversation_id, seq, role, content, created_at)
           VALUES ('old', 0, 'user', 'from v2', 1), ('old', 1, 'assistant', 'kept', 2);
         INSERT INTO kv (key, value, updated_at) VALUES ('settings/model', 'small', 1);
         INSERT INTO scores (trace_id, name, value, at_ms) VALUES ('t1', 'user_approval', 1, 5);
         PRAGMA user_version = 2;",
    )
    .unwrap();
}

#[tokio::test]
async fn a_v2_database_migrates_to_v3_keeping_its_data() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    write_v2_database(&path);

    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 18);
    let old = ConversationId::parse("old").unwrap();
    assert_eq!(
        store.recent_messages(&old, 10).await.unwrap(),
        [Message::user("from v2"), Message::assistant("kept", vec![])]
    );
    assert_eq!(
        store.kv_get("settings/model").await.unwrap().as_deref(),
        Some("small")
    );
    let raw = Connection::open(&path).unwrap();
    assert_eq!(count(&raw, "SELECT count(*) FROM scores"), 1);
    // The v2 messages are visible to reflection, and the new tables work.
    let since = store.messages_since(0, 10).await.unwrap();
    assert_eq!(since.len(), 2);
    assert_eq!(
        (since[0].at_ms, since[1].message.content.as_str()),
        (1, "kept")
    );
    store.upsert_fact("u", &fact("k", "v"), 10).await.unwrap();
    let hits = store
        .fts_search("u", "v", &MemoryFilter::default(), 5)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    drop(store);
    assert_eq!(
        SqliteStore::open(&path).unwrap().schema_version().unwrap(),
        18
    );
}

#[tokio::test]
async fn deletes_empty_every_index_table() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    let n = store
        .insert_note("u", &note("Oboe", "reeds"), 1)
        .await
        .unwrap();
    let r = MemoryRef {
        kind: MemoryKind::Note,
        id: n.id,
    };
    store
        .put_embedding(r, "m:4", &[1.0, 0.0, 0.0, 0.0])
        .await
        .unwrap();
    store.put_embedding(r, "m:2", &[1.0, 0.0]).await.unwrap();
    store.upsert_fact("u", &fact("k", "oboe"), 1).await.unwrap();
    let raw = Connection::open(&path).unwrap();
    let tables: Vec<String> = raw
        .prepare("SELECT table_name FROM embedding_models ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(tables, ["memory_vecb_4_1", "memory_vecb_2_2"]);
    let snapshot = |raw: &Connection| {
        (
            count(raw, "SELECT count(*) FROM memory_docs"),
            count(
                raw,
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'oboe'",
            ),
            count(raw, "SELECT count(*) FROM embeddings"),
            count(raw, "SELECT count(*) FROM memory_vecb_4_1"),
            count(raw, "SELECT count(*) FROM memory_vecb_2_2"),
        )
    };
    assert_eq!(snapshot(&raw), (2, 2, 2, 1, 1));
    assert!(store.delete_note(n.id).await.unwrap());
    assert_eq!(
        snapshot(&raw),
        (1, 1, 0, 0, 0),
        "note, its words, its vectors"
    );
    assert!(store.delete_fact("u", "k").await.unwrap());
    assert_eq!(snapshot(&raw), (0, 0, 0, 0, 0));
}

#[tokio::test]
async fn vectors_survive_reopen_and_models_keep_their_dimensions() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let id = {
        let store = SqliteStore::open(&path).unwrap();
        let n = store.insert_note("u", &note("a", "b"), 1).await.unwrap();
        let r = MemoryRef {
            kind: MemoryKind::Note,
            id: n.id,
        };
        store.put_embedding(r, "m", &[0.0, 1.0, 0.0]).await.unwrap();
        n.id
    };
    let store = SqliteStore::open(&path).unwrap();
    let hits = store
        .vector_search("u", "m", &[0.0, 1.0, 0.0], &MemoryFilter::default(), 3)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].0.id, id);
    assert!(hits[0].1.abs() < 1e-6, "identical direction: distance 0");
    let err = store
        .vector_search("u", "m", &[0.0, 1.0], &MemoryFilter::default(), 3)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::InvalidInput(m) if m.contains("3")),
        "{err:?}"
    );
}

/// A tampered table name is never spliced into SQL.
#[tokio::test]
async fn a_tampered_vector_table_name_is_corrupt_not_sql() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    let n = store.insert_note("u", &note("a", "b"), 1).await.unwrap();
    let r = MemoryRef {
        kind: MemoryKind::Note,
        id: n.id,
    };
    store.put_embedding(r, "m", &[1.0, 0.0]).await.unwrap();
    let raw = Connection::open(&path).unwrap();
    raw.execute(
        "UPDATE embedding_models SET table_name = 'kv; DROP TABLE kv; --'",
        [],
    )
    .unwrap();
    let err = store
        .vector_search("u", "m", &[1.0, 0.0], &MemoryFilter::default(), 3)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    let err = store.delete_note(n.id).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    assert_eq!(
        count(&raw, "SELECT count(*) FROM sqlite_master WHERE name = 'kv'"),
        1
    );
    assert!(store.get_note(n.id).await.unwrap().is_some(), "rolled back");
}

#[tokio::test]
async fn corrupt_memory_rows_are_errors_that_do_not_echo_values() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    store
        .upsert_fact("u", &fact("api", "sk-live-secret"), 1)
        .await
        .unwrap();
    let n = store.insert_note("u", &note("t", "b"), 1).await.unwrap();
    let raw = Connection::open(&path).unwrap();
    raw.execute_batch(
        "UPDATE facts SET provenance = '{\"origin\": \"sk-live-secret\"}';
         UPDATE notes SET tags = 'not json';",
    )
    .unwrap();
    let err = store.get_fact("u", "api").await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    assert!(!err.to_string().contains("sk-live"), "{err}");
    let err = store.get_note(n.id).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    raw.execute("UPDATE facts SET source = 'model'", [])
        .unwrap_err();
}

async fn nearest(store: &SqliteStore, q: [f32; 3]) -> Vec<MemoryRef> {
    let filter = MemoryFilter::default();
    let hits = store.vector_search("u", "m", &q, &filter, 3).await;
    hits.unwrap().into_iter().map(|(r, _)| r).collect()
}

/// Two stores on one file, as the chat and the server process would have: each keeps its own
/// in-process vector index, and each search sees the other's writes, replacements and deletes.
#[tokio::test]
async fn two_stores_on_one_file_see_each_others_vectors() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let (chat, serve) = (
        SqliteStore::open(&path).unwrap(),
        SqliteStore::open(&path).unwrap(),
    );
    let mut refs = Vec::new();
    for (i, v) in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        .iter()
        .enumerate()
    {
        let n = chat
            .insert_note("u", &note(&format!("n{i}"), "b"), 1)
            .await
            .unwrap();
        let r = MemoryRef {
            kind: MemoryKind::Note,
            id: n.id,
        };
        chat.put_embedding(r, "m", v).await.unwrap();
        refs.push(r);
    }
    // The server's index loads on its first search and sees the chat's rows.
    assert_eq!(nearest(&serve, [0.0, 1.0, 0.1]).await[0], refs[1]);
    // The server moves a vector; the chat (index already loaded) sees it.
    assert_eq!(nearest(&chat, [1.0, 0.1, 0.0]).await[0], refs[0]);
    serve
        .put_embedding(refs[2], "m", &[1.0, 0.05, 0.0])
        .await
        .unwrap();
    assert_eq!(nearest(&chat, [1.0, 0.1, 0.0]).await[0], refs[2]);
    // The chat deletes a note; the server stops returning it.
    assert!(chat.delete_note(refs[2].id).await.unwrap());
    let left = nearest(&serve, [1.0, 0.1, 0.0]).await;
    assert_eq!(left, [refs[0], refs[1]]);
}

/// The store checks fact keys and tags by the one rule of `steward_protocol` on every write,
/// but rows written under the older, looser store rule (keys of any text up to 256 bytes,
/// tags up to 64 bytes of any text, 32 tags) must still load: listing, reading and editing
/// other fields never re-checks what is already stored.
#[tokio::test]
async fn rows_stored_under_the_older_rules_still_load() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    store.upsert_fact("u", &fact("k", "v"), 1).await.unwrap();
    let n = store.insert_note("u", &note("t", "b"), 1).await.unwrap();
    let r = store
        .add_read_later("u", "https://example.com", "", &["t".into()], 1)
        .await
        .unwrap();
    let old_tags: Vec<String> = ["küche", &"t".repeat(48)]
        .into_iter()
        .map(str::to_owned)
        .chain((0..20).map(|i| format!("tag{i}")))
        .collect();
    let json = serde_json::to_string(&old_tags).unwrap();
    let raw = Connection::open(&path).unwrap();
    raw.execute("UPDATE facts SET key = 'Trip/2024 Hotel'", [])
        .unwrap();
    raw.execute("UPDATE notes SET tags = ?1", [&json]).unwrap();
    raw.execute("UPDATE read_later SET tags = ?1", [&json])
        .unwrap();
    raw.execute("UPDATE memory_docs SET tags = ?1", [&json])
        .unwrap();

    let facts = store.list_facts("u", 10, 0).await.unwrap();
    assert_eq!(facts.len(), 1);
    assert_eq!(facts[0].key, "Trip/2024 Hotel");
    let listed = store
        .list_notes("u", &MemoryFilter::default(), 10)
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].tags, old_tags);
    assert_eq!(store.get_note(n.id).await.unwrap().unwrap().tags, old_tags);
    let edit = steward_store::NoteEdit {
        title: Some("renamed".into()),
        ..Default::default()
    };
    let edited = store.update_note(n.id, &edit, 2).await.unwrap().unwrap();
    assert_eq!(edited.title, "renamed");
    assert_eq!(edited.tags, old_tags, "an edit of the title keeps the tags");
    let items = store.list_read_later("u", &[], false, 10).await.unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].id, r.id);
    assert_eq!(items[0].tags, old_tags);
    let hits = store
        .get_items(&[MemoryRef {
            kind: MemoryKind::Note,
            id: n.id,
        }])
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);

    // New writes follow the one rule.
    let err = store
        .upsert_fact("u", &fact("Trip/2024 Hotel", "v"), 3)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidInput(_)), "{err:?}");
    let retag = steward_store::NoteEdit {
        tags: Some(vec!["küche".into()]),
        ..Default::default()
    };
    let err = store.update_note(n.id, &retag, 3).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        StoreError::InvalidInput(
            "invalid tag: 1 to 32 of a-z, 0-9, _ and - (it has a character not allowed)".into()
        )
        .to_string()
    );
}
