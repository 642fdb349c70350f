//! The plumbing of the resolve path: the `Approvals` service (store, tools, settings), the
//! clock, audit entries, scores and parking a new action. Owns no status change: those are
//! all compare-and-sets in `resolve.rs`.

use super::ApprovalSettings;
use crate::port::ApprovalError;
use std::sync::Arc;
use steward_protocol::{Clock, PendingAction, PrincipalId, Surface};
use steward_store::{AuditEntry, Score, Store, StoreError};
use steward_tools::ToolRegistry;

pub(crate) struct Approvals {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) tools: Arc<ToolRegistry>,
    pub(crate) settings: ApprovalSettings,
    /// The agent's live settings: an approved action runs in the owner's current time zone.
    pub(crate) agent: Arc<crate::settings::Live<crate::settings::AgentSettings>>,
    /// "Now" for expiry checks, grants, audit entries and scores.
    pub(crate) clock: Arc<dyn Clock>,
}

pub(crate) fn store_err(e: StoreError) -> ApprovalError {
    tracing::error!(error = %e, "approval store failure");
    ApprovalError::Store
}

impl Approvals {
    /// Unix milliseconds now, by the assistant's clock.
    pub(crate) fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// An audit entry for `action`, stamped now.
    pub(crate) fn audit(
        &self,
        action: &PendingAction,
        event: &str,
        detail: String,
        principal: &PrincipalId,
        surface: Surface,
    ) -> AuditEntry {
        AuditEntry {
            action_id: action.id.clone(),
            at_ms: self.now_ms(),
            principal: principal.clone(),
            surface,
            event: event.to_owned(),
            detail,
            trace_id: action.trace_id.clone(),
        }
    }

    /// Park a new action (status pending) with its "created" audit entry.
    pub(crate) async fn create(&self, action: &PendingAction) -> Result<(), StoreError> {
        let entry = self.audit(
            action,
            "created",
            String::new(),
            &action.principal,
            action.surface,
        );
        self.store.insert_action(action, &entry).await
    }

    pub(crate) async fn score(&self, action: &PendingAction, name: &str, value: f64) {
        let score = Score {
            trace_id: action.trace_id.clone(),
            name: name.to_owned(),
            value,
            action_id: Some(action.id.clone()),
            genre: None,
            at_ms: self.now_ms(),
        };
        if let Err(e) = self.store.record_score(&score).await {
            tracing::warn!(error = %e, action = %action.id, "could not record score");
        }
    }
}
