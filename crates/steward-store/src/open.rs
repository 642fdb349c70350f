//! `steward_store::open`: the one way a composition root gets a store. Owns where the data
//! lives (`StoreLocation`) and what a store is built with (`StoreConfig`: the location and the
//! clock); does not own any adapter's opening rules (the SQLite adapter's are in `sqlite/`).
//!
//! A new backend (PostgreSQL) adds a `StoreLocation` variant and one arm here; nothing that
//! opens a store changes.

use crate::sqlite::SqliteStore;
use crate::{Store, StoreError};
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use steward_protocol::{Clock, SystemClock};

/// Where the data lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// A SQLite database file (created with its parent directories if missing).
    SqliteFile(PathBuf),
    /// A private SQLite database in memory, gone with the store (tests, dry runs).
    SqliteMemory,
}

/// What a store is built from.
#[derive(Clone)]
pub struct StoreConfig {
    pub location: StoreLocation,
    /// Where the times the store stamps itself (appends, kv writes) come from; the composition
    /// root passes the same clock to everything it builds.
    pub clock: Arc<dyn Clock>,
}

impl fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreConfig")
            .field("location", &self.location)
            .field("clock", &self.clock)
            .finish()
    }
}

impl StoreConfig {
    /// A SQLite file, on the system clock.
    pub fn sqlite_file(path: impl Into<PathBuf>) -> StoreConfig {
        StoreConfig {
            location: StoreLocation::SqliteFile(path.into()),
            clock: SystemClock::shared(),
        }
    }

    /// A private in-memory database, on the system clock.
    pub fn in_memory() -> StoreConfig {
        StoreConfig {
            location: StoreLocation::SqliteMemory,
            clock: SystemClock::shared(),
        }
    }

    /// The same location on another clock (a test's `ManualClock`).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> StoreConfig {
        self.clock = clock;
        self
    }
}

/// Opens the store `config` names, applying pending migrations; an error names the location
/// and what went wrong (see `StoreError::Open`, `Migration`, `SchemaTooNew`).
pub fn open(config: &StoreConfig) -> Result<Arc<dyn Store>, StoreError> {
    let clock = Arc::clone(&config.clock);
    Ok(match &config.location {
        StoreLocation::SqliteFile(path) => Arc::new(SqliteStore::open_file(path, clock)?),
        StoreLocation::SqliteMemory => Arc::new(SqliteStore::open_memory(clock)?),
    })
}
