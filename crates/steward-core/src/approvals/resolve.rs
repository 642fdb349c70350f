//! The one resolve path. Every status change of a pending action happens here, through the
//! store's compare-and-set: human decisions (`resolve`), the expiry sweep, and crash
//! recovery at start. An architecture test fails if `transition_action` is called anywhere
//! else.

use super::ApprovalSettings;
use super::payload::{canonical, payload_hash};
use crate::port::ApprovalError;
use std::sync::Arc;
use steward_protocol::{ActionKind, ActionStatus, Decision, PendingAction, Principal, Surface};
use steward_store::{ActionPatch, AuditEntry, CasGuard, Score, Store, StoreError, Transition};
use steward_tools::{ToolContext, ToolRegistry};

/// Test-only crash injection: with `STEWARD_TEST_FAILPOINT=after_confirm` the process
/// aborts right after an action is confirmed and before it runs, so the crash-safety test
/// can kill Steward at exactly the worst moment.
pub const FAILPOINT_ENV: &str = "STEWARD_TEST_FAILPOINT";

/// Outcome text stored on an action that a restart interrupted.
pub const INTERRUPTED: &str = "interrupted: Steward stopped after this action was confirmed and before it finished; it was not run again";

pub(crate) enum Resolved {
    /// Applied. `continue_turn`: the agent should continue in the action's conversation.
    Applied {
        action: PendingAction,
        continue_turn: bool,
    },
    AlreadyDone(PendingAction),
    Conflict(PendingAction),
}

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

