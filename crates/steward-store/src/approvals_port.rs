//! The `ApprovalStore` port: pending actions, their append-only audit trail, grants and scores.
//! Owns the storage semantics of the approval gate (documented here, enforced by `contract`).
//! Does not own the state machine or policy: `Approvals::resolve` in steward-core decides which
//! transitions are legal and is the only caller of `transition_action`.
//!
//! Limits (every adapter refuses the rest with `InvalidInput`): ids (action, grant, trace)
//! 1..=128 bytes, no NUL (principals are `PrincipalId`s, valid by construction); tool names, score names and audit events 1..=64 bytes, no
//! NUL; arguments and audit detail up to 1 MiB, arguments without NUL (approval is bound to
//! their hash, so they are never rewritten). Previews and outcomes are never refused: they are
//! stored sanitised (NUL → U+FFFD, cut to 1 MiB with a note), and NUL in audit detail is
//! replaced the same way, by the one scrub in `crate::validate`.

use crate::StoreError;
use std::sync::Arc;
use steward_protocol::{ActionStatus, ConversationId, Grant, PendingAction, PrincipalId, Surface};

/// One line of an action's audit trail. Append-only: no adapter offers a way to change or
/// remove an entry, and SQL triggers refuse it at the database level too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub action_id: String,
    pub at_ms: i64,
    pub principal: PrincipalId,
    pub surface: Surface,
    /// "created" | "confirm" | "running" | "cancel" | "revise" | "expire" | "executed" |
    /// "failed" | "effect_changed" | "interrupted" | "edit_requested" | "refused"...: free
    /// text, 1..=64 bytes.
    pub event: String,
    /// JSON text, or "" when there is nothing to add.
    pub detail: String,
    /// The trace of the turn the action belongs to; "" only when there is none.
    pub trace_id: String,
}

/// An audit entry with its place in the whole trail (`seq`, growing with every entry of any
/// action) and its action's conversation: the change log that event feeds tail, in this
/// process or another on the same database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRecord {
    pub seq: i64,
    pub entry: AuditEntry,
    /// None when the entry's action is not stored (a refusal without an action).
    pub conversation: Option<ConversationId>,
}

/// Most action ids one `first_audit_of` call takes (a listing shows at most 500).
pub const MAX_AUDIT_BATCH: usize = 1_000;
/// Most event names one `first_audit_of` call looks for.
pub const MAX_AUDIT_EVENTS: usize = 16;

/// A quality signal tied to a trace (e.g. `user_approval` 1 or 0, `user_edit`).
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    pub trace_id: String,
    /// 1..=64 bytes.
    pub name: String,
    /// Must be finite.
    pub value: f64,
    pub action_id: Option<String>,
    /// What kind of message the score judges (`chat`, `briefing`, …; the sent-message genre
    /// rule), for a reaction; `None` for a score on an action.
    pub genre: Option<String>,
    pub at_ms: i64,
}

/// Field changes applied together with a status change. `None` leaves a field as it is.
///
/// `arguments` and `payload_hash` must be set together (or neither): approval binds to the
/// hash, so a payload whose hash was not recomputed must never be stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionPatch {
    pub arguments: Option<String>,
    pub payload_hash: Option<String>,
    pub preview: Option<String>,
    pub outcome: Option<String>,
    pub awaiting_edit: Option<bool>,
    /// Adds one to `revision`.
    pub bump_revision: bool,
}

/// What `transition_action` did.
#[derive(Debug, Clone, PartialEq)]
pub enum Transition {
    /// The row after the change.
    Applied(PendingAction),
    /// The guard did not hold; this is the row as it is, and nothing was written.
    Conflict(PendingAction),
    NotFound,
}

/// The conditions under which `transition_action` may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CasGuard<'a> {
    /// The status the row must have now.
    pub from: ActionStatus,
    /// When set, the stored `payload_hash` (before any patch) must equal it.
    pub expected_hash: Option<&'a str>,
    /// When set, the action must still be unexpired at this time (`expires_at_ms > it`).
    pub unexpired_at_ms: Option<i64>,
}

