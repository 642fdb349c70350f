//! The one resolve path. Every status change of a pending action happens here, through the
//! store's compare-and-set: human decisions (`resolve`), the record of execution (confirmed →
//! running → executed | failed), the expiry sweep, and crash recovery at start. An
//! architecture test fails if `transition_action` is called anywhere else. Running the tool
//! itself, and the texts and failpoints around it, live in `run.rs`.

use super::follow_up::{FollowUps, follow_up};
use super::record::{Approvals, store_err};
use super::run::{INTERRUPTED, RunResult, UNRECORDABLE, effect_changed_record, failpoint};
use crate::port::{ApprovalError, Resolution};
use steward_protocol::{
    ActionStatus, Decision, DecisionKind, PendingAction, Principal, PrincipalId, Surface,
};
use steward_store::{ActionPatch, AuditEntry, CasGuard, Transition};

/// A confirmed action after its run was recorded.
struct Finished {
    action: PendingAction,
    reissued: Option<Box<PendingAction>>,
}

impl Approvals {
    async fn cas(
        &self,
        action: &PendingAction,
        guard: CasGuard<'_>,
        to: ActionStatus,
        patch: &ActionPatch,
        entry: &AuditEntry,
    ) -> Result<Transition, ApprovalError> {
        self.store
            .transition_action(&action.id, guard, to, patch, entry, self.now_ms())
            .await
            .map_err(store_err)
    }

    /// The action `id` if it is `principal`'s: another principal's action is not found, so
    /// nobody decides (and runs, as themselves) what someone else's turn asked for.
    async fn action_of(
        &self,
        id: &str,
        principal: &Principal,
    ) -> Result<PendingAction, ApprovalError> {
        match self.store.get_action(id).await.map_err(store_err)? {
            Some(action) if &action.principal == principal.id() => Ok(action),
            _ => Err(ApprovalError::NotFound),
        }
    }

    pub(crate) async fn resolve(
        &self,
        id: &str,
        decision: Decision,
        principal: &Principal,
        surface: Surface,
        follow: Option<&dyn FollowUps>,
    ) -> Result<Resolution, ApprovalError> {
        let action = self.action_of(id, principal).await?;
        match decision {
            Decision::Confirm { revision } => {
                self.confirm(action, revision, principal, surface, follow)
                    .await
            }
            Decision::Cancel => self.cancel(action, principal, surface).await,
            Decision::Revise { arguments } => {
                self.revise(action, arguments, principal, surface).await
            }
        }
    }

    async fn confirm(
        &self,
        action: PendingAction,
        shown_revision: u32,
        principal: &Principal,
        surface: Surface,
        follow: Option<&dyn FollowUps>,
    ) -> Result<Resolution, ApprovalError> {
        if action.revision != shown_revision {
            // Approval binds to the effect the owner saw: a card revised since it was shown
            // is not confirmed, nothing runs, and the surface gets the current card. (The
            // hash guard below covers a revision landing between this read and the CAS.)
            return self.not_applied(action, principal, surface).await;
        }
        let now = self.now_ms();
        let guard = CasGuard {
            from: ActionStatus::Pending,
            expected_hash: Some(&action.payload_hash),
            unexpired_at_ms: Some(now),
        };
        let patch = ActionPatch {
            awaiting_edit: Some(false),
            ..ActionPatch::default()
        };
        let entry = self.audit(
            &action,
            DecisionKind::Confirm.as_str(),
            String::new(),
            principal.id(),
            surface,
        );
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
        // Simulates a crash between confirm and running (see FAILPOINT_ENV).
        failpoint("after_confirm");
        let Finished { action, reissued } = self.execute(confirmed, principal, surface).await?;
        // The agent continues in the action's conversation from the result.
        let follow_up = follow.map(|f| follow_up(f, &action, reissued.as_deref(), principal));
        Ok(Resolution::Applied { action, follow_up })
    }

