//! The ports every surface talks to. A surface hands in an `Inbound` and projects the
//! `TurnEvent`s it gets back; approvals go through `ApprovalDesk`, whose `resolve` is the one
//! way an action leaves `pending`. Surfaces never call the model, tools or store themselves.

use steward_protocol::{
    ActionCard, ActionDecided, ActionStatus, AuditStep, ConversationId, Decision, Grant, Inbound,
    PendingAction, Principal, RequestKey, Surface, TurnEvent,
};
use tokio::sync::mpsc;

/// The events of one turn: exactly one `Started` first, exactly one terminal event
/// (`Final` or `Failed`) last, then the channel closes.
pub type TurnStream = mpsc::Receiver<TurnEvent>;

/// What a surface needs from the assistant.
#[async_trait::async_trait]
pub trait Assistant: Send + Sync + 'static {
    /// Queue a turn. Never blocks: turns in one conversation run one at a time in the
    /// order `submit` was called; different conversations run concurrently. An inbound
    /// with a `request` key that names an earlier attempt is that turn (see `request`).
    fn submit(&self, inbound: Inbound) -> TurnStream;

    /// Stop the conversation's running turn (it ends with `Failed{cancelled}`; queued turns
    /// still run). False when nothing was running: a harmless no-op.
    fn cancel(&self, _conversation: &ConversationId) -> bool {
        false
    }

    /// The conversation of an earlier attempt recorded under `key`, for a retried request
    /// that chose no conversation itself (so the retry joins the first attempt's turn).
    async fn conversation_of(&self, _key: &RequestKey) -> Option<ConversationId> {
        None
    }

    /// The model the next turn is answered by, as `provider:model` (`None`: no model bound).
    /// Read each time: the model can change while Steward runs.
    fn model_label(&self) -> Option<String> {
        None
    }
}

/// The result of `ApprovalDesk::resolve`.
#[derive(Debug)]
pub enum Resolution {
    /// This decision was applied. For a confirm, `action` is in its final state (executed
    /// or failed) and `follow_up` is the agent's turn continuing from the result. When the
    /// tool found its effect changed since approval, `action` failed having changed nothing,
    /// and the follow-up's events carry the new card (an `ApprovalRequired` right after
    /// `Started`).
    Applied {
        action: PendingAction,
        follow_up: Option<TurnStream>,
    },
    /// The same decision was already applied: a harmless success, nothing ran again.
    AlreadyDone { action: PendingAction },
    /// A different decision won (or the action expired): here is the actual state.
    Conflict { action: PendingAction },
    /// The decision was made on a card that is no longer current (the action was revised
    /// since, e.g. a confirm carried an older `revision`): nothing ran, the action is still
    /// pending, and this is it as it is now; show its card again.
    Stale { action: PendingAction },
}

#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("no such action")]
    NotFound,
    /// A revision the originating tool's validator refused, or a bad request.
    #[error("{0}")]
    Invalid(String),
    #[error("storage failed; see the server log")]
    Store,
}

/// Approvals as the surfaces see them.
#[async_trait::async_trait]
pub trait ApprovalDesk: Send + Sync + 'static {
    /// The only way an action leaves `pending`. Compare-and-set: one winner; the same
    /// decision twice is `AlreadyDone`; a conflicting one gets `Conflict` with the state; a
    /// confirm of a revision other than the current one gets `Stale`.
    async fn resolve(
        &self,
        id: &str,
        decision: Decision,
        principal: Principal,
        surface: Surface,
    ) -> Result<Resolution, ApprovalError>;
    /// Mark a pending action as awaiting an edit in words: the next message in its
    /// conversation revises the payload (through the model and the tool's validator)
    /// instead of starting a normal turn. The action stays pending.
    async fn request_edit(
        &self,
        id: &str,
        principal: Principal,
        surface: Surface,
    ) -> Result<PendingAction, ApprovalError>;
    async fn get(&self, id: &str) -> Result<Option<PendingAction>, ApprovalError>;
    /// Newest first.
    async fn list(
        &self,
        status: Option<ActionStatus>,
        limit: usize,
    ) -> Result<Vec<PendingAction>, ApprovalError>;
    /// How each of `actions` left `pending`, in the same order: `None` for one that is still
    /// pending (as listed). One store query for a whole listing, not one per action.
    async fn decisions(
        &self,
        actions: &[PendingAction],
    ) -> Result<Vec<Option<ActionDecided>>, ApprovalError>;
    /// Every line of the action's audit trail, oldest first; `NotFound` for an unknown one.
    async fn trail(&self, id: &str) -> Result<Vec<AuditStep>, ApprovalError>;
    /// How many actions await a decision (a count: cheap enough for a badge on every page).
    async fn pending_count(&self) -> Result<u64, ApprovalError>;
    /// The card for a surface that can show at most `max_chars` (None: no limit).
    fn card(&self, action: &PendingAction, max_chars: Option<usize>) -> ActionCard;
    /// Allow `tool` in `conversation` for `hours` (1..=168) without asking.
    async fn grant(
        &self,
        conversation: ConversationId,
        tool: String,
        hours: u32,
        principal: Principal,
    ) -> Result<Grant, ApprovalError>;
    /// Active and past grants, newest first.
    async fn grants(&self) -> Result<Vec<Grant>, ApprovalError>;
    async fn revoke_grant(&self, id: &str) -> Result<bool, ApprovalError>;
}

/// A person's 👍 / 👎 on a message Steward sent, as a `user_feedback` score (1 or 0) on the
/// trace that produced it.
#[async_trait::async_trait]
pub trait FeedbackDesk: Send + Sync + 'static {
    /// `genre` says what kind of message it was ("chat", "approval", "briefing", …): the
    /// surface's record of the message keeps it beside the trace id.
    async fn record_feedback(
        &self,
        trace_id: &str,
        positive: bool,
        genre: &str,
        principal: &Principal,
        surface: Surface,
    ) -> Result<(), ApprovalError>;
}
