//! `steward_recall` (any kind of memory) and `steward_search_notes` (notes only, optionally
//! by tag): `MemoryDesk::recall` for the call's principal, seeing quarantined rows only from
//! the MCP conversation, rendered one compact line per hit like the agent's own recall tools.
//! Does not own ranking, the query's limits (the desk) or the hit text (`steward_tools`).

use super::shared::{Shared, desk_error, limit, tags_arg, text_arg};
use serde_json::{Value, json};
use steward_core::memory_desk::RecallScope;
use steward_protocol::{Effect, MemoryKind, Quarantine};
use steward_tools::memory::{KINDS, kinds_arg, render_hits, tags_schema};
use steward_tools::{OutputTrust, Tool, ToolContext, ToolError};

const MAX_HITS: usize = 20;
const DEFAULT_HITS: usize = 5;

async fn recall(
    shared: &Shared,
    ctx: &ToolContext,
    args: &Value,
    kinds: Vec<MemoryKind>,
) -> Result<String, ToolError> {
    let scope = RecallScope {
        kinds,
        tags: tags_arg(args)?,
        limit: limit(args, DEFAULT_HITS, MAX_HITS),
        // A client is not the owner reading: quarantined rows only from its own writes.
        quarantine: Quarantine::ShowFrom(shared.conversation.clone()),
    };
    let recalled = shared
        .desk
        .recall(&ctx.principal, &text_arg(args, "query")?, scope)
        .await
        .map_err(desk_error)?;
    Ok(render_hits(&recalled.hits))
}

fn limit_schema() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": MAX_HITS})
}

pub(super) struct Recall(pub(super) Shared);

#[async_trait::async_trait]
impl Tool for Recall {
    fn name(&self) -> &str {
        "steward_recall"
    }
    fn description(&self) -> &str {
        "Search everything Steward remembers about its owner (facts, notes, learnings, read-later, follow-ups) by meaning and words."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "kinds": {"type": "array", "items": {"type": "string", "enum": KINDS},
                          "description": "only these kinds; default all"},
                "limit": limit_schema()
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        kinds_arg(args).map(drop)
    }
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        recall(&self.0, ctx, &args, kinds_arg(&args)?).await
    }
}

pub(super) struct SearchNotes(pub(super) Shared);

#[async_trait::async_trait]
impl Tool for SearchNotes {
    fn name(&self) -> &str {
        "steward_search_notes"
    }
    fn description(&self) -> &str {
        "Search the owner's notes in Steward by meaning and words, optionally only those with all given tags."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "tags": tags_schema(),
                "limit": limit_schema()
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        recall(&self.0, ctx, &args, vec![MemoryKind::Note]).await
    }
}