fn audit(
    action: &PendingAction,
    event: &str,
    detail: String,
    principal: &Principal,
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

    async fn cas(
        &self,
        action: &PendingAction,
        guard: CasGuard<'_>,
        to: ActionStatus,
        patch: &ActionPatch,
        entry: &AuditEntry,
    ) -> Result<Transition, ApprovalError> {
        self.store
            .transition_action(&action.id, guard, to, patch, entry, now_ms())
            .await
            .map_err(store_err)
    }

    async fn score(&self, action: &PendingAction, name: &str, value: f64) {
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

    pub(crate) async fn resolve(
        &self,
        id: &str,
        decision: Decision,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolved, ApprovalError> {
        let action = self
            .store
            .get_action(id)
            .await
            .map_err(store_err)?
            .ok_or(ApprovalError::NotFound)?;
        match decision {
            Decision::Confirm => self.confirm(action, principal, surface).await,
            Decision::Cancel => self.cancel(action, principal, surface).await,
            Decision::Revise { arguments } => {
                self.revise(action, arguments, principal, surface).await
            }
        }
    }

    async fn confirm(
        &self,
        action: PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolved, ApprovalError> {
        let now = now_ms();
        let guard = CasGuard {
            from: ActionStatus::Pending,
            expected_hash: Some(&action.payload_hash),
            unexpired_at_ms: Some(now),
        };
        let patch = ActionPatch {
            awaiting_edit: Some(false),
            ..ActionPatch::default()
        };
        let entry = audit(&action, "confirm", String::new(), principal, surface);
        let confirmed = match self
            .cas(&action, guard, ActionStatus::Confirmed, &patch, &entry)
            .await?
        {
            Transition::Applied(a) => a,
            Transition::NotFound => return Err(ApprovalError::NotFound),
            Transition::Conflict(current) => {
                return self
                    .confirm_conflict(&action, current, principal, surface)
                    .await;
            }
        };
        self.score(&confirmed, "user_approval", 1.0).await;
        if std::env::var(FAILPOINT_ENV).as_deref() == Ok("after_confirm") {
            // Simulates a crash between confirm and execute (see FAILPOINT_ENV).
            std::process::abort();
        }
        let finished = self.execute(confirmed, principal, surface).await?;
        Ok(Resolved::Applied {
            action: finished,
            continue_turn: true,
        })
    }

    /// Why a confirm lost the compare-and-set, told honestly.
    async fn confirm_conflict(
        &self,
        seen: &PendingAction,
        current: PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolved, ApprovalError> {
        match current.status {
            ActionStatus::Confirmed | ActionStatus::Executed | ActionStatus::Failed
                if current.payload_hash == seen.payload_hash =>
            {
                Ok(Resolved::AlreadyDone(current))
            }
            ActionStatus::Pending if current.expires_at_ms <= now_ms() => {
                // Overdue but not yet swept: expire it now; a late confirm never runs.
                let expired = self.expire_one(&current, principal, surface).await?;
                Ok(Resolved::Conflict(expired))
            }
            _ => Ok(Resolved::Conflict(current)),
        }
    }

    /// Run a confirmed action through the registry against exactly the approved payload,
    /// then record executed or failed.
    async fn execute(
        &self,
        action: PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<PendingAction, ApprovalError> {
        let (ok, output) = match action.kind {
            ActionKind::Plan => (
                true,
                "plan approved; each consequential step will still ask for approval".to_owned(),
            ),
            ActionKind::Tool => self.run_tool(&action).await,
        };
        let to = if ok {
            ActionStatus::Executed
        } else {
            ActionStatus::Failed
        };
        let patch = ActionPatch {
            outcome: Some(output.clone()),
            ..ActionPatch::default()
        };
        let event = if ok { "executed" } else { "failed" };
        let entry = audit(&action, event, String::new(), principal, surface);
        let guard = CasGuard {
            from: ActionStatus::Confirmed,
            expected_hash: Some(&action.payload_hash),
            unexpired_at_ms: None,
        };
        match self.cas(&action, guard, to, &patch, &entry).await? {
            Transition::Applied(a) | Transition::Conflict(a) => Ok(a),
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    async fn run_tool(&self, action: &PendingAction) -> (bool, String) {
        // Defence in depth: the stored payload must still be the approved one.
        if payload_hash(&action.tool, &action.arguments) != action.payload_hash {
            return (
                false,
                "error: the payload does not match what was approved; not run".into(),
            );
        }
        let args: serde_json::Value = match serde_json::from_str(&action.arguments) {
            Ok(v) => v,
            Err(e) => return (false, format!("error: stored arguments are not JSON: {e}")),
        };
        let prepared = match self.tools.prepare_value(&action.tool, args) {
            Ok(p) => p,
            Err(outcome) => return (false, outcome.output),
        };
        let ctx = ToolContext::new(action.conversation.clone(), self.timezone.clone());
        let outcome = self.tools.run_prepared(&prepared, &ctx).await;
        (outcome.ok, outcome.output)
    }

    async fn cancel(
        &self,
        action: PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolved, ApprovalError> {
        let guard = CasGuard {
            from: ActionStatus::Pending,
            expected_hash: None,
            unexpired_at_ms: None,
        };
        let patch = ActionPatch {
            outcome: Some("cancelled by the user".into()),
            awaiting_edit: Some(false),
            ..ActionPatch::default()
        };
        let entry = audit(&action, "cancel", String::new(), principal, surface);
        match self
            .cas(&action, guard, ActionStatus::Cancelled, &patch, &entry)
            .await?
        {
            Transition::Applied(a) => {
                self.score(&a, "user_approval", 0.0).await;
                Ok(Resolved::Applied {
                    action: a,
                    continue_turn: false,
                })
            }
            Transition::Conflict(cur) if cur.status == ActionStatus::Cancelled => {
                Ok(Resolved::AlreadyDone(cur))
            }
            Transition::Conflict(cur) => Ok(Resolved::Conflict(cur)),
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    async fn revise(
        &self,
        action: PendingAction,
        arguments: serde_json::Value,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolved, ApprovalError> {
        if action.kind == ActionKind::Plan {
            return Err(ApprovalError::Invalid(
                "a plan cannot be revised; cancel it and ask again".into(),
            ));
        }
        // The originating tool's own validator re-checks the new payload.
        let prepared = self
            .tools
            .prepare_value(&action.tool, arguments)
            .map_err(|o| ApprovalError::Invalid(o.output))?;
        let text = canonical(&prepared.args);
        let hash = payload_hash(&action.tool, &text);
        let ctx = ToolContext::new(action.conversation.clone(), self.timezone.clone());
        let preview = match self.tools.preview(&prepared, &ctx).await {
            Some(Ok(p)) => p,
            Some(Err(e)) => format!("preview failed: {e}"),
            None => String::new(),
        };
        let patch = ActionPatch {
            arguments: Some(text.clone()),
            payload_hash: Some(hash.clone()),
            preview: Some(preview),
            awaiting_edit: Some(false),
            bump_revision: true,
            ..ActionPatch::default()
        };
        let guard = CasGuard {
            from: ActionStatus::Pending,
            expected_hash: Some(&action.payload_hash),
            unexpired_at_ms: Some(now_ms()),
        };
        let entry = audit(&action, "revise", text, principal, surface);
        match self
            .cas(&action, guard, ActionStatus::Pending, &patch, &entry)
            .await?
        {
            Transition::Applied(a) => {
                self.score(&a, "user_edit", 1.0).await;
                Ok(Resolved::Applied {
                    action: a,
                    continue_turn: false,
                })
            }
            Transition::Conflict(cur)
                if cur.status == ActionStatus::Pending && cur.payload_hash == hash =>
            {
                Ok(Resolved::AlreadyDone(cur))
            }
            Transition::Conflict(cur) => Ok(Resolved::Conflict(cur)),
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    /// Mark (or unmark) a pending action as awaiting an edit in words. Status unchanged.
    pub(crate) async fn set_awaiting_edit(
        &self,
        id: &str,
        awaiting: bool,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolved, ApprovalError> {
        let action = self
            .store
            .get_action(id)
            .await
            .map_err(store_err)?
            .ok_or(ApprovalError::NotFound)?;
        let guard = CasGuard {
            from: ActionStatus::Pending,
            expected_hash: None,
            unexpired_at_ms: None,
        };
        let patch = ActionPatch {
            awaiting_edit: Some(awaiting),
            ..ActionPatch::default()
        };
        let event = if awaiting {
            "edit_requested"
        } else {
            "edit_closed"
        };
        let entry = audit(&action, event, String::new(), principal, surface);
        match self
            .cas(&action, guard, ActionStatus::Pending, &patch, &entry)
            .await?
        {
            Transition::Applied(a) => Ok(Resolved::Applied {
                action: a,
                continue_turn: false,
            }),
            Transition::Conflict(cur) => Ok(Resolved::Conflict(cur)),
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    async fn expire_one(
        &self,
        action: &PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<PendingAction, ApprovalError> {
        let guard = CasGuard {
            from: ActionStatus::Pending,
            expected_hash: None,
            unexpired_at_ms: None,
        };
        let patch = ActionPatch {
            outcome: Some("expired before anyone decided".into()),
            awaiting_edit: Some(false),
            ..ActionPatch::default()
        };
        let entry = audit(action, "expire", String::new(), principal, surface);
        match self
            .cas(action, guard, ActionStatus::Expired, &patch, &entry)
            .await?
        {
            Transition::Applied(a) | Transition::Conflict(a) => Ok(a),
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    /// The sweep: expire every overdue pending action, even if nobody looks.
    pub(crate) async fn expire_overdue(&self) -> Result<usize, ApprovalError> {
        let overdue = self
            .store
            .overdue_actions(now_ms(), 500)
            .await
            .map_err(store_err)?;
        let mut n = 0;
        for action in &overdue {
            let a = self
                .expire_one(action, &Principal("system".into()), Surface::System)
                .await?;
            if a.status == ActionStatus::Expired {
                n += 1;
            }
        }
        Ok(n)
    }

    /// At start: an action confirmed but never finished was interrupted by a crash. It is
    /// marked failed and never run again by itself; a restart never approves anything.
    /// Returns the actions marked, so the caller can tell their owners.
    pub(crate) async fn recover_interrupted(&self) -> Result<Vec<PendingAction>, ApprovalError> {
        let stuck = self
            .store
            .list_actions(Some(ActionStatus::Confirmed), None, 1000)
            .await
            .map_err(store_err)?;
        let mut out = Vec::new();
        for action in stuck {
            let guard = CasGuard {
                from: ActionStatus::Confirmed,
                expected_hash: None,
                unexpired_at_ms: None,
            };
            let patch = ActionPatch {
                outcome: Some(INTERRUPTED.into()),
                ..ActionPatch::default()
            };
            let entry = audit(
                &action,
                "interrupted",
                String::new(),
                &Principal("system".into()),
                Surface::System,
            );
            if let Transition::Applied(a) = self
                .cas(&action, guard, ActionStatus::Failed, &patch, &entry)
                .await?
            {
                out.push(a);
            }
        }
        Ok(out)
    }
}
