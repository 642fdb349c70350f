//! SQLite schema migrations: embedded SQL files applied at open, one transaction each, with the
//! version tracked in `PRAGMA user_version`. Owns the ordering and the refusal to run against a
//! newer schema; the SQL itself lives in `migrations/sqlite/`.
//!
//! Hand-written instead of using refinery: it is about 40 lines and avoids a dependency (and its
//! build time) for what is a loop over a constant list.

use crate::StoreError;
use rusqlite::{Connection, TransactionBehavior};

/// `(version, sql)`, in order, versions 1, 2, 3... with no gaps.
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../../migrations/sqlite/V1__init.sql")),
    (2, include_str!("../../migrations/sqlite/V2__approvals.sql")),
    (3, include_str!("../../migrations/sqlite/V3__memory.sql")),
    (
        4,
        include_str!("../../migrations/sqlite/V4__vector_bits.sql"),
    ),
    (
        5,
        include_str!("../../migrations/sqlite/V5__vector_index.sql"),
    ),
    (
        6,
        include_str!("../../migrations/sqlite/V6__action_running.sql"),
    ),
    (
        7,
        include_str!("../../migrations/sqlite/V7__turn_requests.sql"),
    ),
    (
        8,
        include_str!("../../migrations/sqlite/V8__conversation_titles.sql"),
    ),
    (
        9,
        include_str!("../../migrations/sqlite/V9__message_attachments.sql"),
    ),
    (
        10,
        include_str!("../../migrations/sqlite/V10__web_sessions.sql"),
    ),
    (
        11,
        include_str!("../../migrations/sqlite/V11__model_usage.sql"),
    ),
    (
        12,
        include_str!("../../migrations/sqlite/V12__read_later_read.sql"),
    ),
    (
        13,
        include_str!("../../migrations/sqlite/V13__edge_records.sql"),
    ),
    (
        14,
        include_str!("../../migrations/sqlite/V14__score_genre.sql"),
    ),
    (15, include_str!("../../migrations/sqlite/V15__jobs.sql")),
    (
        16,
        include_str!("../../migrations/sqlite/V16__chat_binding_history.sql"),
    ),
    (17, include_str!("../../migrations/sqlite/V17__tasks.sql")),
    (18, include_str!("../../migrations/sqlite/V18__vault.sql")),
];

/// Work a migration needs beyond its SQL, in the same transaction: rebuilding tables whose
/// names are data (one per embedder model) cannot be written as a fixed script.
/// (v4's own step, which rebuilt vec0 tables, is superseded: v5 moves every older layout to
/// plain tables, without sqlite-vec.)
fn after_sql(tx: &Connection, version: i64) -> Result<(), StoreError> {
    if version == 5 {
        let moved = super::memory::vectors::upgrade_to_v5(tx)?;
        tracing::info!(moved, "vector tables moved to plain tables (layout 3)");
    }
    Ok(())
}

/// The newest schema this binary understands.
pub(super) const LATEST: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

