//! Chat messages as Steward stores and reasons about them, independent of any model API.

use crate::{Attachment, ConversationId, Principal, RequestKey, Surface, Upload};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// A tool call requested by the model. `arguments` is the raw JSON text exactly as the
/// model produced it: it may be malformed, and that must reach the tool layer as an error
/// the model sees, never a panic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// One message in a conversation. The system prompt is not a `Message`: it is passed to the
/// model separately and kept byte-identical from turn to turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    /// Text content. For `Role::Tool` this is the tool's result (or error) text.
    #[serde(default)]
    pub content: String,
    /// Tool calls made by an assistant message (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: the id of the call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For `Role::Tool`: the name of the tool that produced it (Gemini needs it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// Parts sent with a user message (images, audio, files): what they are and which blob
    /// holds their bytes, never the bytes (empty for most messages, and then not written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

impl Message {
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: text.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            tool_name: None,
            attachments: Vec::new(),
        }
    }

    /// A user message with parts.
    pub fn user_with(text: impl Into<String>, attachments: Vec<Attachment>) -> Self {
        Self {
            attachments,
            ..Self::user(text)
        }
    }

    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self {
            role: Role::Assistant,
            content: text.into(),
            tool_calls,
            tool_call_id: None,
            tool_name: None,
            attachments: Vec::new(),
        }
    }

    pub fn tool_result(call: &ToolCall, output: impl Into<String>) -> Self {
        Self {
            role: Role::Tool,
            content: output.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call.id.clone()),
            tool_name: Some(call.name.clone()),
            attachments: Vec::new(),
        }
    }
}

/// Token usage reported by a model call (summed over a turn by the agent loop).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }

    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

/// How consequential a tool is. Policy maps effect × surface to allow / ask / refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Reads only; changes nothing.
    Read,
    /// Writes Steward's own notes and facts.
    Memory,
    /// Writes other data Steward holds.
    Write,
    /// Acts on the world outside Steward.
    External,
    /// Deletes or overwrites irrecoverably.
    Destructive,
}

/// A tool as the model sees it: name, description, JSON-schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// One inbound message from any surface. Platform ids never get past the surface:
/// the surface maps them to a `ConversationId` first. Not `Deserialize`: its `principal` is
/// made by the surface that authenticated the sender, never read from a payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Inbound {
    pub conversation: ConversationId,
    pub principal: Principal,
    pub surface: Surface,
    pub text: String,
    /// Names the client's request so a retry of it is the same turn (`RequestKey`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<RequestKey>,
    /// The calling client's own instructions for this turn only (an OpenAI client's system
    /// message): applied fenced, after Steward's rules, and never stored in the history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Parts sent with the text, bytes included (the assistant stores them as blobs and
    /// keeps only their `Attachment`s in the message).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Upload>,
}

impl Inbound {
    /// A plain message: no request key, no client instructions.
    pub fn new(
        conversation: ConversationId,
        principal: Principal,
        surface: Surface,
        text: impl Into<String>,
    ) -> Self {
        Self {
            conversation,
            principal,
            surface,
            text: text.into(),
            request: None,
            instructions: None,
            attachments: Vec::new(),
        }
    }
}
