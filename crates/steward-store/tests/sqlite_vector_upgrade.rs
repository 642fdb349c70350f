//! The v5 upgrade of vector tables written by sqlite-vec (schema v4's bit + float layout and
//! schema v3's float vec0 table), opened by a store that no longer links the extension. The
//! old databases are written for real: sqlite-vec is registered on the writing connection
//! only, and the store opens the file afterwards without it.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::TempDir;
use rusqlite::{Connection, params};
use std::path::Path;
use steward_protocol::{MemoryKind, MemoryRef, Provenance};
use steward_store::{MemoryFilter, MemoryStore, NewNote, SqliteStore};

const T0: i64 = 1_700_000_000_000;

/// Registers sqlite-vec on this one connection (not process-wide, unlike
/// `sqlite3_auto_extension`), so the store's own connections never see it.
#[allow(unsafe_code)] // the workspace denies it for this crate; the architecture test allows only this
fn with_vec0(conn: &Connection) {
    type Init = unsafe extern "C" fn(
        *mut rusqlite::ffi::sqlite3,
        *mut *mut std::os::raw::c_char,
        *const rusqlite::ffi::sqlite3_api_routines,
    ) -> std::os::raw::c_int;
    // SAFETY: sqlite3_vec_init is the extension's C entry point with this signature (the crate
    // declares it without arguments); statically linked, it ignores the API pointer.
    let rc = unsafe {
        let init: Init = std::mem::transmute(sqlite_vec::sqlite3_vec_init as *const ());
        init(conn.handle(), std::ptr::null_mut(), std::ptr::null())
    };
    assert_eq!(rc, rusqlite::ffi::SQLITE_OK);
}

/// xorshift64*: deterministic vectors without a dependency.
struct Rng(u64);

