//! The `TurnEvent` stream: everything a surface needs to render a turn, in order.
//! Every turn emits exactly one `Started` first and exactly one terminal event
//! (`Final` or `Failed`) last.

use crate::{ActionCard, ConversationId, TurnId, Usage};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TurnEvent {
    Started {
        conversation_id: ConversationId,
        /// Also the trace id of everything the turn creates (cards, scores).
        turn_id: TurnId,
    },
    /// A piece of the model's answer text, as it streams.
    TextDelta { text: String },
    /// The model asked for a tool; it is about to run.
    ToolStarted {
        call_id: String,
        name: String,
        arguments: String,
        /// What the call touches, in one line (the URL fetched, the SQL run, the MCP tool
        /// and its main argument), from the tool's own declaration; None when the name
        /// says enough. Every surface shows it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        touched: Option<String>,
    },
    /// The tool finished (or failed; the failure went back to the model).
    ToolFinished {
        call_id: String,
        name: String,
        ok: bool,
        /// The result text the model sees, possibly shortened for display.
        output: String,
    },
    /// A consequential action was parked for approval; the model was told it has NOT run.
    ApprovalRequired { card: ActionCard },
    /// The turn's answer. Terminal.
    Final {
        text: String,
        usage: Usage,
        model: String,
    },
    /// The turn failed. Terminal. `message` is safe to show to the user.
    Failed {
        kind: FailureKind,
        message: String,
        retryable: bool,
    },
}

impl TurnEvent {
    pub fn is_terminal(&self) -> bool {
        matches!(self, TurnEvent::Final { .. } | TurnEvent::Failed { .. })
    }

    /// The SSE event name for this event.
    pub fn name(&self) -> &'static str {
        match self {
            TurnEvent::Started { .. } => "started",
            TurnEvent::TextDelta { .. } => "text_delta",
            TurnEvent::ToolStarted { .. } => "tool_started",
            TurnEvent::ToolFinished { .. } => "tool_finished",
            TurnEvent::ApprovalRequired { .. } => "approval_required",
            TurnEvent::Final { .. } => "final",
            TurnEvent::Failed { .. } => "failed",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// No model is configured.
    NoModel,
    /// The model API failed (after retries and fallback): unreachable, overloaded, or an
    /// answer that could not be read.
    Model,
    /// The model provider refused the request itself (a 4xx such as 400 or 413: too long,
    /// content refused): sending the same message again will not help.
    ModelRejected,
    /// The model provider refused Steward's setup (401/403: the key; 404: the model name):
    /// the owner must fix the configuration.
    ModelConfig,
    /// A budget (rounds, tokens, wall clock) ran out.
    Budget,
    /// Storage failed.
    Store,
    /// The process is shutting down.
    Shutdown,
    /// The owner stopped this turn (`cancel`); what was said is kept, nothing half-done is.
    Cancelled,
    /// Bad input from the caller.
    Input,
    /// The bound model cannot take a part of the message (audio to a model without audio
    /// input, any part to a text-only one); checked before anything is stored.
    Unsupported,
    /// The message's parts are over the size limits; refused before anything is stored.
    TooLarge,
}
