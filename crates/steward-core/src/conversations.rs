//! The read side every surface shows conversations through (`ConversationDesk`): the list,
//! one conversation's history in pages, rename and delete. Surfaces never read the store for
//! these themselves, so the HTTP API, the web app and Telegram are one path.
//!
//! Owns: the port and Steward's implementation (a conversation with a turn queued or running
//! cannot be deleted). Does not own: how a surface renders it, or the SQL (steward-store).

use crate::steward::Steward;
use steward_protocol::{ConversationId, ConversationTitle};
use steward_store::{ConversationSummary, HistoryItem};

/// One conversation and a page of its history (oldest first).
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    pub summary: ConversationSummary,
    pub items: Vec<HistoryItem>,
}

/// What became of a delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    Done,
    NotFound,
    /// A turn is queued or running in it: cancel it (or wait) first.
    Busy,
}

#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    #[error("storage failed; see the server log")]
    Store,
}

impl From<steward_store::StoreError> for DeskError {
    fn from(e: steward_store::StoreError) -> Self {
        tracing::error!(error = %e, "store failure on the conversations read side");
        DeskError::Store
    }
}

#[async_trait::async_trait]
pub trait ConversationDesk: Send + Sync + 'static {
    /// Conversations, most recently active first.
    async fn list(&self, limit: usize) -> Result<Vec<ConversationSummary>, DeskError>;
    /// Up to `limit` messages before position `before` (the newest when None); None when
    /// the conversation does not exist.
    async fn history(
        &self,
        conversation: &ConversationId,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Option<History>, DeskError>;
    /// Set or clear the title; the summary after, None when it does not exist.
    async fn rename(
        &self,
        conversation: &ConversationId,
        title: Option<ConversationTitle>,
    ) -> Result<Option<ConversationSummary>, DeskError>;
    async fn delete(&self, conversation: &ConversationId) -> Result<Deleted, DeskError>;
}

#[async_trait::async_trait]
impl ConversationDesk for Steward {
    async fn list(&self, limit: usize) -> Result<Vec<ConversationSummary>, DeskError> {
        Ok(self.inner.deps.store.list_conversations(limit).await?)
    }

    async fn history(
        &self,
        conversation: &ConversationId,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Option<History>, DeskError> {
        let store = &self.inner.deps.store;
        let Some(summary) = store.conversation(conversation).await? else {
            return Ok(None);
        };
        let items = store.history_page(conversation, before, limit).await?;
        Ok(Some(History { summary, items }))
    }

    async fn rename(
        &self,
        conversation: &ConversationId,
        title: Option<ConversationTitle>,
    ) -> Result<Option<ConversationSummary>, DeskError> {
        let store = &self.inner.deps.store;
        if !store.set_title(conversation, title.as_ref()).await? {
            return Ok(None);
        }
        Ok(store.conversation(conversation).await?)
    }

    async fn delete(&self, conversation: &ConversationId) -> Result<Deleted, DeskError> {
        // A turn mid-way would write into a conversation that no longer exists.
        if self.is_busy(conversation) {
            return Ok(Deleted::Busy);
        }
        if self
            .inner
            .deps
            .store
            .delete_conversation(conversation)
            .await?
        {
            tracing::info!(%conversation, "conversation deleted");
            Ok(Deleted::Done)
        } else {
            Ok(Deleted::NotFound)
        }
    }
}
