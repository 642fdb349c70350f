//! The `MemoryStore` port: facts with source trust, notes, read-later items, learnings,
//! intentions, their full-text and vector indexes, retention sweeps and the message log read
//! by reflection. Owns the storage semantics (documented here, enforced by `contract`). Does
//! not own recall fusion, the quality gate, extraction or retention policy (steward-memory
//! does), nor how vectors are computed (the embedders do).
//!
//! Limits (every adapter refuses the rest with `InvalidInput`, never echoing the text): users
//! and model ids 1..=128 bytes; fact keys 1..=256 bytes; titles up to 1 KiB; urls 1..=8 KiB;
//! values, bodies and texts up to 256 KiB (learning and intention text not empty); at most 32
//! tags of 1..=64 bytes each (trimmed, duplicates dropped); confidence a finite 0.0..=1.0;
//! embeddings 1..=8192 finite values; no NUL anywhere.
//!
//! Time filters (`since_ms`/`until_ms`, both inclusive) apply to when a row was created (a
//! fact's `first_seen_ms`). Rows this port has no provenance parameter for are stored with a
//! fixed one: read-later items `User`, learnings and intentions `Reflection`.

use crate::StoreError;
use std::sync::Arc;
use steward_protocol::{
    ConversationId, Fact, FactSource, MemoryKind, MemoryRef, Message, Note, Provenance,
};

#[derive(Debug, Clone, PartialEq)]
pub struct NewFact {
    pub key: String,
    pub value: String,
    pub source: FactSource,
    pub confidence: f32,
    pub expires_at_ms: Option<i64>,
    pub provenance: Provenance,
}

/// What `upsert_fact` did.
#[derive(Debug, Clone, PartialEq)]
pub enum FactWrite {
    Inserted(Fact),
    /// The value changed (first_seen kept). Its old vectors are dropped: they described the
    /// old value, and the backfill re-embeds the row.
    Updated(Fact),
    /// Same value: last_seen bumped (source, confidence, provenance and expiry take the new
    /// values, so a user confirming an extracted fact makes it a user fact).
    Unchanged(Fact),
    /// Refused: the stored fact is source=user and the new one is not. Holds the stored fact,
    /// untouched.
    KeptUserFact(Fact),
}

