//! The `SessionStore` port: the web app's signed-in sessions. Owns the storage semantics
//! (documented here, enforced by `contract`); does not own what a session may do, how long it
//! lives or when it counts as idle (steward-server's sign-in decides and passes the times in),
//! nor the cookie secret itself: only its SHA-256 is ever handed to a store, so a copy of the
//! database signs nobody in.
//!
//! Limits (every adapter refuses the rest with `InvalidInput`): the id 1..=128 bytes without
//! NUL; the secret hash exactly 64 lower-case hex digits (a SHA-256, never a raw secret); the
//! user agent at most `MAX_USER_AGENT_LEN` bytes, without NUL.

use crate::StoreError;
use std::sync::Arc;
use steward_protocol::PrincipalId;

/// Longest stored user agent, in bytes (the server shortens longer ones before it stores).
pub const MAX_USER_AGENT_LEN: usize = 512;

/// One signed-in session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Public id (a UUID): what the session list shows and revocation names. Not a credential.
    pub id: String,
    /// Lower-case hex SHA-256 of the cookie secret: how a request's cookie finds its session.
    pub secret_hash: String,
    /// Whom the session acts for.
    pub principal: PrincipalId,
    pub created_at_ms: i64,
    /// When a request last used it (the server refreshes it at most once a minute).
    pub last_seen_at_ms: i64,
    /// The absolute end of the session, however active it is.
    pub expires_at_ms: i64,
    /// The browser's `User-Agent` at sign-in, to tell sessions apart in the list.
    pub user_agent: Option<String>,
}

#[async_trait::async_trait]
pub trait SessionStore: Send + Sync {
    /// Store a new session. A second session with the same id or secret hash is refused
    /// (`Constraint`): neither may ever name two sessions.
    async fn create_session(&self, session: &Session) -> Result<(), StoreError>;
    /// The session whose secret hashes to `secret_hash`, if any (expired ones too: the caller
    /// judges expiry by its clock).
    async fn session_by_secret_hash(
        &self,
        secret_hash: &str,
    ) -> Result<Option<Session>, StoreError>;
    /// Move `last_seen_at_ms` to `at_ms`, never backwards. False when there is no such session.
    async fn touch_session(&self, id: &str, at_ms: i64) -> Result<bool, StoreError>;
    /// The principal's sessions, newest first.
    async fn list_sessions(&self, principal: &PrincipalId) -> Result<Vec<Session>, StoreError>;
    /// Delete the principal's session `id`. False when it has none by that id (another
    /// principal's session is never touched).
    async fn revoke_session(&self, principal: &PrincipalId, id: &str) -> Result<bool, StoreError>;
    /// Delete the session whose secret hashes to `secret_hash`. False when there is none.
    async fn revoke_session_by_secret_hash(&self, secret_hash: &str) -> Result<bool, StoreError>;
    /// Delete every session of the principal (its password changed); returns how many went.
    async fn revoke_sessions_of(&self, principal: &PrincipalId) -> Result<u64, StoreError>;
    /// Delete sessions that ended by `now_ms` (`expires_at_ms <= now_ms`) or were last seen
    /// before `idle_before_ms`; returns how many went.
    async fn prune_sessions(&self, now_ms: i64, idle_before_ms: i64) -> Result<u64, StoreError>;
}

#[async_trait::async_trait]
impl<T: SessionStore + ?Sized> SessionStore for Arc<T> {
    async fn create_session(&self, session: &Session) -> Result<(), StoreError> {
        (**self).create_session(session).await
    }

    async fn session_by_secret_hash(
        &self,
        secret_hash: &str,
    ) -> Result<Option<Session>, StoreError> {
        (**self).session_by_secret_hash(secret_hash).await
    }

    async fn touch_session(&self, id: &str, at_ms: i64) -> Result<bool, StoreError> {
        (**self).touch_session(id, at_ms).await
    }

    async fn list_sessions(&self, principal: &PrincipalId) -> Result<Vec<Session>, StoreError> {
        (**self).list_sessions(principal).await
    }

    async fn revoke_session(&self, principal: &PrincipalId, id: &str) -> Result<bool, StoreError> {
        (**self).revoke_session(principal, id).await
    }

    async fn revoke_session_by_secret_hash(&self, secret_hash: &str) -> Result<bool, StoreError> {
        (**self).revoke_session_by_secret_hash(secret_hash).await
    }

    async fn revoke_sessions_of(&self, principal: &PrincipalId) -> Result<u64, StoreError> {
        (**self).revoke_sessions_of(principal).await
    }

    async fn prune_sessions(&self, now_ms: i64, idle_before_ms: i64) -> Result<u64, StoreError> {
        (**self).prune_sessions(now_ms, idle_before_ms).await
    }
}
