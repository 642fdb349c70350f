//! The desk every surface decides at (`ApprovalDesk`, implemented by `Steward` by handing
//! each call to these methods), plus the approval chores the process owns: crash recovery at
//! start (and its notice in the conversation) and the expiry sweep.
//!
//! Owns: those operations over `Approvals`. Does not own: status changes (`resolve.rs`, the
//! one resolve path), the follow-up turn (`follow_up.rs`, started through `FollowUps`), or the
//! queues (`steward`).

use super::follow_up::FollowUps;
use super::record::{Approvals, store_err};
use crate::port::{ApprovalError, Resolution};
use std::sync::Arc;
use std::time::Duration;
use steward_protocol::{
    ActionStatus, ConversationId, Decision, Grant, Message, PendingAction, Principal, Surface,
};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

const MAX_GRANT_HOURS: u32 = 168;

impl Approvals {
    /// Start-up duties: mark actions a crash interrupted (left confirmed or running) as
    /// failed — "interrupted — it may have run", never re-run — and tell their owners in
    /// their conversations, and expire what is overdue now; then, with `sweep_every`, expire
    /// overdue cards that often in the background until `stop` (None: the caller sweeps —
    /// `steward serve`'s scheduler runs the sweep as a job). Returns how many actions were
    /// marked interrupted.
    pub(crate) async fn start(
        self: &Arc<Self>,
        sweep_every: Option<Duration>,
        stop: CancellationToken,
    ) -> Result<usize, ApprovalError> {
        let interrupted = self.recover_interrupted().await?;
        for action in &interrupted {
            tracing::warn!(action = %action.id, tool = %action.tool, "action interrupted by a restart (it may have run); marked failed");
            let notice = format!(
                "⚠ The approved action `{}` (id {}) was interrupted — it may have run: Steward stopped before recording its result. Steward did not retry it; check whether it took effect and ask me to retry if needed.",
                action.tool, action.id
            );
            let _ = self
                .store
                .append_messages(&action.conversation, &[Message::assistant(notice, vec![])])
                .await;
        }
        let _ = self.expire_overdue().await;
        let Some(sweep_every) = sweep_every else {
            return Ok(interrupted.len());
        };
        let approvals = Arc::clone(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(sweep_every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tick.tick() => {
                        if let Err(e) = approvals.expire_overdue().await {
                            tracing::warn!(error = %e, "expiry sweep failed");
                        }
                    }
                }
            }
        });
        Ok(interrupted.len())
    }

    /// `ApprovalDesk::resolve`: a confirm that ran continues the agent through `follow`.
    pub(crate) async fn decide(
        &self,
        id: &str,
        decision: Decision,
        principal: Principal,
        surface: Surface,
        follow: &dyn FollowUps,
    ) -> Result<Resolution, ApprovalError> {
        let span =
            tracing::info_span!("approval_resolve", action = %id, decision = decision.name());
        self.resolve(id, decision, &principal, surface, Some(follow))
            .instrument(span)
            .await
    }

    pub(crate) async fn request_edit(
        &self,
        id: &str,
        principal: Principal,
        surface: Surface,
    ) -> Result<PendingAction, ApprovalError> {
        match self
            .set_awaiting_edit(id, true, &principal, surface)
            .await?
        {
            Resolution::Applied { action, .. } | Resolution::AlreadyDone { action } => Ok(action),
            Resolution::Conflict { action } | Resolution::Stale { action } => {
                Err(ApprovalError::Invalid(format!(
                    "the action is {}, not pending",
                    action.status.as_str()
                )))
            }
        }
    }

    pub(crate) async fn get(&self, id: &str) -> Result<Option<PendingAction>, ApprovalError> {
        self.store.get_action(id).await.map_err(store_err)
    }

    pub(crate) async fn list(
        &self,
        status: Option<ActionStatus>,
        limit: usize,
    ) -> Result<Vec<PendingAction>, ApprovalError> {
        self.store
            .list_actions(status, None, limit)
            .await
            .map_err(store_err)
    }

    pub(crate) async fn grant(
        &self,
        conversation: ConversationId,
        tool: String,
        hours: u32,
        principal: Principal,
    ) -> Result<Grant, ApprovalError> {
        if !(1..=MAX_GRANT_HOURS).contains(&hours) {
            return Err(ApprovalError::Invalid(format!(
                "hours must be between 1 and {MAX_GRANT_HOURS}"
            )));
        }
        match self.tools.get(&tool) {
            None => return Err(ApprovalError::Invalid(format!("no tool named `{tool}`"))),
            Some(t) if !t.grantable() => {
                return Err(ApprovalError::Invalid(format!(
                    "`{tool}` cannot be granted: each of its runs needs its own approval"
                )));
            }
            Some(_) => {}
        }
        let now = self.now_ms();
        let grant = Grant {
            id: uuid::Uuid::new_v4().to_string(),
            conversation,
            tool,
            principal: principal.id().clone(),
            created_at_ms: now,
            expires_at_ms: now + i64::from(hours) * 3_600_000,
            revoked: false,
        };
        self.store.insert_grant(&grant).await.map_err(store_err)?;
        Ok(grant)
    }

    pub(crate) async fn grants(&self) -> Result<Vec<Grant>, ApprovalError> {
        self.store
            .list_grants(true, self.now_ms())
            .await
            .map_err(store_err)
    }

    pub(crate) async fn revoke_grant(&self, id: &str) -> Result<bool, ApprovalError> {
        self.store.revoke_grant(id).await.map_err(store_err)
    }
}
