//! The `TurnRequestStore` port: what became of each keyed client request, so that a retry of
//! it is the same turn. Owns the storage semantics (documented here, enforced by `contract`);
//! does not own when a retry counts as the same request (steward-core's turn pipeline decides,
//! from `steward_protocol::Replay`).
//!
//! Limits (every adapter refuses the rest with `InvalidInput`): key, turn id and fingerprint
//! 1..=128 bytes without NUL; the outcome JSON up to 1 MiB, without NUL.

use crate::StoreError;
use std::sync::Arc;
use steward_protocol::ConversationId;

/// One keyed request and its turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRequest {
    /// The `RequestKey` digest.
    pub key: String,
    pub conversation: ConversationId,
    pub turn_id: String,
    /// A digest of what was asked (conversation, text, instructions): the same key sent with
    /// other content is a client bug, refused rather than replayed.
    pub fingerprint: String,
    /// The user's message is in the conversation already: a resumed turn must not store it again.
    pub user_stored: bool,
    /// JSON of the turn's replayable events once it ended; None while it runs (or if the
    /// process stopped before it ended).
    pub outcome: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

#[async_trait::async_trait]
pub trait TurnRequestStore: Send + Sync {
    /// The record under `key`, if any.
    async fn turn_request(&self, key: &str) -> Result<Option<TurnRequest>, StoreError>;
    /// Insert, or replace every field of the record with the same key.
    async fn save_turn_request(&self, request: &TurnRequest) -> Result<(), StoreError>;
    /// Delete records created before `before_ms`; returns how many went.
    async fn prune_turn_requests(&self, before_ms: i64) -> Result<u64, StoreError>;
}

#[async_trait::async_trait]
impl<T: TurnRequestStore + ?Sized> TurnRequestStore for Arc<T> {
    async fn turn_request(&self, key: &str) -> Result<Option<TurnRequest>, StoreError> {
        (**self).turn_request(key).await
    }

    async fn save_turn_request(&self, request: &TurnRequest) -> Result<(), StoreError> {
        (**self).save_turn_request(request).await
    }

    async fn prune_turn_requests(&self, before_ms: i64) -> Result<u64, StoreError> {
        (**self).prune_turn_requests(before_ms).await
    }
}
