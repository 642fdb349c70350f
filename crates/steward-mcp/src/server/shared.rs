//! What the MCP server's tools share: the desk and conversation every tool holds
//! (`Shared`), the argument readers, the mapping of desk refusals to tool errors, and the
//! listing limits. A leaf of `server`: the tool modules use it, it uses none of them.

use serde_json::Value;
use std::sync::Arc;
use steward_core::MemoryDesk;
use steward_core::memory_desk::MemoryDeskError;
use steward_protocol::ConversationId;
use steward_tools::ToolError;

/// Most items a listing returns.
pub(super) const MAX_LIST: usize = 50;
pub(super) const DEFAULT_LIST: usize = 20;
/// Characters of a note body shown in a listing.
pub(super) const SNIPPET: usize = 200;

/// What every tool holds.
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) desk: Arc<dyn MemoryDesk>,
    /// The conversation a client's writes carry in their provenance (`MCP_CONVERSATION`).
    pub(super) conversation: ConversationId,
}

/// A desk refusal as the client's model should see it: what to fix for input, a plain
/// failure otherwise (details are in Steward's log).
pub(super) fn desk_error(err: MemoryDeskError) -> ToolError {
    match err {
        MemoryDeskError::Invalid(_)
        | MemoryDeskError::TooLong { .. }
        | MemoryDeskError::Refused(_) => ToolError::InvalidArguments(err.to_string()),
        MemoryDeskError::NotFound(_) => ToolError::Failed(err.to_string()),
        MemoryDeskError::Failed => {
            ToolError::Failed("memory is unavailable right now (see Steward's log)".to_owned())
        }
    }
}

/// A string argument the schema made required.
pub(super) fn text_arg(args: &Value, name: &str) -> Result<String, ToolError> {
    args.get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ToolError::InvalidArguments(format!("argument `{name}` must be a string")))
}

/// The optional `tags`, as typed (the desk folds and checks them).
pub(super) fn tags_arg(args: &Value) -> Result<Vec<String>, ToolError> {
    let Some(raw) = args.get("tags") else {
        return Ok(Vec::new());
    };
    raw.as_array()
        .and_then(|items| {
            items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .ok_or_else(|| {
            ToolError::InvalidArguments("argument `tags` must be an array of strings".to_owned())
        })
}

pub(super) fn limit(args: &Value, default: usize, max: usize) -> usize {
    args.get("limit")
        .and_then(Value::as_u64)
        .map_or(default, |n| usize::try_from(n).unwrap_or(max).clamp(1, max))
}

pub(super) fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let joined = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        return joined;
    }
    joined.chars().take(max).collect::<String>() + "…"
}
