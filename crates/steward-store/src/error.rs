//! `StoreError`: every failure a store port can report. Owns the error vocabulary shared by all
//! adapters; does not own retry policy (callers decide what to do with a failure).
//!
//! Messages never contain stored values or message text: KV values may be secrets.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database could not be opened or configured (path missing, a directory, unwritable...).
    #[error("cannot open database {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Applying the migration to `version` failed; the database stays at the previous version.
    #[error("migration to schema v{version} failed: {source}")]
    Migration {
        version: i64,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The database was written by a newer Steward. Running against it could corrupt data.
    #[error(
        "database {location} has schema v{found} but this binary knows only up to v{known}; \
         upgrade Steward (refusing to run against a newer schema)"
    )]
    SchemaTooNew {
        location: String,
        found: i64,
        known: i64,
    },
    #[error("sqlite error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Stored data cannot be decoded (bad JSON, unknown role, invalid id...).
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The caller passed something the store refuses (oversized key, empty prefix, NUL...).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A previous operation panicked while holding the connection.
    #[error("store connection is unusable: a previous operation panicked while holding it")]
    Poisoned,
    /// The blocking task running the operation failed (panicked or was cancelled).
    #[error("store task failed: {0}")]
    Join(#[from] tokio::task::JoinError),
}
