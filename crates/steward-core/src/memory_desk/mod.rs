//! The port every surface reaches memory through (`MemoryDesk`): facts (list, set as the
//! person's own word, forget), notes (list, get, save, edit, delete), recall, confirming
//! quarantined rows, read-later items (list, mark read, delete), the learnings reflection
//! kept (list, delete) and the follow-ups kept (reminders: list, mark done, delete). The HTTP routes, the terminal's
//! `steward memory`, the MCP server (and later the web app and Telegram) are one path: the
//! same checks, the same refusals in the same words, the same "another principal's row is not
//! found".
//!
//! Owns: the port, its input types and limits, and `MemoryDeskError`, which each surface maps
//! once (HTTP status, CLI message, MCP tool error). Does not own: source trust, the fact
//! quality check or ranking (`steward_memory::Memory`), the value rules (`steward_protocol::values`), or
//! the model's memory tools (steward-tools: they act inside a turn, with its provenance and
//! taint).

mod service;

#[cfg(test)]
mod kept_tests;
#[cfg(test)]
mod tests;

pub use service::MemoryService;

use std::fmt;
use steward_memory::RecallHit;
use steward_protocol::{ConversationId, Fact, MemoryKind, MemoryRef, Note, Principal, Quarantine};
use steward_store::{Intention, Learning, ReadLater};

/// Longest fact value, in bytes.
pub const MAX_FACT_VALUE_BYTES: usize = 4_096;
/// Longest note title, in bytes.
pub const MAX_NOTE_TITLE_BYTES: usize = 512;
/// Longest note body, in bytes (the longest message a surface takes).
pub const MAX_NOTE_BODY_BYTES: usize = 64 * 1024;
/// Longest recall query, in bytes.
pub const MAX_QUERY_BYTES: usize = 1_000;
/// Most rows one listing returns, whatever a surface asks for.
pub const MAX_LISTING: usize = 10_000;
/// Most hits one recall returns (the memory's own `recall_max` may cap lower).
pub const MAX_RECALL_HITS: usize = 100;

/// Who wrote a note, which decides its provenance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteAuthor {
    /// The person typed it themselves (the HTTP API, the terminal): the user's own word.
    Person,
    /// A client's model wrote it for them (an MCP client): the assistant's word, in
    /// `conversation`, so it is never taken for something the person said.
    Client { conversation: ConversationId },
}

/// A new note, as a surface received it: checked by the desk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteDraft {
    pub title: String,
    pub body: String,
    /// As typed: trimmed, lowercased and checked by the tag rule here.
    pub tags: Vec<String>,
    pub author: NoteAuthor,
}

/// A change to a note: `None` leaves that part as it is; at least one part must be given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoteChange {
    pub title: Option<String>,
    pub body: Option<String>,
    /// Replaces the tags (as typed).
    pub tags: Option<Vec<String>>,
}

/// What a recall looks through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallScope {
    /// Only these kinds; empty = all.
    pub kinds: Vec<MemoryKind>,
    /// Only rows with all of these tags (as typed); empty = any.
    pub tags: Vec<String>,
    /// At most this many hits (1..=`MAX_RECALL_HITS`; outside is brought inside).
    pub limit: usize,
    /// The person's own search shows everything (`ShowAll`); a client sees quarantined rows
    /// only from its own conversation.
    pub quarantine: Quarantine,
}

/// The hits of a recall, best first, and the embedding model that scored them (None: full
/// text only), which a surface needs to say how well each matches.
#[derive(Debug, Clone)]
pub struct Recalled {
    pub hits: Vec<RecallHit>,
    pub model: Option<String>,
}

/// A quarantined row to confirm: a fact by key or any fact or note by its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unconfirmed {
    FactKey(String),
    Row(MemoryRef),
}

/// What was not found. Another principal's row is not found either: ids are global, memory
/// is per person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    Fact,
    Note,
    UnconfirmedFact,
    UnconfirmedNote,
    ReadLater,
    Learning,
    Reminder,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Missing::Fact => "no such fact",
            Missing::Note => "no such note",
            Missing::UnconfirmedFact => "no unconfirmed fact there",
            Missing::UnconfirmedNote => "no unconfirmed note there",
            Missing::ReadLater => "no such read-later item",
            Missing::Learning => "no such learning",
            Missing::Reminder => "no such reminder",
        })
    }
}

