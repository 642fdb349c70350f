//! Storage for Steward: the ports (`ConversationStore`, `KvStore`, `Store`) that the rest of the
//! workspace codes against, and the SQLite adapter with its embedded migrations.
//!
//! Owns: what is persisted and how (schema, migrations, input limits, the contract every adapter
//! must pass). Does not own: what a conversation means (the agent loop does), retention policy,
//! or secrets handling beyond never echoing stored values in errors.

mod error;
mod ports;
mod sqlite;
mod validate;

#[cfg(feature = "contract")]
pub mod contract;

pub use error::StoreError;
pub use ports::{ConversationStore, ConversationSummary, KvStore, Store};
pub use sqlite::SqliteStore;
pub use validate::{MAX_KV_KEY_LEN, MAX_KV_VALUE_LEN};
