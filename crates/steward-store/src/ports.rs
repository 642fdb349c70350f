//! The storage ports: the traits every adapter implements and the rest of Steward codes against.
//! Owns the semantics (documented here and enforced by `contract`); does not own any SQL.

use crate::{
    ApprovalStore, EdgeStore, JobStore, MemoryStore, SessionStore, StoreError, TaskStore,
    TurnRequestStore, UsageStore, VaultStore,
};
use std::sync::Arc;
use steward_protocol::{ConversationId, ConversationTitle, Message};

/// One row of `list_conversations`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationSummary {
    pub id: ConversationId,
    /// Unix milliseconds of the first append.
    pub created_at_ms: i64,
    /// Unix milliseconds of the latest append (never moves backwards).
    pub updated_at_ms: i64,
    pub message_count: u64,
    /// The owner's name for it; None = untitled.
    pub title: Option<ConversationTitle>,
}

/// One stored message of a conversation, with its place and time (the read side's history).
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryItem {
    /// Position in the conversation: 0, 1, 2, ... in append order.
    pub seq: u64,
    pub at_ms: i64,
    pub message: Message,
}

#[async_trait::async_trait]
pub trait ConversationStore: Send + Sync {
    /// Append messages to a conversation, creating it if needed. Atomic: all or none (one
    /// transaction), and concurrent appends to one conversation never interleave.
    ///
    /// An empty slice is a no-op: it does not create the conversation.
    /// Text containing NUL (`\0`) is refused with `InvalidInput` (PostgreSQL text cannot hold it);
    /// callers sanitize binary tool output first.
    async fn append_messages(
        &self,
        conversation: &ConversationId,
        messages: &[Message],
    ) -> Result<(), StoreError>;

    /// The last `limit` messages of the conversation, oldest first. Unknown conversation → empty vec.
    async fn recent_messages(
        &self,
        conversation: &ConversationId,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError>;

    /// Conversations, most recently updated first (ties broken by which was appended to last).
    async fn list_conversations(
        &self,
        limit: usize,
    ) -> Result<Vec<ConversationSummary>, StoreError>;

    /// One conversation's summary; None when it does not exist.
    async fn conversation(
        &self,
        conversation: &ConversationId,
    ) -> Result<Option<ConversationSummary>, StoreError>;

    /// Up to `limit` messages before position `before` (all positions when None), oldest
    /// first: pages of a history, walked backwards by passing the first `seq` seen.
    async fn history_page(
        &self,
        conversation: &ConversationId,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Vec<HistoryItem>, StoreError>;

    /// Set or clear the title. False when the conversation does not exist.
    async fn set_title(
        &self,
        conversation: &ConversationId,
        title: Option<&ConversationTitle>,
    ) -> Result<bool, StoreError>;

    /// Delete the conversation with its messages and request records, in one transaction.
    /// False when it did not exist. Memory learned from it is the memory's own (kept).
    async fn delete_conversation(&self, conversation: &ConversationId) -> Result<bool, StoreError>;
}

/// A small string key-value table. Keys: 1..=512 bytes, no NUL. Values: up to 1 MiB, no NUL.
/// Anything else is `InvalidInput`.
#[async_trait::async_trait]
pub trait KvStore: Send + Sync {
    async fn kv_get(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Insert or overwrite.
    async fn kv_put(&self, key: &str, value: &str) -> Result<(), StoreError>;
    /// Insert only if absent; returns true if this call inserted it (a compare-and-set building block).
    async fn kv_put_if_absent(&self, key: &str, value: &str) -> Result<bool, StoreError>;
    /// Returns true if the key existed.
    async fn kv_delete(&self, key: &str) -> Result<bool, StoreError>;
    /// Keys starting with `prefix`, ordered by key bytewise (exact prefix match, not LIKE: `%` and
    /// `_` are literal). An empty prefix is refused (InvalidInput): broad sweeps are how production
    /// systems deleted the wrong rows.
    async fn kv_list_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<(String, String)>, StoreError>;
}

#[async_trait::async_trait]
pub trait Store:
    ConversationStore
    + KvStore
    + ApprovalStore
    + MemoryStore
    + TurnRequestStore
    + SessionStore
    + UsageStore
    + EdgeStore
    + JobStore
    + TaskStore
    + VaultStore
{
    /// Cheap liveness check (for /health and `steward doctor`).
    async fn ping(&self) -> Result<(), StoreError>;
    /// e.g. "sqlite /path/to/steward.db (schema v1)"
    fn describe(&self) -> String;
}

// Forwarding impls so callers can hold `Arc<dyn Store>` (or `Arc<SqliteStore>`) and pass it
// wherever a store is expected.

#[async_trait::async_trait]
impl<T: ConversationStore + ?Sized> ConversationStore for Arc<T> {
    async fn append_messages(
        &self,
        conversation: &ConversationId,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        (**self).append_messages(conversation, messages).await
    }

    async fn recent_messages(
        &self,
        conversation: &ConversationId,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        (**self).recent_messages(conversation, limit).await
    }

    async fn list_conversations(
        &self,
        limit: usize,
    ) -> Result<Vec<ConversationSummary>, StoreError> {
        (**self).list_conversations(limit).await
    }

    async fn conversation(
        &self,
        conversation: &ConversationId,
    ) -> Result<Option<ConversationSummary>, StoreError> {
        (**self).conversation(conversation).await
    }

    async fn history_page(
        &self,
        conversation: &ConversationId,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Vec<HistoryItem>, StoreError> {
        (**self).history_page(conversation, before, limit).await
    }

    async fn set_title(
        &self,
        conversation: &ConversationId,
        title: Option<&ConversationTitle>,
    ) -> Result<bool, StoreError> {
        (**self).set_title(conversation, title).await
    }

    async fn delete_conversation(&self, conversation: &ConversationId) -> Result<bool, StoreError> {
        (**self).delete_conversation(conversation).await
    }
}

#[async_trait::async_trait]
impl<T: KvStore + ?Sized> KvStore for Arc<T> {
    async fn kv_get(&self, key: &str) -> Result<Option<String>, StoreError> {
        (**self).kv_get(key).await
    }

    async fn kv_put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        (**self).kv_put(key, value).await
    }

    async fn kv_put_if_absent(&self, key: &str, value: &str) -> Result<bool, StoreError> {
        (**self).kv_put_if_absent(key, value).await
    }

    async fn kv_delete(&self, key: &str) -> Result<bool, StoreError> {
        (**self).kv_delete(key).await
    }

    async fn kv_list_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<(String, String)>, StoreError> {
        (**self).kv_list_prefix(prefix, limit).await
    }
}

#[async_trait::async_trait]
impl<T: Store + ?Sized> Store for Arc<T> {
    async fn ping(&self) -> Result<(), StoreError> {
        (**self).ping().await
    }

    fn describe(&self) -> String {
        (**self).describe()
    }
}