pub(super) fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Brings the database up to `LATEST` and returns the resulting version.
pub(super) fn apply(conn: &mut Connection, location: &str) -> Result<i64, StoreError> {
    let too_new = |found: i64| StoreError::SchemaTooNew {
        location: location.to_owned(),
        found,
        known: LATEST,
    };
    let mut current = user_version(conn)?;
    if current > LATEST {
        return Err(too_new(current));
    }
    for &(version, sql) in MIGRATIONS {
        if version <= current {
            continue;
        }
        let failed = |e: rusqlite::Error| StoreError::Migration {
            version,
            source: Box::new(e),
        };
        // IMMEDIATE takes the write lock up front, so two processes opening a fresh file at
        // once serialise here instead of both trying to create the tables.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed)?;
        let now = user_version(&tx).map_err(failed)?;
        if now > LATEST {
            return Err(too_new(now));
        }
        if now >= version {
            // Someone else applied it while we waited for the lock; dropping `tx` rolls back
            // our (empty) transaction.
            current = now;
            continue;
        }
        tx.execute_batch(sql).map_err(failed)?;
        after_sql(&tx, version).map_err(|e| StoreError::Migration {
            version,
            source: Box::new(e),
        })?;
        tx.pragma_update(None, "user_version", version)
            .map_err(failed)?;
        tx.commit().map_err(failed)?;
        tracing::info!(version, location, "applied sqlite migration");
        current = version;
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_consecutive_from_one() {
        for (i, (version, sql)) in MIGRATIONS.iter().enumerate() {
            assert_eq!(*version, i as i64 + 1);
            assert!(!sql.trim().is_empty(), "migration {version} is empty");
        }
    }

    #[test]
    fn a_failing_migration_leaves_the_version_untouched() {
        let mut conn = Connection::open_in_memory().unwrap();
        // A table with a clashing name makes V1 fail halfway through its batch.
        conn.execute_batch("CREATE TABLE kv (x INTEGER);").unwrap();
        let err = apply(&mut conn, ":memory:").unwrap_err();
        assert!(
            matches!(err, StoreError::Migration { version: 1, .. }),
            "{err}"
        );
        assert_eq!(user_version(&conn).unwrap(), 0);
        let conversations: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'conversations'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            conversations, 0,
            "the tables created before the failure were rolled back"
        );
    }

    #[test]
    fn a_failing_v2_keeps_v1_and_its_data() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0].1).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        // `scores` is the last table V2 creates, so everything before it must be rolled back.
        conn.execute_batch(
            "INSERT INTO kv (key, value, updated_at) VALUES ('k', 'v', 1);
             CREATE TABLE scores (x INTEGER);",
        )
        .unwrap();
        let err = apply(&mut conn, ":memory:").unwrap_err();
        assert!(
            matches!(err, StoreError::Migration { version: 2, .. }),
            "{err}"
        );
        assert_eq!(user_version(&conn).unwrap(), 1);
        let created: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name IN ('pending_actions', 'action_audit')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(created, 0, "V2's earlier tables were rolled back");
        let value: String = conn
            .query_row("SELECT value FROM kv WHERE key = 'k'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(value, "v");
    }

    #[test]
    fn a_failing_v3_keeps_v2_and_its_data() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0].1).unwrap();
        conn.execute_batch(MIGRATIONS[1].1).unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        // `embeddings` comes after the FTS table, so V3 fails after creating most of its schema.
        conn.execute_batch(
            "INSERT INTO kv (key, value, updated_at) VALUES ('k', 'v', 1);
             CREATE TABLE embeddings (x INTEGER);",
        )
        .unwrap();
        let err = apply(&mut conn, ":memory:").unwrap_err();
        assert!(
            matches!(err, StoreError::Migration { version: 3, .. }),
            "{err}"
        );
        assert_eq!(user_version(&conn).unwrap(), 2);
        let created: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name IN ('facts', 'memory_fts')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(created, 0, "V3's earlier tables were rolled back");
        let value: String = conn
            .query_row("SELECT value FROM kv WHERE key = 'k'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(value, "v");
    }

    #[test]
    fn v6_keeps_every_action_of_a_v5_database_and_accepts_running() {
        let mut conn = Connection::open_in_memory().unwrap();
        for (_, sql) in &MIGRATIONS[..5] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 5).unwrap();
        let insert = "INSERT INTO pending_actions VALUES \
             (?1, 'tool', 'db_execute', '{}', 'h', 'p', 't', 'c1', 'http', 'owner', 1, 2, ?2, 3, 0, \
              ?3, 4)";
        conn.execute(insert, rusqlite::params!["a1", "confirmed", None::<String>])
            .unwrap();
        conn.execute(insert, rusqlite::params!["a2", "executed", "ok"])
            .unwrap();
        // v5 cannot hold the new status: the point of this migration.
        assert!(
            conn.execute(insert, rusqlite::params!["a3", "running", None::<String>])
                .is_err()
        );
        assert_eq!(apply(&mut conn, ":memory:").unwrap(), LATEST);
        let rows: Vec<(String, String, i64, Option<String>)> = conn
            .prepare("SELECT id, status, revision, outcome FROM pending_actions ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            rows,
            [
                ("a1".into(), "confirmed".into(), 3, None),
                ("a2".into(), "executed".into(), 3, Some("ok".into())),
            ]
        );
        conn.execute(insert, rusqlite::params!["a3", "running", None::<String>])
            .unwrap();
        assert!(
            conn.execute(insert, rusqlite::params!["a4", "ran", None::<String>])
                .is_err(),
            "the CHECK still refuses unknown statuses"
        );
        let indexes: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' \
                 AND tbl_name = 'pending_actions' AND name LIKE 'pending_actions_by_%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(indexes, 2);
    }

    #[test]
    fn applying_twice_is_a_no_op() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(apply(&mut conn, ":memory:").unwrap(), LATEST);
        assert_eq!(apply(&mut conn, ":memory:").unwrap(), LATEST);
    }
}