#[async_trait::async_trait]
pub trait ApprovalStore: Send + Sync {
    /// Inserts a new action (status as given, normally `Pending`) and its "created" audit entry,
    /// in one transaction. A duplicate id is `InvalidInput` and changes nothing; so is an
    /// `audit.action_id` different from `action.id`.
    async fn insert_action(
        &self,
        action: &PendingAction,
        audit: &AuditEntry,
    ) -> Result<(), StoreError>;

    async fn get_action(&self, id: &str) -> Result<Option<PendingAction>, StoreError>;

    /// Newest first (`created_at_ms` descending, then id ascending). Both filters optional.
    async fn list_actions(
        &self,
        status: Option<ActionStatus>,
        conversation: Option<&ConversationId>,
        limit: usize,
    ) -> Result<Vec<PendingAction>, StoreError>;

    /// Compare-and-set, atomically: sets status `to`, applies `patch` and sets
    /// `updated_at_ms = now_ms`, only if the guard holds (status == `guard.from`, the stored hash
    /// matches `guard.expected_hash` when given, `expires_at_ms > guard.unexpired_at_ms` when
    /// given). If applied, `audit` is inserted in the same transaction and the new row returned.
    /// Otherwise nothing is written (no audit either): `Conflict(current row)` or `NotFound`.
    /// `to` may equal `from` (a revision stays pending). `audit.action_id` must equal `id`.
    async fn transition_action(
        &self,
        id: &str,
        guard: CasGuard<'_>,
        to: ActionStatus,
        patch: &ActionPatch,
        audit: &AuditEntry,
        now_ms: i64,
    ) -> Result<Transition, StoreError>;

    /// Audit entries that are not a transition (e.g. "refused"); the action need not exist.
    async fn append_audit(&self, entry: &AuditEntry) -> Result<(), StoreError>;

    /// Oldest first, in the order the entries were written (not by `at_ms`, which callers
    /// stamp before taking any lock).
    async fn list_audit(&self, action_id: &str) -> Result<Vec<AuditEntry>, StoreError>;

    /// For each of `action_ids`, its first entry (in write order) whose event is one of
    /// `events`; actions with none (or unknown) are left out. In write order, at most one per
    /// action. Up to `MAX_AUDIT_BATCH` ids (each an action id) and 1..=`MAX_AUDIT_EVENTS` events
    /// (each 1..=64 bytes): anything else is `InvalidInput`. One query for a whole listing,
    /// where `list_audit` per action would be one each.
    async fn first_audit_of(
        &self,
        action_ids: &[String],
        events: &[&str],
    ) -> Result<Vec<AuditEntry>, StoreError>;

    /// How many actions have `status`: a count, no rows read (the pending badge every page
    /// shows asks for it).
    async fn count_actions(&self, status: ActionStatus) -> Result<u64, StoreError>;

    /// Up to `limit` entries of every action after position `after`, oldest first.
    async fn audit_since(&self, after: i64, limit: usize) -> Result<Vec<AuditRecord>, StoreError>;

    /// The position of the newest entry (0 when there is none): where a new tail starts.
    async fn audit_head(&self) -> Result<i64, StoreError>;

