//! The memory tools the model calls: `remember`, `recall`, `save_note`, `search_notes`,
//! `read_later` (all `Effect::Memory` or `Read`: no approval) and `forget`
//! (`Effect::Destructive`: the approval gate in steward-core asks first).
//!
//! Owns: the tools' schemas, argument checks (key, tag and URL formats, size caps), the
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
use steward_store::StoreError;

pub use facts::{Forget, Remember};
pub use notes::{ReadLaterTool, SaveNote};
pub use recall::{Recall, SearchNotes};

/// Longest fact key; keys are `[a-z0-9_.]`, so this is also a byte count.
pub const MAX_KEY_LEN: usize = 64;
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
/// Most tags on one note or read-later item.
pub const MAX_TAGS: usize = 10;
/// Longest tag; tags are `[a-z0-9_-]`.
pub const MAX_TAG_LEN: usize = 32;
/// Most hits a recall or search tool returns (the memory caps further at its recall_max).
pub const MAX_HITS: usize = 20;
/// Hits when the model does not say.
pub const DEFAULT_HITS: usize = 5;

/// `[remember, recall, save_note, search_notes, read_later, forget]` for `user` (the owner
/// for now), all sharing one `Memory`.
pub fn memory_tools(memory: Arc<Memory>, user: String) -> Vec<Arc<dyn Tool>> {
    let user: Arc<str> = Arc::from(user);
    let shared = || Shared {
        memory: Arc::clone(&memory),
        user: Arc::clone(&user),
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
    pub(crate) user: Arc<str>,
}

/// Is `key` a valid fact key: 1..=64 of `[a-z0-9_.]`?
pub fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= MAX_KEY_LEN
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
}

pub(crate) fn check_key(key: &str) -> Result<(), ToolError> {
    if valid_key(key) {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments(format!(
            "argument `key` must be 1 to {MAX_KEY_LEN} of a-z, 0-9, _ and . (e.g. \"home.city\")"
        )))
    }
}

/// Tags are lowercased and trimmed; each must then be 1..=32 of `[a-z0-9_-]`.
pub(crate) fn tags_arg(args: &Value) -> Result<Vec<String>, ToolError> {
    let Some(raw) = args.get("tags") else {
        return Ok(Vec::new());
    };
    let Some(items) = raw.as_array() else {
        return Err(ToolError::InvalidArguments(
            "argument `tags` must be an array of strings".to_owned(),
        ));
    };
    if items.len() > MAX_TAGS {
        return Err(ToolError::InvalidArguments(format!(
            "at most {MAX_TAGS} tags are allowed"
        )));
    }
    let mut tags: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let tag = item
            .as_str()
            .map(|s| s.trim().to_lowercase())
            .unwrap_or_default();
        let ok = !tag.is_empty()
            && tag.len() <= MAX_TAG_LEN
            && tag
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        if !ok {
            return Err(ToolError::InvalidArguments(format!(
                "each tag must be 1 to {MAX_TAG_LEN} of a-z, 0-9, _ and -"
            )));
        }
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    Ok(tags)
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

pub(crate) fn tags_schema() -> Value {
    json!({"type": "array", "items": {"type": "string", "maxLength": MAX_TAG_LEN},
           "description": "lowercase words, e.g. [\"work\", \"rust\"]"})
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