impl FactWrite {
    /// The fact as stored after the call.
    pub fn fact(&self) -> &Fact {
        match self {
            FactWrite::Inserted(f)
            | FactWrite::Updated(f)
            | FactWrite::Unchanged(f)
            | FactWrite::KeptUserFact(f) => f,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewNote {
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub provenance: Provenance,
}

/// `None` leaves a field as it is.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NoteEdit {
    pub title: Option<String>,
    pub body: Option<String>,
    pub tags: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemoryFilter {
    /// Empty = all kinds.
    pub kinds: Vec<MemoryKind>,
    /// All must match (exact, after trimming). Kinds without tags (facts, learnings,
    /// intentions) never match a non-empty tag filter.
    pub tags: Vec<String>,
    /// Created at or after (inclusive).
    pub since_ms: Option<i64>,
    /// Created at or before (inclusive).
    pub until_ms: Option<i64>,
}

/// Any remembered row, in one shape for recall and the context block.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryItem {
    pub r#ref: MemoryRef,
    pub user: String,
    /// fact: key; note: title; read_later: title; learning/intention: "".
    pub title: String,
    /// fact: value; note: body; read_later: url, a space, title; learning/intention: text.
    pub text: String,
    pub tags: Vec<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// Facts only.
    pub source: Option<FactSource>,
    pub provenance: Provenance,
}

impl MemoryItem {
    /// The text an embedder should turn into this row's vector; `missing_embeddings` returns
    /// exactly this, so vectors written at insert time and by the backfill agree.
    pub fn embedding_text(&self) -> String {
        match self.r#ref.kind {
            MemoryKind::Fact => format!("{}: {}", self.title, self.text),
            MemoryKind::Note if !self.title.is_empty() => format!("{}\n{}", self.title, self.text),
            MemoryKind::Note
            | MemoryKind::ReadLater
            | MemoryKind::Learning
            | MemoryKind::Intention => self.text.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Learning {
    pub id: i64,
    pub user: String,
    pub text: String,
    pub recurrence: u32,
    pub last_seen_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadLater {
    pub id: i64,
    pub user: String,
    pub url: String,
    pub title: String,
    pub tags: Vec<String>,
    pub created_at_ms: i64,
    /// When the owner marked it read (done); `None` while it waits.
    pub read_at_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intention {
    pub id: i64,
    pub user: String,
    pub text: String,
    pub due_at_ms: Option<i64>,
    /// 0..=3.
    pub nudges: u32,
    pub open: bool,
    pub created_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredMessage {
    pub conversation: ConversationId,
    pub message: Message,
    pub at_ms: i64,
}

#[async_trait::async_trait]
pub trait MemoryStore: Send + Sync {
    /// Source trust is enforced HERE, atomically: if the stored fact for (user,key) has source
    /// User and the new one is not User → KeptUserFact, nothing changes. Otherwise insert /
    /// update (value, source, confidence, provenance, expires; first_seen kept, last_seen = now).
    async fn upsert_fact(
        &self,
        user: &str,
        fact: &NewFact,
        now_ms: i64,
    ) -> Result<FactWrite, StoreError>;
    async fn get_fact(&self, user: &str, key: &str) -> Result<Option<Fact>, StoreError>;
    /// Key order (bytewise).
    async fn list_facts(
        &self,
        user: &str,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Fact>, StoreError>;
    /// Also removes its full-text row and vectors. True if it existed.
    async fn delete_fact(&self, user: &str, key: &str) -> Result<bool, StoreError>;

    async fn insert_note(
        &self,
        user: &str,
        note: &NewNote,
        now_ms: i64,
    ) -> Result<Note, StoreError>;
    async fn get_note(&self, id: i64) -> Result<Option<Note>, StoreError>;
    /// Newest first. A kind filter without `Note` yields nothing.
    async fn list_notes(
        &self,
        user: &str,
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<Note>, StoreError>;
    /// `None` if there is no such note. A changed title or body drops the note's vectors.
    async fn update_note(
        &self,
        id: i64,
        edit: &NoteEdit,
        now_ms: i64,
    ) -> Result<Option<Note>, StoreError>;
    /// Also removes its full-text row and vectors. True if it existed.
    async fn delete_note(&self, id: i64) -> Result<bool, StoreError>;
    /// Replace the provenance of one fact or note (the owner confirming tainted text).
    /// True if the row exists; other kinds are refused (InvalidInput).
    async fn set_provenance(
        &self,
        r: MemoryRef,
        provenance: &Provenance,
    ) -> Result<bool, StoreError>;

    async fn add_read_later(
        &self,
        user: &str,
        url: &str,
        title: &str,
        tags: &[String],
        now_ms: i64,
    ) -> Result<ReadLater, StoreError>;
    /// Newest first; `tags`: any matches, empty = all; `unread_only` leaves out the items
    /// marked read.
    async fn list_read_later(
        &self,
        user: &str,
        tags: &[String],
        unread_only: bool,
        limit: usize,
    ) -> Result<Vec<ReadLater>, StoreError>;
    /// Mark `user`'s item `id` read (`read_at_ms` = now, or kept when it was read already) or
    /// unread again. `None` when `user` has no such item (another user's is not theirs).
    async fn mark_read_later(
        &self,
        user: &str,
        id: i64,
        read: bool,
        now_ms: i64,
    ) -> Result<Option<ReadLater>, StoreError>;
    /// Also removes its full-text row and vectors. True if `user` had it.
    async fn delete_read_later(&self, user: &str, id: i64) -> Result<bool, StoreError>;

    /// Same text (case-insensitive, trimmed) → recurrence + 1 and last_seen = now; else insert
    /// with 1. The first spelling is kept.
    async fn bump_learning(
        &self,
        user: &str,
        text: &str,
        now_ms: i64,
    ) -> Result<Learning, StoreError>;
    /// Recurrence desc, then last_seen desc.
    async fn top_learnings(&self, user: &str, n: usize) -> Result<Vec<Learning>, StoreError>;
    /// Also removes its full-text row and vectors. True if `user` had it. A learning seen again
    /// after its deletion starts over at recurrence 1.
    async fn delete_learning(&self, user: &str, id: i64) -> Result<bool, StoreError>;

    async fn add_intention(
        &self,
        user: &str,
        text: &str,
        due_at_ms: Option<i64>,
        now_ms: i64,
    ) -> Result<Intention, StoreError>;
    /// Soonest due first (undated last), then oldest.
    async fn list_intentions(
        &self,
        user: &str,
        open_only: bool,
    ) -> Result<Vec<Intention>, StoreError>;
    /// +1 nudge; refused (InvalidInput) past 3 nudges, for a closed or an unknown intention.
    async fn nudge_intention(&self, id: i64) -> Result<Intention, StoreError>;
    /// Close (`done`) or reopen `user`'s intention `id`; its nudges are kept. `None` when
    /// `user` has no such intention.
    async fn set_intention_done(
        &self,
        user: &str,
        id: i64,
        done: bool,
    ) -> Result<Option<Intention>, StoreError>;
    /// Also removes its full-text row and vectors. True if `user` had it.
    async fn delete_intention(&self, user: &str, id: i64) -> Result<bool, StoreError>;

    /// Same order as refs, missing ones skipped.
    async fn get_items(&self, refs: &[MemoryRef]) -> Result<Vec<MemoryItem>, StoreError>;
    /// Full-text (BM25) over facts (key+value), notes (title+body+tags), read-later
    /// (title+url+tags), learnings, intentions. `query` is plain user text: the adapter turns it
    /// into a safe expression (quoted content words AND-ed; when nothing matches them all, the rarest few OR-ed), never lets query syntax through; nothing
    /// searchable left → empty. Best first; score = -bm25 (higher is better).
    async fn fts_search(
        &self,
        user: &str,
        query: &str,
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, f64)>, StoreError>;
    /// Nearest vectors for this embedder model id (cosine distance, smaller is closer), best
    /// first. Unknown model → empty; wrong dimensions → InvalidInput.
    async fn vector_search(
        &self,
        user: &str,
        model_id: &str,
        embedding: &[f32],
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, f64)>, StoreError>;
    /// Stores (or replaces) the row's vector. The first vector of a model id fixes its
    /// dimensions; a later mismatch is InvalidInput, as is a row that does not exist.
    async fn put_embedding(
        &self,
        r: MemoryRef,
        model_id: &str,
        embedding: &[f32],
    ) -> Result<(), StoreError>;
    /// Rows that have no vector for this model yet (for the backfill), oldest first, with
    /// `MemoryItem::embedding_text`.
    async fn missing_embeddings(
        &self,
        model_id: &str,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, String)>, StoreError>;

    /// Retention, always scoped: facts whose expires_at_ms <= now_ms. dry_run → report only.
    /// Returns the facts (to be) deleted, in key order per user.
    async fn delete_expired_facts(
        &self,
        now_ms: i64,
        dry_run: bool,
    ) -> Result<Vec<Fact>, StoreError>;
    /// Facts of `user` whose key starts with `prefix` (non-empty, exact prefix, not LIKE:
    /// `%` and `_` are literal) and whose last_seen_ms < unseen_before_ms. dry_run → report
    /// only. Key order.
    async fn delete_facts_by_prefix(
        &self,
        user: &str,
        prefix: &str,
        unseen_before_ms: i64,
        dry_run: bool,
    ) -> Result<Vec<Fact>, StoreError>;
    /// Messages (all conversations) created at or after since_ms, oldest first (reflection
    /// input).
    async fn messages_since(
        &self,
        since_ms: i64,
        limit: usize,
    ) -> Result<Vec<StoredMessage>, StoreError>;
}

#[async_trait::async_trait]
impl<T: MemoryStore + ?Sized> MemoryStore for Arc<T> {
    async fn upsert_fact(
        &self,
        user: &str,
        fact: &NewFact,
        now_ms: i64,
    ) -> Result<FactWrite, StoreError> {
        (**self).upsert_fact(user, fact, now_ms).await
    }
    async fn get_fact(&self, user: &str, key: &str) -> Result<Option<Fact>, StoreError> {
        (**self).get_fact(user, key).await
    }
    async fn list_facts(
        &self,
        user: &str,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Fact>, StoreError> {
        (**self).list_facts(user, limit, offset).await
    }
    async fn delete_fact(&self, user: &str, key: &str) -> Result<bool, StoreError> {
        (**self).delete_fact(user, key).await
    }
    async fn insert_note(
        &self,
        user: &str,
        note: &NewNote,
        now_ms: i64,
    ) -> Result<Note, StoreError> {
        (**self).insert_note(user, note, now_ms).await
    }
    async fn get_note(&self, id: i64) -> Result<Option<Note>, StoreError> {
        (**self).get_note(id).await
    }
    async fn list_notes(
        &self,
        user: &str,
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<Note>, StoreError> {
        (**self).list_notes(user, filter, limit).await
    }
    async fn update_note(
        &self,
        id: i64,
        edit: &NoteEdit,
        now_ms: i64,
    ) -> Result<Option<Note>, StoreError> {
        (**self).update_note(id, edit, now_ms).await
    }
    async fn delete_note(&self, id: i64) -> Result<bool, StoreError> {
        (**self).delete_note(id).await
    }
    async fn set_provenance(
        &self,
        r: MemoryRef,
        provenance: &Provenance,
    ) -> Result<bool, StoreError> {
        (**self).set_provenance(r, provenance).await
    }
    async fn add_read_later(
        &self,
        user: &str,
        url: &str,
        title: &str,
        tags: &[String],
        now_ms: i64,
    ) -> Result<ReadLater, StoreError> {
        (**self)
            .add_read_later(user, url, title, tags, now_ms)
            .await
    }
    async fn list_read_later(
        &self,
        user: &str,
        tags: &[String],
        unread_only: bool,
        limit: usize,
    ) -> Result<Vec<ReadLater>, StoreError> {
        (**self)
            .list_read_later(user, tags, unread_only, limit)
            .await
    }
    async fn mark_read_later(
        &self,
        user: &str,
        id: i64,
        read: bool,
        now_ms: i64,
    ) -> Result<Option<ReadLater>, StoreError> {
        (**self).mark_read_later(user, id, read, now_ms).await
    }
    async fn delete_read_later(&self, user: &str, id: i64) -> Result<bool, StoreError> {
        (**self).delete_read_later(user, id).await
    }
    async fn bump_learning(
        &self,
        user: &str,
        text: &str,
        now_ms: i64,
    ) -> Result<Learning, StoreError> {
        (**self).bump_learning(user, text, now_ms).await
    }
    async fn top_learnings(&self, user: &str, n: usize) -> Result<Vec<Learning>, StoreError> {
        (**self).top_learnings(user, n).await
    }
    async fn delete_learning(&self, user: &str, id: i64) -> Result<bool, StoreError> {
        (**self).delete_learning(user, id).await
    }
    async fn add_intention(
        &self,
        user: &str,
        text: &str,
        due_at_ms: Option<i64>,
        now_ms: i64,
    ) -> Result<Intention, StoreError> {
        (**self).add_intention(user, text, due_at_ms, now_ms).await
    }
    async fn list_intentions(
        &self,
        user: &str,
        open_only: bool,
    ) -> Result<Vec<Intention>, StoreError> {
        (**self).list_intentions(user, open_only).await
    }
    async fn nudge_intention(&self, id: i64) -> Result<Intention, StoreError> {
        (**self).nudge_intention(id).await
    }
    async fn set_intention_done(
        &self,
        user: &str,
        id: i64,
        done: bool,
    ) -> Result<Option<Intention>, StoreError> {
        (**self).set_intention_done(user, id, done).await
    }
    async fn delete_intention(&self, user: &str, id: i64) -> Result<bool, StoreError> {
        (**self).delete_intention(user, id).await
    }
    async fn get_items(&self, refs: &[MemoryRef]) -> Result<Vec<MemoryItem>, StoreError> {
        (**self).get_items(refs).await
    }
    async fn fts_search(
        &self,
        user: &str,
        query: &str,
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
        (**self).fts_search(user, query, filter, limit).await
    }
    async fn vector_search(
        &self,
        user: &str,
        model_id: &str,
        embedding: &[f32],
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
        (**self)
            .vector_search(user, model_id, embedding, filter, limit)
            .await
    }
    async fn put_embedding(
        &self,
        r: MemoryRef,
        model_id: &str,
        embedding: &[f32],
    ) -> Result<(), StoreError> {
        (**self).put_embedding(r, model_id, embedding).await
    }
    async fn missing_embeddings(
        &self,
        model_id: &str,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, String)>, StoreError> {
        (**self).missing_embeddings(model_id, limit).await
    }
    async fn delete_expired_facts(
        &self,
        now_ms: i64,
        dry_run: bool,
    ) -> Result<Vec<Fact>, StoreError> {
        (**self).delete_expired_facts(now_ms, dry_run).await
    }
    async fn delete_facts_by_prefix(
        &self,
        user: &str,
        prefix: &str,
        unseen_before_ms: i64,
        dry_run: bool,
    ) -> Result<Vec<Fact>, StoreError> {
        (**self)
            .delete_facts_by_prefix(user, prefix, unseen_before_ms, dry_run)
            .await
    }
    async fn messages_since(
        &self,
        since_ms: i64,
        limit: usize,
    ) -> Result<Vec<StoredMessage>, StoreError> {
        (**self).messages_since(since_ms, limit).await
    }
}