impl Rng {
    fn vector(&mut self, dims: usize) -> Vec<f32> {
        (0..dims)
            .map(|_| {
                self.0 ^= self.0 >> 12;
                self.0 ^= self.0 << 25;
                self.0 ^= self.0 >> 27;
                let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
                (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect()
    }
}

fn blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn distance(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    1.0 - dot / (norm(a) * norm(b))
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A note with its search-index rows, as the v3/v4 code wrote them; returns its doc id and
/// note id.
fn raw_note(conn: &Connection, user: &str, i: i64) -> (i64, i64) {
    let provenance = serde_json::to_string(&Provenance::User { conversation: None }).unwrap();
    let id: i64 = conn
        .query_row(
            "INSERT INTO notes (user, title, body, tags, created_at_ms, updated_at_ms, provenance) \
             VALUES (?1, ?2, 'body', '[]', ?3, ?3, ?4) RETURNING id",
            params![user, format!("note {i}"), T0 + i, provenance],
            |r| r.get(0),
        )
        .unwrap();
    let doc: i64 = conn
        .query_row(
            "INSERT INTO memory_docs (kind, ref_id, user, created_at_ms, tags) \
             VALUES ('note', ?1, ?2, ?3, '[]') RETURNING id",
            params![id, user, T0 + i],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "INSERT INTO memory_fts (rowid, title, body, tags) VALUES (?1, ?2, 'body', '')",
        params![doc, format!("note {i}")],
    )
    .unwrap();
    (doc, id)
}

fn note_ref(id: i64) -> MemoryRef {
    MemoryRef {
        kind: MemoryKind::Note,
        id,
    }
}

struct Old {
    /// (note id, vector) of user "u" for the layout-2 model "test:8".
    kept: Vec<(i64, Vec<f32>)>,
    /// Note ids with a vector of the layout-1 model "test:4".
    dropped: Vec<i64>,
}

/// Writes a database at `version` (3 or 4) with sqlite-vec tables: for v4 a layout-2 model
/// (bits in vec0, floats in a plain table) and a layout-1 one; for v3 only layout 1.
fn write_old_database(path: &Path, version: i64) -> Old {
    let conn = Connection::open(path).unwrap();
    with_vec0(&conn);
    let migrations = [
        include_str!("../migrations/sqlite/V1__init.sql"),
        include_str!("../migrations/sqlite/V2__approvals.sql"),
        include_str!("../migrations/sqlite/V3__memory.sql"),
        include_str!("../migrations/sqlite/V4__vector_bits.sql"),
    ];
    for sql in &migrations[..version as usize] {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", version).unwrap();
    let mut rng = Rng(77);
    let mut old = Old {
        kept: Vec::new(),
        dropped: Vec::new(),
    };
    conn.execute_batch(
        "INSERT INTO embedding_models (id, model_id, dims, table_name) \
           VALUES (2, 'test:4', 4, 'memory_vec_4_2'); \
         CREATE VIRTUAL TABLE memory_vec_4_2 USING vec0(\
           user text partition key, kind text, created_at integer, \
           embedding float[4] distance_metric=cosine);",
    )
    .unwrap();
    if version == 4 {
        conn.execute_batch(
            "INSERT INTO embedding_models (id, model_id, dims, table_name, layout) \
               VALUES (1, 'test:8', 8, 'memory_vec_8_1', 2); \
             CREATE VIRTUAL TABLE memory_vec_8_1 USING vec0(\
               user text partition key, kind text, created_at integer, embedding bit[8]); \
             CREATE TABLE memory_vecf_8_1 (doc_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL);",
        )
        .unwrap();
    }
    for i in 0..60 {
        let user = if i % 4 == 0 { "v" } else { "u" };
        let (doc, note) = raw_note(&conn, user, i);
        if version == 4 {
            let v = rng.vector(8);
            conn.execute(
                "INSERT INTO memory_vec_8_1 (rowid, user, kind, created_at, embedding) \
                 VALUES (?1, ?2, 'note', ?3, vec_quantize_binary(?4))",
                params![doc, user, T0 + i, blob(&v)],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO memory_vecf_8_1 (doc_id, embedding) VALUES (?1, ?2)",
                params![doc, blob(&v)],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO embeddings (model, doc_id, embedded_ms) VALUES (1, ?1, 0)",
                [doc],
            )
            .unwrap();
            if user == "u" {
                old.kept.push((note, v));
            }
        }
        if i % 3 == 0 {
            conn.execute(
                "INSERT INTO memory_vec_4_2 (rowid, user, kind, created_at, embedding) \
                 VALUES (?1, ?2, 'note', ?3, ?4)",
                params![doc, user, T0 + i, blob(&rng.vector(4))],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO embeddings (model, doc_id, embedded_ms) VALUES (2, ?1, 0)",
                [doc],
            )
            .unwrap();
            old.dropped.push(note);
        }
    }
    // The old tables really are vec0 tables with shadow tables behind them.
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM sqlite_master WHERE name LIKE 'memory\\_vec\\_4\\_2\\_%' ESCAPE '\\'"
        ) >= 3
    );
    old
}

/// Nothing of the vec0 tables is left, and the file is sound, also for a connection that
/// does have sqlite-vec.
fn assert_no_vec0_left(path: &Path) {
    let raw = Connection::open(path).unwrap();
    let names: Vec<String> = raw
        .prepare(
            "SELECT name FROM sqlite_master WHERE sql LIKE '%vec0%' \
               OR name LIKE 'memory\\_vec\\_8\\_1%' ESCAPE '\\' \
               OR name LIKE 'memory\\_vec\\_4\\_2%' ESCAPE '\\'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        names.is_empty(),
        "vec0 tables or their shadow tables remain: {names:?}"
    );
    let check: String = raw
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    with_vec0(&raw);
    let check: String = raw
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[tokio::test]
async fn a_v4_database_keeps_its_vectors_and_loses_vec0() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let old = write_old_database(&path, 4);

    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 18);
    assert_no_vec0_left(&path);
    let raw = Connection::open(&path).unwrap();
    assert_eq!(
        count(
            &raw,
            "SELECT count(*) FROM embedding_models WHERE layout = 3"
        ),
        2
    );
    assert_eq!(count(&raw, "SELECT count(*) FROM memory_vecb_8_1"), 60);

    // Layout 2: every vector kept, ranked exactly as the floats say (45 rows < 200 candidates).
    let query = Rng(5).vector(8);
    let mut want: Vec<(f64, i64)> = old
        .kept
        .iter()
        .map(|(id, v)| (distance(&query, v), *id))
        .collect();
    want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let hits = store
        .vector_search("u", "test:8", &query, &MemoryFilter::default(), 100)
        .await
        .unwrap();
    assert_eq!(
        hits.iter().map(|(r, _)| r.id).collect::<Vec<_>>(),
        want.iter().map(|(_, id)| *id).collect::<Vec<_>>()
    );
    for ((_, got), (expected, _)) in hits.iter().zip(&want) {
        assert!((got - expected).abs() < 1e-6);
    }

    // Layout 1: the vectors are gone and the rows listed for the backfill.
    let missing = store.missing_embeddings("test:4", 1000).await.unwrap();
    assert_eq!(missing.len(), 60, "every note lacks a test:4 vector now");
    let none = store
        .vector_search(
            "u",
            "test:4",
            &[1.0, 0.0, 0.0, 0.0],
            &MemoryFilter::default(),
            5,
        )
        .await
        .unwrap();
    assert!(none.is_empty());
    assert!(!old.dropped.is_empty());
    store
        .put_embedding(note_ref(old.dropped[1]), "test:4", &[1.0, 0.0, 0.0, 0.0])
        .await
        .unwrap();

    // New writes land in the new tables and are found; deleting a note removes its vector.
    let n = store
        .insert_note(
            "u",
            &NewNote {
                title: "new".into(),
                body: String::new(),
                tags: Vec::new(),
                provenance: Provenance::User { conversation: None },
            },
            T0,
        )
        .await
        .unwrap();
    store
        .put_embedding(note_ref(n.id), "test:8", &query)
        .await
        .unwrap();
    let top = store
        .vector_search("u", "test:8", &query, &MemoryFilter::default(), 1)
        .await
        .unwrap();
    assert_eq!(top[0].0, note_ref(n.id));
    assert!(store.delete_note(old.kept[0].0).await.unwrap());
    assert_eq!(count(&raw, "SELECT count(*) FROM memory_vecb_8_1"), 60);
    drop(store);

    // Reopened: nothing left to migrate, same answers.
    let store = SqliteStore::open(&path).unwrap();
    let again = store
        .vector_search("u", "test:8", &query, &MemoryFilter::default(), 100)
        .await
        .unwrap();
    assert_eq!(again.len(), old.kept.len());
    assert_eq!(again[0].0, note_ref(n.id));
    let mine = store
        .vector_search(
            "u",
            "test:4",
            &[1.0, 0.0, 0.0, 0.0],
            &MemoryFilter::default(),
            5,
        )
        .await
        .unwrap();
    assert_eq!(mine.len(), 1);
    // The widened CHECK still refuses unknown layouts.
    assert!(
        raw.execute("UPDATE embedding_models SET layout = 4 WHERE id = 1", [])
            .is_err()
    );
    assert_no_vec0_left(&path);
}

#[tokio::test]
async fn a_v3_database_upgrades_through_v4_without_sqlite_vec() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let old = write_old_database(&path, 3);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 18);
    assert_no_vec0_left(&path);
    let missing = store.missing_embeddings("test:4", 1000).await.unwrap();
    assert_eq!(missing.len(), 60);
    let r = note_ref(old.dropped[0]);
    store
        .put_embedding(r, "test:4", &[0.0, 1.0, 0.0, 0.0])
        .await
        .unwrap();
    let hits = store
        .vector_search(
            "v",
            "test:4",
            &[0.0, 1.0, 0.0, 0.0],
            &MemoryFilter::default(),
            5,
        )
        .await
        .unwrap();
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [r]);
    // Full text is untouched by the vector upgrade.
    let fts = store
        .fts_search("u", "note", &MemoryFilter::default(), 100)
        .await
        .unwrap();
    assert_eq!(fts.len(), 45);
}
