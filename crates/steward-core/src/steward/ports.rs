//! `Steward` as each port a surface holds: the `Assistant` (submit, cancel), the
//! `ApprovalDesk`, the `EventFeed`, delivery, and `FollowUps` for the approval code. Each is a
//! thin hand-off to the part of core that owns the work, so a surface has one object and core
//! keeps one path per operation.
//!
//! Owns: that wiring. Does not own: any of the behaviour (the turn, `approvals/desk.rs`,
//! `feed`, `delivery`).

use super::Steward;
use crate::approvals::FollowUps;
use crate::approvals::card::render_card;
use crate::delivery::{Deliver, Delivery, DeliveryError, DeliveryTarget, Proactive};
use crate::feed::{EventFeed, Subscription};
use crate::port::{ApprovalDesk, ApprovalError, Assistant, FeedbackDesk, Resolution, TurnStream};
use crate::turn::TurnKind;
use std::sync::Arc;
use std::time::Duration;
use steward_protocol::{
    ActionCard, ActionDecided, ActionStatus, AuditStep, ConversationId, Decision, Grant, Inbound,
    PendingAction, Principal, RequestKey, Surface,
};

#[async_trait::async_trait]
impl Assistant for Steward {
    fn submit(&self, inbound: Inbound) -> TurnStream {
        self.enqueue(inbound, TurnKind::User)
    }

    fn cancel(&self, conversation: &ConversationId) -> bool {
        Steward::cancel(self, conversation)
    }

    fn model_label(&self) -> Option<String> {
        Steward::model_label(self)
    }

    async fn conversation_of(&self, key: &RequestKey) -> Option<ConversationId> {
        match self.inner.deps.store.turn_request(key.id()).await {
            Ok(record) => record.map(|r| r.conversation),
            Err(e) => {
                tracing::warn!(error = %e, "could not look up a retried request");
                None
            }
        }
    }
}

impl FollowUps for Steward {
    fn continue_turn(&self, inbound: Inbound) -> TurnStream {
        self.enqueue(inbound, TurnKind::FollowUp)
    }
}

#[async_trait::async_trait]
impl ApprovalDesk for Steward {
    async fn resolve(
        &self,
        id: &str,
        decision: Decision,
        principal: Principal,
        surface: Surface,
    ) -> Result<Resolution, ApprovalError> {
        let approvals = &self.inner.deps.approvals;
        approvals
            .decide(id, decision, principal, surface, self)
            .await
    }

    async fn request_edit(
        &self,
        id: &str,
        principal: Principal,
        surface: Surface,
    ) -> Result<PendingAction, ApprovalError> {
        self.inner
            .deps
            .approvals
            .request_edit(id, principal, surface)
            .await
    }

    async fn get(&self, id: &str) -> Result<Option<PendingAction>, ApprovalError> {
        self.inner.deps.approvals.get(id).await
    }

    async fn list(
        &self,
        status: Option<ActionStatus>,
        limit: usize,
    ) -> Result<Vec<PendingAction>, ApprovalError> {
        self.inner.deps.approvals.list(status, limit).await
    }

    async fn decisions(
        &self,
        actions: &[PendingAction],
    ) -> Result<Vec<Option<ActionDecided>>, ApprovalError> {
        self.inner.deps.approvals.decisions(actions).await
    }

    async fn trail(&self, id: &str) -> Result<Vec<AuditStep>, ApprovalError> {
        self.inner.deps.approvals.trail(id).await
    }

    async fn pending_count(&self) -> Result<u64, ApprovalError> {
        self.inner.deps.approvals.pending_count().await
    }

    fn card(&self, action: &PendingAction, max_chars: Option<usize>) -> ActionCard {
        render_card(action, max_chars)
    }

    async fn grant(
        &self,
        conversation: ConversationId,
        tool: String,
        hours: u32,
        principal: Principal,
    ) -> Result<Grant, ApprovalError> {
        self.inner
            .deps
            .approvals
            .grant(conversation, tool, hours, principal)
            .await
    }

    async fn grants(&self) -> Result<Vec<Grant>, ApprovalError> {
        self.inner.deps.approvals.grants().await
    }

    async fn revoke_grant(&self, id: &str) -> Result<bool, ApprovalError> {
        self.inner.deps.approvals.revoke_grant(id).await
    }
}

#[async_trait::async_trait]
impl FeedbackDesk for Steward {
    async fn record_feedback(
        &self,
        trace_id: &str,
        positive: bool,
        genre: &str,
        principal: &Principal,
        surface: Surface,
    ) -> Result<(), ApprovalError> {
        let deps = &self.inner.deps;
        let score = steward_store::Score {
            trace_id: trace_id.to_owned(),
            name: "user_feedback".to_owned(),
            value: if positive { 1.0 } else { 0.0 },
            action_id: None,
            genre: Some(genre.to_owned()),
            at_ms: deps.clock.now_ms(),
        };
        match deps.store.record_score(&score).await {
            Ok(()) => {
                tracing::info!(
                    trace_id,
                    genre,
                    positive,
                    by = principal.as_str(),
                    surface = surface.as_str(),
                    "user feedback recorded"
                );
                Ok(())
            }
            Err(steward_store::StoreError::InvalidInput(reason)) => {
                Err(ApprovalError::Invalid(reason))
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not record user feedback");
                Err(ApprovalError::Store)
            }
        }
    }
}

impl EventFeed for Steward {
    fn subscribe(&self, conversation: Option<ConversationId>) -> Subscription {
        Steward::subscribe(self, conversation)
    }
}

impl Steward {
    /// Subscribe to the event feed: every turn event of this process and every approval
    /// change on this database, for `conversation` only when one is named.
    pub fn subscribe(&self, conversation: Option<ConversationId>) -> Subscription {
        self.inner
            .deps
            .feed
            .subscribe(&self.inner.deps.store, conversation)
    }

    /// Start-up duties of the approval desk: crash recovery (actions a crash left confirmed or
    /// running are marked interrupted, never re-run, and their owners told) and one expiry
    /// sweep; then, with `sweep_every`, a sweep that often until shutdown (None: the caller
    /// runs `expire_overdue` on its own schedule — `steward serve`'s scheduler does).
    /// Returns how many were marked interrupted.
    pub async fn start_approvals(
        &self,
        sweep_every: Option<Duration>,
    ) -> Result<usize, ApprovalError> {
        let stop = self.inner.deps.hard_stop.clone();
        self.inner.deps.approvals.start(sweep_every, stop).await
    }

    /// Expire overdue pending actions now (the sweep calls this too).
    pub async fn expire_overdue(&self) -> Result<usize, ApprovalError> {
        self.inner.deps.approvals.expire_overdue().await
    }

    /// The surface's deliverer from now on (the composition root registers each surface).
    pub fn register_delivery(&self, surface: Surface, deliver: Arc<dyn Deliver>) {
        self.inner.deliverers.register(surface, deliver);
    }

    /// Put `message` in front of the owner on `target`: stored, published, sent.
    pub async fn deliver(
        &self,
        target: &DeliveryTarget,
        message: &Proactive,
    ) -> Result<Delivery, DeliveryError> {
        let deps = &self.inner.deps;
        self.inner
            .deliverers
            .deliver(deps.store.as_ref(), &deps.feed, target, message)
            .await
    }
}
