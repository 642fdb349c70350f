//! Storage for Steward: the ports (`ConversationStore`, `KvStore`, `ApprovalStore`,
//! `MemoryStore`, `TurnRequestStore`, `SessionStore`, `UsageStore` (the usage ledger),
//! `EdgeStore` (what a messaging surface keeps about its own platform's ids: update dedup,
//! chat bindings, sent messages), `JobStore` (the scheduler's occurrences with leases,
//! heartbeats, proactive messages and reminders), `Store`, and `BlobStore` for the bytes of message parts,
//! with its filesystem adapter `FsBlobStore`) that the rest of the workspace codes against, the
//! one constructor (`open(&StoreConfig)`: a location and a clock, giving an `Arc<dyn Store>`),
//! a backend-neutral `StoreError`, and the SQLite adapter (FTS5 and an in-process sign-bit index
//! over plain vector tables for memory search) with its embedded migrations.
//!
//! Owns: what is persisted and how (schema, migrations, input limits, the contract every adapter
//! must pass). Does not own: what a conversation means (the agent loop does), the approval state
//! machine (steward-core's `Approvals` does), retention policy, or secrets handling beyond never
//! echoing stored values in errors.

mod approvals_port;
mod blobs;
mod codec;
mod edge_port;
mod error;
mod jobs_port;
mod memory_port;
mod open;
mod ports;
mod sessions_port;
mod sqlite;
mod tasks_port;
mod turn_requests_port;
mod usage_port;
mod validate;
pub mod vault;
mod vault_port;

#[cfg(feature = "contract")]
// A test suite (feature `contract`, tests only): its panics are its assertions.
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
pub mod contract;

pub use approvals_port::{
    ActionPatch, ApprovalStore, AuditEntry, AuditRecord, CasGuard, MAX_AUDIT_BATCH,
    MAX_AUDIT_EVENTS, Score, Transition,
};
pub use blobs::{BlobError, BlobStore, FsBlobStore};
pub use edge_port::{
    EdgeKey, EdgeStore, MAX_CARD_MESSAGES, MAX_EDGE_GENRE_LEN, MAX_EDGE_KEY_LEN, SentMessage,
};
pub use error::{BackendError, StoreError};
pub use jobs_port::{
    Claim, GenreEngagement, Heartbeat, JobStore, MAX_JOB_NAME_LEN, MAX_OCCURRENCE_KEY_LEN,
    MAX_OUTCOME_LEN, MAX_REMINDER_SHOWN_LEN, MAX_REMINDER_TEXT_LEN, OccurrenceEnd,
    OccurrenceRecord, OccurrenceStatus, ProactiveDelivery, ProactiveMessage, Reminder,
    ReminderStatus,
};
pub use memory_port::{
    FactWrite, Intention, Learning, MemoryFilter, MemoryItem, MemoryStore, NewFact, NewNote,
    NoteEdit, ReadLater, StoredMessage,
};
pub use open::{StoreConfig, StoreLocation, open};
pub use ports::{ConversationStore, ConversationSummary, HistoryItem, KvStore, Store};
pub use sessions_port::{MAX_USER_AGENT_LEN, Session, SessionStore};
pub use sqlite::{SqliteStore, own_schema_names};
pub use tasks_port::{
    MAX_TASK_PROMPT_LEN, MAX_TASK_SCHEDULE_LEN, MAX_TASK_TITLE_LEN, Task, TaskStatus, TaskStore,
};
pub use turn_requests_port::{TurnRequest, TurnRequestStore};
pub use usage_port::{
    MAX_USAGE_COST_MICRO_USD, MAX_USAGE_TOKENS, USAGE_BUCKET_SECS, UsageBucket, UsagePurpose,
    UsageRecord, UsageStore,
};
pub use validate::memory::{MAX_EMBEDDING_DIMS, MAX_MEMORY_TEXT_LEN, MAX_TITLE_LEN, MAX_URL_LEN};
pub use validate::usage::MAX_MODEL_LEN;
pub use validate::{
    MAX_ID_LEN, MAX_KV_KEY_LEN, MAX_KV_VALUE_LEN, MAX_NAME_LEN, MAX_TEXT_LEN, NUL_REPLACEMENT,
    storable,
};
pub use vault_port::{MAX_SECRET_NAME_LEN, SecretEntry, VaultStore};

/// Tables that tools running model-chosen SQL (steward-tools' `db_query` / `db_execute`) must
/// never read or write. They are what makes an approval mean anything: a model that could write
/// `pending_actions` could confirm its own action, one that could write `action_audit`, `grants`
/// or `scores` could erase the trail, grant itself a tool or fake the feedback, and `kv` holds
/// system state (the owner's sign-in password hash among it). One that could write
/// `web_sessions` could add a session whose secret it knows and sign a browser in. The memory
/// tables are here because source trust lives in the store: a model writing `facts` directly
/// could overwrite (or forge) a fact the user stated; the rest hold the user's notes and the
/// search index that must stay in step with them. The SQL guard checks these names with
/// SQLite's authorizer at prepare time; a test in this crate fails if one of them stops
/// existing in the schema. The per-model vector tables are created at run time and share
/// `PROTECTED_TABLE_PREFIX`. The edge tables are here because a button press or a reaction
/// is resolved through them: a model writing `edge_messages` could point one at a trace of its
/// choosing, and one writing `edge_updates` or `edge_chats` could make a surface drop or
/// replay updates or deliver a conversation into another chat. The scheduler's tables are
/// here because a model writing `reminders` would schedule a message without the approval a
/// `schedule_reminder` call asks for (or redirect one to another conversation) — and one in
/// `scheduled_tasks` would run a prompt of the model's choosing on a schedule without the card that
/// `schedule_task` shows —, one in `vault_secrets` could swap a sealed secret for another's, and one
/// writing `job_occurrences`, `job_heartbeats` or `proactive_messages` could silence a job,
/// fake its health or forge the engagement that decides what may speak.
pub const PROTECTED_TABLES: &[&str] = &[
    "pending_actions",
    "action_audit",
    "grants",
    "scores",
    "kv",
    "facts",
    "notes",
    "read_later",
    "learnings",
    "intentions",
    "memory_docs",
    "memory_fts",
    "embedding_models",
    "embeddings",
    "web_sessions",
    "model_usage",
    "edge_updates",
    "edge_chats",
    "edge_messages",
    "job_occurrences",
    "job_heartbeats",
    "proactive_messages",
    "reminders",
    "scheduled_tasks",
    "vault_secrets",
];

/// Every table whose name starts with this (the per-model vector tables `memory_vecb_*` and
/// `memory_vecf_*`, their change log `memory_vec_changes`, the FTS5 shadow tables
/// `memory_fts_*`) is Steward's own memory index.
pub const PROTECTED_TABLE_PREFIX: &str = "memory_";