    /// Pending actions with `expires_at_ms <= now_ms`, longest overdue first (`expires_at_ms`,
    /// then id), for the expiry sweep.
    async fn overdue_actions(
        &self,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<PendingAction>, StoreError>;

    async fn record_score(&self, score: &Score) -> Result<(), StoreError>;

    /// In the order they were recorded.
    async fn scores_for_trace(&self, trace_id: &str) -> Result<Vec<Score>, StoreError>;

    /// A duplicate id is `InvalidInput`.
    async fn insert_grant(&self, grant: &Grant) -> Result<(), StoreError>;

    /// Newest first (`created_at_ms` descending, then id). `include_inactive == false` keeps
    /// only grants that are not revoked and have `expires_at_ms > now_ms`.
    async fn list_grants(
        &self,
        include_inactive: bool,
        now_ms: i64,
    ) -> Result<Vec<Grant>, StoreError>;

    /// True if this call revoked the grant; false if it was already revoked or is unknown.
    /// Expiry is not considered (there is no clock here): revoking an expired grant is harmless.
    async fn revoke_grant(&self, id: &str) -> Result<bool, StoreError>;

    /// An active (not revoked, `expires_at_ms > now_ms`) grant for exactly this conversation
    /// and tool; the one expiring last when several match.
    async fn active_grant(
        &self,
        conversation: &ConversationId,
        tool: &str,
        now_ms: i64,
    ) -> Result<Option<Grant>, StoreError>;
}

#[async_trait::async_trait]
impl<T: ApprovalStore + ?Sized> ApprovalStore for Arc<T> {
    async fn insert_action(
        &self,
        action: &PendingAction,
        audit: &AuditEntry,
    ) -> Result<(), StoreError> {
        (**self).insert_action(action, audit).await
    }

    async fn get_action(&self, id: &str) -> Result<Option<PendingAction>, StoreError> {
        (**self).get_action(id).await
    }

    async fn list_actions(
        &self,
        status: Option<ActionStatus>,
        conversation: Option<&ConversationId>,
        limit: usize,
    ) -> Result<Vec<PendingAction>, StoreError> {
        (**self).list_actions(status, conversation, limit).await
    }

    async fn transition_action(
        &self,
        id: &str,
        guard: CasGuard<'_>,
        to: ActionStatus,
        patch: &ActionPatch,
        audit: &AuditEntry,
        now_ms: i64,
    ) -> Result<Transition, StoreError> {
        (**self)
            .transition_action(id, guard, to, patch, audit, now_ms)
            .await
    }

    async fn append_audit(&self, entry: &AuditEntry) -> Result<(), StoreError> {
        (**self).append_audit(entry).await
    }

    async fn audit_since(&self, after: i64, limit: usize) -> Result<Vec<AuditRecord>, StoreError> {
        (**self).audit_since(after, limit).await
    }

    async fn first_audit_of(
        &self,
        action_ids: &[String],
        events: &[&str],
    ) -> Result<Vec<AuditEntry>, StoreError> {
        (**self).first_audit_of(action_ids, events).await
    }

    async fn count_actions(&self, status: ActionStatus) -> Result<u64, StoreError> {
        (**self).count_actions(status).await
    }

    async fn audit_head(&self) -> Result<i64, StoreError> {
        (**self).audit_head().await
    }

    async fn list_audit(&self, action_id: &str) -> Result<Vec<AuditEntry>, StoreError> {
        (**self).list_audit(action_id).await
    }

    async fn overdue_actions(
        &self,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<PendingAction>, StoreError> {
        (**self).overdue_actions(now_ms, limit).await
    }

    async fn record_score(&self, score: &Score) -> Result<(), StoreError> {
        (**self).record_score(score).await
    }

    async fn scores_for_trace(&self, trace_id: &str) -> Result<Vec<Score>, StoreError> {
        (**self).scores_for_trace(trace_id).await
    }

    async fn insert_grant(&self, grant: &Grant) -> Result<(), StoreError> {
        (**self).insert_grant(grant).await
    }

    async fn list_grants(
        &self,
        include_inactive: bool,
        now_ms: i64,
    ) -> Result<Vec<Grant>, StoreError> {
        (**self).list_grants(include_inactive, now_ms).await
    }

    async fn revoke_grant(&self, id: &str) -> Result<bool, StoreError> {
        (**self).revoke_grant(id).await
    }

    async fn active_grant(
        &self,
        conversation: &ConversationId,
        tool: &str,
        now_ms: i64,
    ) -> Result<Option<Grant>, StoreError> {
        (**self).active_grant(conversation, tool, now_ms).await
    }
}
