//! `recall` (any kind of memory) and `search_notes` (notes only, optionally by tag): hybrid
//! recall through `Memory::recall`, capped, rendered one compact line per hit.
//! Does not own ranking (steward-memory) or the cap the memory itself applies.

use super::{
    MAX_QUERY_CHARS, Shared, limit_arg, limit_schema, memory_error, render, tags_arg, tags_schema,
};
use crate::args::str_arg;
use crate::{OutputTrust, Tool, ToolContext, ToolError};
use serde_json::{Value, json};
use steward_memory::RecallOptions;
use steward_protocol::{Effect, MemoryKind, Quarantine};
use steward_store::MemoryFilter;

/// The memory kinds a recall may be narrowed to (shared with the MCP server's recall).
pub const KINDS: [&str; 5] = ["fact", "note", "learning", "read_later", "intention"];

fn query_arg(args: &Value) -> Result<&str, ToolError> {
    let query = str_arg(args, "query")?;
    if query.trim().is_empty() {
        return Err(ToolError::InvalidArguments(
            "argument `query` is empty".to_owned(),
        ));
    }
    Ok(query)
}

/// The optional `kinds` argument: each one of `KINDS`, duplicates dropped; none = every kind.
pub fn kinds_arg(args: &Value) -> Result<Vec<MemoryKind>, ToolError> {
    let Some(raw) = args.get("kinds") else {
        return Ok(Vec::new());
    };
    let items = raw.as_array().ok_or_else(|| {
        ToolError::InvalidArguments("argument `kinds` must be an array".to_owned())
    })?;
    let mut kinds = Vec::with_capacity(items.len());
    for item in items {
        let kind = item.as_str().and_then(MemoryKind::parse).ok_or_else(|| {
            ToolError::InvalidArguments(format!("each kind must be one of {}", KINDS.join(", ")))
        })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

async fn recall(
    shared: &Shared,
    ctx: &ToolContext,
    tool: &str,
    query: &str,
    opts: RecallOptions,
) -> Result<String, ToolError> {
    let hits = shared
        .memory
        .recall(ctx.principal.as_str(), query, &opts)
        .await
        .map_err(|e| memory_error(tool, e))?;
    // The memory caps too; this keeps the promise even if its configuration is generous.
    let shown = &hits[..hits.len().min(opts.limit)];
    Ok(render::hits(shown))
}

pub struct Recall(pub(crate) Shared);

#[async_trait::async_trait]
impl Tool for Recall {
    fn name(&self) -> &str {
        "recall"
    }

    fn description(&self) -> &str {
        "Search everything remembered about the user (facts, notes, learnings, read-later, intentions)."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
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
        query_arg(args)?;
        kinds_arg(args)?;
        Ok(())
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let opts = RecallOptions {
            filter: MemoryFilter {
                kinds: kinds_arg(&args)?,
                ..MemoryFilter::default()
            },
            limit: limit_arg(&args),
            quarantine: Quarantine::ShowFrom(ctx.conversation.clone()),
            ..RecallOptions::default()
        };
        recall(&self.0, ctx, self.name(), query_arg(&args)?, opts).await
    }
}

pub struct SearchNotes(pub(crate) Shared);

#[async_trait::async_trait]
impl Tool for SearchNotes {
    fn name(&self) -> &str {
        "search_notes"
    }

    fn description(&self) -> &str {
        "Search saved notes by meaning and words, optionally only those with all given tags."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
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

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        query_arg(args)?;
        tags_arg(args)?;
        Ok(())
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let opts = RecallOptions {
            filter: MemoryFilter {
                kinds: vec![MemoryKind::Note],
                tags: tags_arg(&args)?,
                ..MemoryFilter::default()
            },
            limit: limit_arg(&args),
            quarantine: Quarantine::ShowFrom(ctx.conversation.clone()),
            ..RecallOptions::default()
        };
        recall(&self.0, ctx, self.name(), query_arg(&args)?, opts).await
    }
}
