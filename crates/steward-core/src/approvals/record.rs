//! The plumbing of the resolve path: the `Approvals` service (store, tools, settings), the
//! clock, audit entries, scores and parking a new action. Owns no status change: those are
//! all compare-and-sets in `resolve.rs`.

use super::ApprovalSettings;
use crate::port::ApprovalError;
use std::sync::Arc;
use steward_protocol::{PendingAction, PrincipalId, Surface};
use steward_store::{AuditEntry, Score, Store, StoreError};
use steward_tools::ToolRegistry;

pub(crate) struct Approvals {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) tools: Arc<ToolRegistry>,
    pub(crate) settings: ApprovalSettings,
    pub(crate) timezone: Option<String>,
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

pub(crate) fn store_err(e: StoreError) -> ApprovalError {
    tracing::error!(error = %e, "approval store failure");
    ApprovalError::Store
}

pub(crate) fn audit(
    action: &PendingAction,
    event: &str,
    detail: String,
    principal: &PrincipalId,
    surface: Surface,
) -> AuditEntry {
    AuditEntry {
        action_id: action.id.clone(),
        at_ms: now_ms(),
        principal: principal.clone(),
        surface,
        event: event.to_owned(),
        detail,
        trace_id: action.trace_id.clone(),
    }
}

impl Approvals {
    /// Park a new action (status pending) with its "created" audit entry.
    pub(crate) async fn create(&self, action: &PendingAction) -> Result<(), StoreError> {
        let entry = audit(
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
            at_ms: now_ms(),
        };
        if let Err(e) = self.store.record_score(&score).await {
            tracing::warn!(error = %e, action = %action.id, "could not record score");
        }
    }
}
