//! Pending actions: a consequential tool call (or a plan of them) parked until a human
//! decides. Only `Approvals::resolve` in steward-core moves an action out of `Pending`.

use crate::{ConversationId, Principal, Surface};
use serde::{Deserialize, Serialize};

/// States: pending → confirmed → executed | failed; pending → cancelled | expired.
/// A revision keeps the action pending with a new payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionStatus {
    Pending,
    Confirmed,
    Executed,
    Failed,
    Cancelled,
    Expired,
}

impl ActionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionStatus::Pending => "pending",
            ActionStatus::Confirmed => "confirmed",
            ActionStatus::Executed => "executed",
            ActionStatus::Failed => "failed",
            ActionStatus::Cancelled => "cancelled",
            ActionStatus::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pending" => ActionStatus::Pending,
            "confirmed" => ActionStatus::Confirmed,
            "executed" => ActionStatus::Executed,
            "failed" => ActionStatus::Failed,
            "cancelled" => ActionStatus::Cancelled,
            "expired" => ActionStatus::Expired,
            _ => return None,
        })
    }

    /// No transition leaves a terminal state.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            ActionStatus::Executed
                | ActionStatus::Failed
                | ActionStatus::Cancelled
                | ActionStatus::Expired
        )
    }
}

/// What kind of thing awaits approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// One tool call: `tool` + `arguments`.
    Tool,
    /// A plan of several consequential steps; `arguments` is `{"steps":[{"tool","arguments"}...]}`.
    Plan,
}

/// A human's decision on a pending action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    Confirm,
    Cancel,
    /// Replace the arguments; re-checked by the originating tool's validator; stays pending.
    Revise {
        arguments: serde_json::Value,
    },
}

impl Decision {
    pub fn name(&self) -> &'static str {
        match self {
            Decision::Confirm => "confirm",
            Decision::Cancel => "cancel",
            Decision::Revise { .. } => "revise",
        }
    }
}

/// A parked action as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingAction {
    /// Opaque id (a UUID).
    pub id: String,
    pub kind: ActionKind,
    /// Tool name (for a plan: "plan").
    pub tool: String,
    /// Canonical JSON text of the arguments: exactly what will run.
    pub arguments: String,
    /// SHA-256 (hex) of `tool` + NUL + `arguments`: approval binds to this.
    pub payload_hash: String,
    /// Human-readable preview (dry-run consequences when the tool offers them).
    pub preview: String,
    /// Trace id of the turn that created it; scores and audit refer to it.
    pub trace_id: String,
    pub conversation: ConversationId,
    pub surface: Surface,
    pub principal: Principal,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
    pub status: ActionStatus,
    /// Times the payload was revised.
    pub revision: u32,
    /// Set while the user is expected to describe an edit in words.
    pub awaiting_edit: bool,
    /// Tool output (executed) or the reason (failed, expired, cancelled).
    pub outcome: Option<String>,
    pub updated_at_ms: i64,
}

/// What a surface shows for a pending action. Produced by steward-core's card renderer:
/// invisible and confusable characters are made visible; a card that cannot be shown whole
/// on a surface says so and is not confirmable there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionCard {
    pub action_id: String,
    pub kind: ActionKind,
    pub tool: String,
    /// The whole card text, escaped for display.
    pub text: String,
    pub expires_at_ms: i64,
    /// False when the card is too long to show whole on this surface.
    pub confirmable: bool,
}

/// "Allow this tool in this conversation until `expires_at_ms`": scoped, time-limited,
/// visible and revocable. Never global.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub id: String,
    pub conversation: ConversationId,
    pub tool: String,
    pub principal: Principal,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
    pub revoked: bool,
}
