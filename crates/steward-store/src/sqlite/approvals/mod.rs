//! `ApprovalStore` for SQLite: validates inputs (in `crate::validate`, shared by every adapter,
//! which also returns the free text scrubbed as it must be stored), then hands those copies to
//! the SQL in `actions.rs`, `audit.rs` and `grants.rs` on the
//! blocking thread. Owns the wiring only; the schema is `migrations/sqlite/V2__approvals.sql`.

mod actions;
mod audit;
mod grants;

use super::{SqliteStore, sql_limit};
use crate::AuditRecord;
use crate::{
    ActionPatch, ApprovalStore, AuditEntry, CasGuard, Score, StoreError, Transition, validate,
};
use steward_protocol::{ActionStatus, ConversationId, Grant, PendingAction};

fn same_action(audit: &AuditEntry, id: &str) -> Result<(), StoreError> {
    if audit.action_id == id {
        Ok(())
    } else {
        // An entry filed under another id would make the trail lie about what happened.
        Err(StoreError::InvalidInput(
            "the audit entry names a different action".into(),
        ))
    }
}

#[async_trait::async_trait]
impl ApprovalStore for SqliteStore {
    async fn insert_action(
        &self,
        action: &PendingAction,
        audit: &AuditEntry,
    ) -> Result<(), StoreError> {
        // `validate` returns the records as they must be stored (free text scrubbed).
        let action = validate::action(action)?;
        let audit = validate::audit(audit)?;
        same_action(&audit, &action.id)?;
        self.run(move |conn| actions::insert(conn, &action, &audit))
            .await
    }

    async fn get_action(&self, id: &str) -> Result<Option<PendingAction>, StoreError> {
        validate::action_id(id)?;
        let id = id.to_owned();
        self.run(move |conn| actions::get(conn, &id)).await
    }

    async fn list_actions(
        &self,
        status: Option<ActionStatus>,
        conversation: Option<&ConversationId>,
        limit: usize,
    ) -> Result<Vec<PendingAction>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let conversation = conversation.map(|c| c.as_str().to_owned());
        self.run(move |conn| actions::list(conn, status, conversation.as_deref(), sql_limit(limit)))
            .await
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
        validate::action_id(id)?;
        if let Some(hash) = guard.expected_hash {
            validate::id("expected payload hash", hash)?;
        }
        let patch = validate::patch(patch)?;
        let audit = validate::audit(audit)?;
        same_action(&audit, id)?;
        let cas = actions::Cas {
            id: id.to_owned(),
            from: guard.from,
            expected_hash: guard.expected_hash.map(str::to_owned),
            unexpired_at_ms: guard.unexpired_at_ms,
            to,
            patch,
            audit,
            now_ms,
        };
        self.run(move |conn| actions::transition(conn, &cas)).await
    }

    async fn append_audit(&self, entry: &AuditEntry) -> Result<(), StoreError> {
        let entry = validate::audit(entry)?;
        self.run(move |conn| audit::insert_audit(conn, &entry))
            .await
    }

    async fn audit_since(&self, after: i64, limit: usize) -> Result<Vec<AuditRecord>, StoreError> {
        let limit = super::sql_limit(limit);
        self.run(move |conn| audit::audit_since(conn, after, limit))
            .await
    }

    async fn audit_head(&self) -> Result<i64, StoreError> {
        self.run(|conn| audit::audit_head(conn)).await
    }

    async fn list_audit(&self, action_id: &str) -> Result<Vec<AuditEntry>, StoreError> {
        validate::action_id(action_id)?;
        let action_id = action_id.to_owned();
        self.run(move |conn| audit::list_audit(conn, &action_id))
            .await
    }

    async fn first_audit_of(
        &self,
        action_ids: &[String],
        events: &[&str],
    ) -> Result<Vec<AuditEntry>, StoreError> {
        validate::audit_batch(action_ids, events)?;
        if action_ids.is_empty() {
            return Ok(Vec::new());
        }
        let as_json = |e: serde_json::Error| StoreError::InvalidInput(format!("{e}"));
        let ids = serde_json::to_string(action_ids).map_err(as_json)?;
        let events = serde_json::to_string(events).map_err(as_json)?;
        self.run(move |conn| audit::first_of(conn, &ids, &events))
            .await
    }

    async fn count_actions(&self, status: ActionStatus) -> Result<u64, StoreError> {
        self.run(move |conn| actions::count(conn, status)).await
    }

    async fn overdue_actions(
        &self,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<PendingAction>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.run(move |conn| actions::overdue(conn, now_ms, sql_limit(limit)))
            .await
    }

    async fn record_score(&self, score: &Score) -> Result<(), StoreError> {
        validate::score(score)?;
        let score = score.clone();
        self.run(move |conn| audit::insert_score(conn, &score))
            .await
    }

    async fn scores_for_trace(&self, trace_id: &str) -> Result<Vec<Score>, StoreError> {
        validate::id("trace id", trace_id)?;
        let trace_id = trace_id.to_owned();
        self.run(move |conn| audit::scores(conn, &trace_id)).await
    }

    async fn insert_grant(&self, grant: &Grant) -> Result<(), StoreError> {
        validate::grant(grant)?;
        let grant = grant.clone();
        self.run(move |conn| grants::insert(conn, &grant)).await
    }

    async fn list_grants(
        &self,
        include_inactive: bool,
        now_ms: i64,
    ) -> Result<Vec<Grant>, StoreError> {
        self.run(move |conn| grants::list(conn, include_inactive, now_ms))
            .await
    }

    async fn revoke_grant(&self, id: &str) -> Result<bool, StoreError> {
        validate::grant_id(id)?;
        let id = id.to_owned();
        self.run(move |conn| grants::revoke(conn, &id)).await
    }

    async fn active_grant(
        &self,
        conversation: &ConversationId,
        tool: &str,
        now_ms: i64,
    ) -> Result<Option<Grant>, StoreError> {
        if validate::tool_name(tool).is_err() {
            // Grants are written only for names that follow the tool-name rule, so no other
            // spelling can have one (and the gate asks about every call, named well or not).
            return Ok(None);
        }
        let (conversation, tool) = (conversation.as_str().to_owned(), tool.to_owned());
        self.run(move |conn| grants::active(conn, &conversation, &tool, now_ms))
            .await
    }
}
