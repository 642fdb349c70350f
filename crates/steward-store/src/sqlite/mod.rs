//! The SQLite adapter: opening and configuring the database file, and running each operation on
//! a blocking thread against one connection. Owns connection handling and the times it stamps
//! (from the injected `Clock`); the mapping of rusqlite errors is `error.rs`; the SQL for each port
//! lives in `conversations.rs`, `kv.rs`, `sessions.rs`, `turn_requests.rs`, `usage.rs`,
//! `edge.rs`, `approvals/` and `memory/`, the schema in `migrations/sqlite/`. Vector search needs no extension: each store keeps an in-process
//! index of the vectors' sign bits (`memory/vectors/`), kept current through a change log.
//!
//! One connection behind a mutex serialises all operations. That is deliberate: a personal
//! assistant's load is a few operations per turn, SQLite allows only one writer anyway, and a
//! single connection keeps the in-memory database and prepared-statement cache simple.

mod approvals;
mod conversations;
mod edge;
mod error;
mod jobs;
mod kv;
mod memory;
mod migrate;
mod own_schema;
mod proactive;
mod sessions;
mod tasks;
mod turn_requests;
mod usage;
mod vault;
pub(crate) use error::decode_err;
pub use own_schema::own_schema_names;

use crate::StoreError;
use rusqlite::{Connection, OpenFlags};
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use steward_protocol::{Clock, SystemClock};

const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
const IN_MEMORY: &str = ":memory:";

/// A `Store` backed by one SQLite database (a file, or memory for tests).
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    /// The in-process vector indexes; only touched while `conn` is locked (inside `run`).
    vectors: Arc<Mutex<memory::vectors::VectorIndexes>>,
    /// The path as given, or `:memory:`; only for `describe` and error messages.
    location: String,
    /// Fixed after `open`: migrations run only there.
    schema_version: i64,
    /// Where the times the store stamps itself come from (appends, kv writes, embeddings).
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore")
            .field("location", &self.location)
            .field("schema_version", &self.schema_version)
            .finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens (creating if needed, with parent directories) the database at `path`, configures it
    /// (WAL, synchronous=NORMAL, 5 s busy timeout, foreign keys) and applies pending migrations.
    /// Stamps times from the system clock. For this adapter's own tests: everything else opens
    /// a store through `steward_store::open`.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        Self::open_file(path, SystemClock::shared())
    }

    /// A private database that lives as long as this value (for this adapter's own tests; the
    /// rest use `steward_store::open(&StoreConfig::in_memory())`).
    pub fn open_in_memory() -> Result<SqliteStore, StoreError> {
        Self::open_memory(SystemClock::shared())
    }

    pub(crate) fn open_file(path: &Path, clock: Arc<dyn Clock>) -> Result<SqliteStore, StoreError> {
        let open_err = |source: Box<dyn std::error::Error + Send + Sync>| StoreError::Open {
            location: path.display().to_string(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| open_err(e.into()))?;
        }
        // SQLite's own message for this case is a vague "unable to open database file".
        if path.is_dir() {
            return Err(open_err("the path is a directory".into()));
        }
        // No SQLITE_OPEN_URI: a path is a path, never a `file:` URI with options.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| open_err(e.into()))?;
        configure(&conn, true).map_err(open_err)?;
        Self::finish(conn, path.display().to_string(), clock)
    }

    pub(crate) fn open_memory(clock: Arc<dyn Clock>) -> Result<SqliteStore, StoreError> {
        let open_err = |source: Box<dyn std::error::Error + Send + Sync>| StoreError::Open {
            location: IN_MEMORY.into(),
            source,
        };
        let conn = Connection::open_in_memory().map_err(|e| open_err(e.into()))?;
        configure(&conn, false).map_err(open_err)?;
        Self::finish(conn, IN_MEMORY.to_owned(), clock)
    }

    fn finish(
        mut conn: Connection,
        location: String,
        clock: Arc<dyn Clock>,
    ) -> Result<SqliteStore, StoreError> {
        let schema_version = migrate::apply(&mut conn, &location)?;
        Ok(SqliteStore {
            conn: Arc::new(Mutex::new(conn)),
            vectors: Arc::default(),
            location,
            schema_version,
            clock,
        })
    }

    /// Unix milliseconds now, by the store's clock.
    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The schema version recorded in the database (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        let conn = self.conn.lock().map_err(|_| StoreError::Poisoned)?;
        Ok(migrate::user_version(&conn)?)
    }

    /// Runs `f` against the connection on a blocking thread: rusqlite is synchronous and must
    /// not stall the async runtime.
    async fn run<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            let mut guard = conn.lock().map_err(|_| StoreError::Poisoned)?;
            f(&mut guard)
        })
        .await?
    }
}

fn configure(
    conn: &Connection,
    file_backed: bool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", true)?;
    if file_backed {
        // SQLite quietly opens write-protected files read-only; fail now rather than on the
        // first write in the middle of a turn.
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err("the database file is read-only".into());
        }
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            // Some filesystems (network mounts) cannot do WAL; still usable, just slower.
            tracing::warn!(journal_mode = %mode, "sqlite could not enable WAL mode");
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    Ok(())
}

#[async_trait::async_trait]
impl crate::Store for SqliteStore {
    async fn ping(&self) -> Result<(), StoreError> {
        self.run(|conn| {
            let one: i64 = conn
                .prepare_cached("SELECT 1")?
                .query_row([], |row| row.get(0))?;
            if one == 1 {
                Ok(())
            } else {
                Err(StoreError::Corrupt(format!("SELECT 1 returned {one}")))
            }
        })
        .await
    }

    fn describe(&self) -> String {
        format!("sqlite {} (schema v{})", self.location, self.schema_version)
    }
}

/// SQLite limits are i64; `usize::MAX` means "no limit" to callers and must not overflow.
fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}