/// Why a memory operation did not happen. Messages name the field and the rule, never the
/// refused text (it may be a secret typed in the wrong place).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryDeskError {
    /// Input that breaks a rule (a key, a tag, an empty field, nothing to change).
    #[error("{0}")]
    Invalid(String),
    /// A text over its limit.
    #[error("{field} is longer than {max} bytes")]
    TooLong { field: &'static str, max: usize },
    #[error("{0}")]
    NotFound(Missing),
    /// The memory refused what it was given: the fact quality check, a reserved tag, the store's
    /// checks (NUL in a text).
    #[error("{0}")]
    Refused(String),
    /// Storage or the embedder failed; the details are in the log.
    #[error("memory storage failed; see the log")]
    Failed,
}

/// Memory as the surfaces see it. Every operation acts for `who`, the principal the surface
/// authenticated, and sees only that principal's rows.
#[async_trait::async_trait]
pub trait MemoryDesk: Send + Sync + 'static {
    /// Facts in key order, `limit` (at most `MAX_LISTING`) from `offset`.
    async fn facts(
        &self,
        who: &Principal,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Fact>, MemoryDeskError>;
    /// Set a fact as the person's own word (source user, confidence 1): extraction and
    /// reflection never overwrite it.
    async fn set_fact(
        &self,
        who: &Principal,
        key: &str,
        value: &str,
    ) -> Result<Fact, MemoryDeskError>;
    async fn forget_fact(&self, who: &Principal, key: &str) -> Result<(), MemoryDeskError>;
    /// Notes newest first, only those with all of `tags` (as typed).
    async fn notes(
        &self,
        who: &Principal,
        tags: &[String],
        limit: usize,
    ) -> Result<Vec<Note>, MemoryDeskError>;
    async fn note(&self, who: &Principal, id: i64) -> Result<Note, MemoryDeskError>;
    async fn save_note(&self, who: &Principal, draft: NoteDraft) -> Result<Note, MemoryDeskError>;
    async fn edit_note(
        &self,
        who: &Principal,
        id: i64,
        change: NoteChange,
    ) -> Result<Note, MemoryDeskError>;
    async fn delete_note(&self, who: &Principal, id: i64) -> Result<(), MemoryDeskError>;
    /// Hybrid recall (full text plus vectors when there is an embedder).
    async fn recall(
        &self,
        who: &Principal,
        query: &str,
        scope: RecallScope,
    ) -> Result<Recalled, MemoryDeskError>;
    /// Confirm a row written in a turn that had read untrusted content: from then on every
    /// conversation may see it.
    async fn confirm(&self, who: &Principal, row: Unconfirmed) -> Result<(), MemoryDeskError>;
    /// The follow-ups kept (open ones only unless `include_done`): soonest due first, undated
    /// last, then oldest first.
    async fn reminders(
        &self,
        who: &Principal,
        include_done: bool,
    ) -> Result<Vec<Intention>, MemoryDeskError>;
    /// Read-later items newest first, only those with any of `tags` (as typed; empty = all),
    /// the ones marked read too when `include_read`; at most `limit` (and `MAX_LISTING`).
    async fn read_later(
        &self,
        who: &Principal,
        tags: &[String],
        include_read: bool,
        limit: usize,
    ) -> Result<Vec<ReadLater>, MemoryDeskError>;
    /// Mark an item read (done) or, with `read` false, unread again.
    async fn mark_read_later(
        &self,
        who: &Principal,
        id: i64,
        read: bool,
    ) -> Result<ReadLater, MemoryDeskError>;
    async fn delete_read_later(&self, who: &Principal, id: i64) -> Result<(), MemoryDeskError>;
    /// The learnings reflection kept, most recurrent first; at most `limit` (and
    /// `MAX_LISTING`).
    async fn learnings(
        &self,
        who: &Principal,
        limit: usize,
    ) -> Result<Vec<Learning>, MemoryDeskError>;
    /// Forget a learning (reflection may learn it again, from scratch).
    async fn delete_learning(&self, who: &Principal, id: i64) -> Result<(), MemoryDeskError>;
    /// Close a follow-up (`done`) or reopen it.
    async fn mark_reminder(
        &self,
        who: &Principal,
        id: i64,
        done: bool,
    ) -> Result<Intention, MemoryDeskError>;
    async fn delete_reminder(&self, who: &Principal, id: i64) -> Result<(), MemoryDeskError>;
}
