//! `StoreError`: every failure a store port can report, in kinds a caller can act on whatever
//! the backend. Owns the error vocabulary shared by all adapters; does not own retry policy
//! (callers decide; `is_transient` says which failures a later attempt may not meet) nor the
//! mapping from one backend's errors (the SQLite adapter's is `sqlite/error.rs`).
//!
//! Messages never contain stored values or message text: KV values may be secrets. A backend's
//! own message (kept as the boxed source) names tables, columns and constraints, never the
//! bound values.

/// A backend's error, kept for the log and `source()`; callers match on the variant.
pub type BackendError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database could not be opened or configured (path missing, a directory,
    /// unwritable...). `location` is the place as shown to people (a path; never credentials).
    #[error("cannot open database {location}: {source}")]
    Open {
        location: String,
        #[source]
        source: BackendError,
    },
    /// Applying the migration to `version` failed; the database stays at the previous version.
    #[error("migration to schema v{version} failed: {source}")]
    Migration {
        version: i64,
        #[source]
        source: BackendError,
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
    /// Another connection or process held the database past the busy timeout (SQLite busy or
    /// locked; later a PostgreSQL lock or serialization failure). Trying again later can work.
    #[error("the database is busy (another connection holds it): {0}")]
    Busy(#[source] BackendError),
    /// The database refused the write: a unique, check or foreign-key constraint, or a trigger.
    #[error("the database refused the write (a constraint): {0}")]
    Constraint(#[source] BackendError),
    /// Stored data cannot be decoded (bad JSON, unknown role, invalid id...) or the database
    /// itself is damaged.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// Reading or writing the storage failed: an I/O error, a full disk, a file that became
    /// read-only or could not be opened.
    #[error("database storage failed (disk or file): {0}")]
    Io(#[source] BackendError),
    /// The caller passed something the store refuses (oversized key, empty prefix, NUL...).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A previous operation panicked while holding the connection.
    #[error("store connection is unusable: a previous operation panicked while holding it")]
    Poisoned,
    /// The blocking task running the operation failed (panicked or was cancelled).
    #[error("store task failed: {0}")]
    Join(#[from] tokio::task::JoinError),
    /// Any other failure of the backend (a misuse of its API is a bug: see the log).
    #[error("database error: {0}")]
    Other(#[source] BackendError),
}

impl StoreError {
    /// Whether the same operation could succeed if tried again later, unchanged: a busy
    /// database, a storage hiccup (a disk that was full), a task that did not finish, or a
    /// failure nobody classified. Refused input, constraints, corruption, a too-new schema and
    /// a poisoned connection stay as they are.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            StoreError::Busy(_) | StoreError::Io(_) | StoreError::Join(_) | StoreError::Other(_)
        )
    }
}
