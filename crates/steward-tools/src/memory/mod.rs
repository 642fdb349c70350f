//! The memory tools the model calls: `remember`, `recall`, `save_note`, `search_notes`,
//! `read_later` (all `Effect::Memory` or `Read`: no approval) and `forget`
//! (`Effect::Destructive`: the approval gate in steward-core asks first).
//!
//! Owns: the tools' schemas, argument checks (URL formats, size caps; keys and tags by
//! `steward_protocol`'s `FactKey` and `Tag`), the
//! provenance a model-made write carries, and the compact, token-cheap text of their results.
//! Does not own: source trust or the quality gate (`steward_memory::Memory` and the store
//! enforce those), recall ranking, or approval policy.

mod facts;
mod notes;
mod recall;
mod render;

use crate::{Tool, ToolError};
use serde_json::{Value, json};
use std::sync::Arc;
use steward_memory::{Memory, MemoryError};
use steward_protocol::{FactKey, MAX_TAGS, Tag, ValueKind};
use steward_store::StoreError;

pub use facts::{Forget, Remember};
pub use notes::{ReadLaterTool, SaveNote, note_reach};
pub use recall::{KINDS, Recall, SearchNotes, kinds_arg};
/// The compact one-line-per-hit text of the recall tools, for other tools that recall (the
/// MCP server's).
pub use render::hits as render_hits;

/// Longest fact value the model may store, in characters.
pub const MAX_VALUE_CHARS: usize = 500;
/// Longest note title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// Longest note body, in characters.
pub const MAX_BODY_CHARS: usize = 20_000;
/// Longest recall query, in characters.
pub const MAX_QUERY_CHARS: usize = 500;
/// Longest URL accepted by `read_later`, in bytes.
pub const MAX_URL_LEN: usize = 2_048;
/// Most hits a recall or search tool returns (the memory caps further at its recall_max).
pub const MAX_HITS: usize = 20;
/// Hits when the model does not say.
pub const DEFAULT_HITS: usize = 5;

/// `[remember, recall, save_note, search_notes, read_later, forget]`, all sharing one
/// `Memory`. Each call acts for its context's principal (`ToolContext::principal`): no user is
/// bound here, so a tool can never write one person's memory for another's turn.
pub fn memory_tools(memory: Arc<Memory>) -> Vec<Arc<dyn Tool>> {
    let shared = || Shared {
        memory: Arc::clone(&memory),
    };
    vec![
        Arc::new(Remember(shared())),
        Arc::new(Recall(shared())),
        Arc::new(SaveNote(shared())),
        Arc::new(SearchNotes(shared())),
        Arc::new(ReadLaterTool(shared())),
        Arc::new(Forget(shared())),
    ]
}

/// What every memory tool holds.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) memory: Arc<Memory>,
}

/// `key` by the fact-key rule (`steward_protocol::FactKey`), in the rule's own words.
pub(crate) fn check_key(key: &str) -> Result<FactKey, ToolError> {
    FactKey::parse(key).map_err(|e| {
        ToolError::InvalidArguments(format!("argument `key`: {e} (e.g. \"home.city\")"))
    })
}

/// The optional `tags` argument by the tag rule (`steward_protocol::Tag::normalise_all`):
/// trimmed, lowercased, duplicates dropped, at most `MAX_TAGS`. Every memory tool that takes
/// tags reads them here (the MCP server's tools pass theirs to `steward_core::MemoryDesk`,
/// which applies the same rule).
pub(crate) fn tags_arg(args: &Value) -> Result<Vec<String>, ToolError> {
    let Some(raw) = args.get("tags") else {
        return Ok(Vec::new());
    };
    let items: Option<Vec<&str>> = raw
        .as_array()
        .and_then(|items| items.iter().map(Value::as_str).collect());
    let Some(items) = items else {
        return Err(ToolError::InvalidArguments(
            "argument `tags` must be an array of strings".to_owned(),
        ));
    };
    Tag::normalise_strings(items)
        .map_err(|e| ToolError::InvalidArguments(format!("argument `tags`: {e}")))
}

/// The provenance of text the model writes in `ctx`'s turn: the assistant's, or tainted
/// (quarantined until the owner confirms it) when the turn had read untrusted content.
/// Never the owner's: the model writing something is not the owner saying it.
pub(crate) fn written_by_model(ctx: &crate::ToolContext) -> steward_protocol::Provenance {
    use steward_protocol::Provenance;
    let conversation = Some(ctx.conversation.clone());
    if ctx.tainted_by.is_empty() {
        Provenance::Assistant { conversation }
    } else {
        Provenance::Tainted {
            conversation,
            sources: ctx.tainted_by.iter().take(32).cloned().collect(),
        }
    }
}

/// The optional `limit`, clamped to 1..=MAX_HITS.
pub(crate) fn limit_arg(args: &Value) -> usize {
    args.get("limit")
        .and_then(Value::as_f64)
        .map(|n| (n.max(1.0) as usize).min(MAX_HITS))
        .unwrap_or(DEFAULT_HITS)
}

/// The schema of a `tags` argument, for every tool that takes one.
pub fn tags_schema() -> Value {
    // No length bounds in the schema: the rule applies to the trimmed, lowercased tag, so
    // a raw-length check here would be a second, different rule (and other words).
    let rule = ValueKind::Tag.rule();
    json!({"type": "array", "items": {"type": "string"},
    "description": format!(
        "lowercase words, e.g. [\"work\", \"rust\"]; at most {MAX_TAGS}, each {rule}"
    )})
}

pub(crate) fn limit_schema() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": MAX_HITS})
}

/// A memory failure as the model should see it. Storage details go to the log only; the
/// gate's and the store's refusals are phrased for the model so it can adjust.
pub(crate) fn memory_error(tool: &str, err: MemoryError) -> ToolError {
    match err {
        MemoryError::Invalid(reason) => ToolError::Failed(reason),
        MemoryError::Store(StoreError::InvalidInput(reason)) => ToolError::InvalidArguments(reason),
        other => {
            tracing::warn!(tool, error = %other, "memory tool failed");
            ToolError::Failed("memory is unavailable right now (see the server log)".to_owned())
        }
    }
}