    /// Why a confirm lost the compare-and-set, told honestly.
    async fn confirm_conflict(
        &self,
        seen: &PendingAction,
        current: PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolution, ApprovalError> {
        match current.status {
            ActionStatus::Confirmed
            | ActionStatus::Running
            | ActionStatus::Executed
            | ActionStatus::Failed
                if current.payload_hash == seen.payload_hash =>
            {
                Ok(Resolution::AlreadyDone { action: current })
            }
            // Overdue but not yet swept: expired now (a late confirm never runs); or revised.
            _ => self.not_applied(current, principal, surface).await,
        }
    }

    /// Run a confirmed action against exactly the approved payload, with a true record:
    /// `running` (and its audit entry) is written before the tool starts, then executed or
    /// failed; an effect that changed since approval fails it unrun and issues a new card.
    async fn execute(
        &self,
        action: PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Finished, ApprovalError> {
        let guard = CasGuard {
            from: ActionStatus::Confirmed,
            expected_hash: Some(&action.payload_hash),
            unexpired_at_ms: None,
        };
        let entry = self.audit(&action, "running", String::new(), principal.id(), surface);
        let running = match self
            .cas(
                &action,
                guard,
                ActionStatus::Running,
                &ActionPatch::default(),
                &entry,
            )
            .await?
        {
            Transition::Applied(a) => a,
            // Someone else took it on (or recovery ended it): never run twice.
            Transition::Conflict(a) => {
                return Ok(Finished {
                    action: a,
                    reissued: None,
                });
            }
            Transition::NotFound => return Err(ApprovalError::NotFound),
        };
        // The tool acts for whoever confirmed (the action is theirs: `action_of`), never for
        // a principal read back from the stored record.
        let result = self.run_action(&running, principal).await;
        // Simulates a crash after the effect and before its record (see FAILPOINT_ENV).
        failpoint("while_running");
        match result {
            RunResult::Done { ok, output } => {
                let action = self
                    .record(&running, ok, output, principal, surface)
                    .await?;
                Ok(Finished {
                    action,
                    reissued: None,
                })
            }
            RunResult::EffectChanged { preview } => {
                self.effect_changed(&running, preview, principal, surface)
                    .await
            }
        }
    }

    /// running → executed | failed with the output. The store keeps any output (sanitised);
    /// if writing it fails anyway, the result is recorded without it rather than leaving the
    /// action `running`.
    async fn record(
        &self,
        running: &PendingAction,
        ok: bool,
        output: String,
        principal: &Principal,
        surface: Surface,
    ) -> Result<PendingAction, ApprovalError> {
        let to = if ok {
            ActionStatus::Executed
        } else {
            ActionStatus::Failed
        };
        let event = if ok { "executed" } else { "failed" };
        let entry = self.audit(running, event, String::new(), principal.id(), surface);
        let guard = CasGuard {
            from: ActionStatus::Running,
            expected_hash: Some(&running.payload_hash),
            unexpired_at_ms: None,
        };
        let patch = ActionPatch {
            outcome: Some(output),
            ..ActionPatch::default()
        };
        let written = match self.cas(running, guard, to, &patch, &entry).await {
            Ok(t) => t,
            Err(_) => {
                let bare = ActionPatch {
                    outcome: Some(UNRECORDABLE.into()),
                    ..ActionPatch::default()
                };
                self.cas(running, guard, to, &bare, &entry).await?
            }
        };
        match written {
            Transition::Applied(a) => Ok(a),
            Transition::Conflict(a) => {
                // Recovery (another process starting) ended it meanwhile: keep the truth
                // that it did finish in the trail, without rewriting the record.
                let detail = serde_json::json!({ "ok": ok }).to_string();
                let late = self.audit(running, "finished_late", detail, principal.id(), surface);
                if let Err(e) = self.store.append_audit(&late).await {
                    tracing::warn!(error = %e, action = %running.id, "could not audit a late result");
                }
                Ok(a)
            }
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    /// The tool refused because its effect is no longer what the owner saw: it changed
    /// nothing. The action ends failed with `EFFECT_CHANGED`, and a new pending card with
    /// the same payload and the new preview takes its place.
    async fn effect_changed(
        &self,
        running: &PendingAction,
        preview: String,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Finished, ApprovalError> {
        let fresh = self.reissue(running, preview);
        let reissued = match self.create(&fresh).await {
            Ok(()) => Some(Box::new(fresh)),
            Err(e) => {
                tracing::error!(error = %e, action = %running.id, "could not issue the new card");
                None
            }
        };
        let (outcome, detail) = effect_changed_record(reissued.as_deref());
        let guard = CasGuard {
            from: ActionStatus::Running,
            expected_hash: Some(&running.payload_hash),
            unexpired_at_ms: None,
        };
        let patch = ActionPatch {
            outcome: Some(outcome),
            ..ActionPatch::default()
        };
        let entry = self.audit(running, "effect_changed", detail, principal.id(), surface);
        match self
            .cas(running, guard, ActionStatus::Failed, &patch, &entry)
            .await?
        {
            Transition::Applied(action) | Transition::Conflict(action) => {
                Ok(Finished { action, reissued })
            }
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    async fn cancel(
        &self,
        action: PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolution, ApprovalError> {
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
        let entry = self.audit(
            &action,
            DecisionKind::Cancel.as_str(),
            String::new(),
            principal.id(),
            surface,
        );
        match self
            .cas(&action, guard, ActionStatus::Cancelled, &patch, &entry)
            .await?
        {
            Transition::Applied(a) => {
                self.score(&a, "user_approval", 0.0).await;
                Ok(Resolution::Applied {
                    action: a,
                    follow_up: None,
                })
            }
            Transition::Conflict(cur) if cur.status == ActionStatus::Cancelled => {
                Ok(Resolution::AlreadyDone { action: cur })
            }
            Transition::Conflict(cur) => Ok(not_current(cur)),
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    async fn revise(
        &self,
        action: PendingAction,
        arguments: serde_json::Value,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolution, ApprovalError> {
        let (text, hash, preview) = self.revised_payload(&action, arguments, principal).await?;
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
            unexpired_at_ms: Some(self.now_ms()),
        };
        let entry = self.audit(&action, "revise", text, principal.id(), surface);
        match self
            .cas(&action, guard, ActionStatus::Pending, &patch, &entry)
            .await?
        {
            Transition::Applied(a) => {
                self.score(&a, "user_edit", 1.0).await;
                Ok(Resolution::Applied {
                    action: a,
                    follow_up: None,
                })
            }
            Transition::Conflict(cur)
                if cur.status == ActionStatus::Pending && cur.payload_hash == hash =>
            {
                Ok(Resolution::AlreadyDone { action: cur })
            }
            Transition::Conflict(cur) => self.not_applied(cur, principal, surface).await,
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    /// A decision that did not apply, reported as the action now is. An overdue pending
    /// action is expired first, so a conflict with a still-`pending` action only ever means
    /// the card was revised since it was shown (surfaces call that stale).
    async fn not_applied(
        &self,
        current: PendingAction,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolution, ApprovalError> {
        if current.status == ActionStatus::Pending && current.expires_at_ms <= self.now_ms() {
            let expired = self.expire_one(&current, principal.id(), surface).await?;
            return Ok(not_current(expired));
        }
        Ok(not_current(current))
    }

    /// Mark (or unmark) a pending action as awaiting an edit in words. Status unchanged.
    pub(crate) async fn set_awaiting_edit(
        &self,
        id: &str,
        awaiting: bool,
        principal: &Principal,
        surface: Surface,
    ) -> Result<Resolution, ApprovalError> {
        let action = self.action_of(id, principal).await?;
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
        let entry = self.audit(&action, event, String::new(), principal.id(), surface);
        match self
            .cas(&action, guard, ActionStatus::Pending, &patch, &entry)
            .await?
        {
            Transition::Applied(a) => Ok(Resolution::Applied {
                action: a,
                follow_up: None,
            }),
            Transition::Conflict(cur) => Ok(not_current(cur)),
            Transition::NotFound => Err(ApprovalError::NotFound),
        }
    }

    async fn expire_one(
        &self,
        action: &PendingAction,
        principal: &PrincipalId,
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
        let entry = self.audit(
            action,
            DecisionKind::Expire.as_str(),
            String::new(),
            principal,
            surface,
        );
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
            .overdue_actions(self.now_ms(), 500)
            .await
            .map_err(store_err)?;
        let mut n = 0;
        for action in &overdue {
            let a = self
                .expire_one(action, &PrincipalId::system(), Surface::System)
                .await?;
            if a.status == ActionStatus::Expired {
                n += 1;
            }
        }
        Ok(n)
    }

    /// At start: an action left `confirmed` or `running` was interrupted by a crash before
    /// its result was recorded, so it may have run. It is marked failed with `INTERRUPTED`
    /// ("it may have run") and never run again by itself; a restart never approves
    /// anything. Returns the actions marked, so the caller can tell their owners.
    pub(crate) async fn recover_interrupted(&self) -> Result<Vec<PendingAction>, ApprovalError> {
        let mut out = Vec::new();
        for status in [ActionStatus::Confirmed, ActionStatus::Running] {
            let stuck = self
                .store
                .list_actions(Some(status), None, 1000)
                .await
                .map_err(store_err)?;
            for action in stuck {
                let guard = CasGuard {
                    from: status,
                    expected_hash: None,
                    unexpired_at_ms: None,
                };
                let patch = ActionPatch {
                    outcome: Some(INTERRUPTED.into()),
                    ..ActionPatch::default()
                };
                let detail = serde_json::json!({ "was": status.as_str() }).to_string();
                let entry = self.audit(
                    &action,
                    "interrupted",
                    detail,
                    &PrincipalId::system(),
                    Surface::System,
                );
                if let Transition::Applied(a) = self
                    .cas(&action, guard, ActionStatus::Failed, &patch, &entry)
                    .await?
                {
                    out.push(a);
                }
            }
        }
        Ok(out)
    }
}

/// A decision that lost to the action's current state. Still `pending` yet not applied means
/// the card the decision was made on is not the current one (it was revised): `Stale`.
fn not_current(action: PendingAction) -> Resolution {
    if action.status == ActionStatus::Pending {
        Resolution::Stale { action }
    } else {
        Resolution::Conflict { action }
    }
}
