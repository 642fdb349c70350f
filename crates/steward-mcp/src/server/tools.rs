//! The tools Steward's MCP server offers, as ordinary Steward `Tool`s in a private registry
//! (so they get the same schema checks, validators, timeout and panic capture as the agent's
//! tools): the memory tools under `steward_` names, plus `steward_list_notes` and
//! `steward_list_reminders`.
//!
//! Reminders: Steward has no scheduler yet, so "reminders" are the memory's intentions
//! (follow-ups the reflection step noted, with an optional due time), offered read-only.
//!
//! Owns: which tools are exposed and the two listing tools. Does not own memory rules (the
//! memory tools and `Memory` enforce them).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use std::sync::Arc;
use steward_memory::Memory;
use steward_protocol::Effect;
use steward_store::{MemoryFilter, MemoryStore};
use steward_tools::memory::{tags_arg, tags_schema};
use steward_tools::{OutputTrust, Tool, ToolContext, ToolError, ToolRegistry, memory_tools};

/// Most items a listing returns.
const MAX_LIST: usize = 50;
const DEFAULT_LIST: usize = 20;
/// Characters of a note body shown in a listing.
const SNIPPET: usize = 200;

/// Memory tools exposed, with the name and description other clients see.
const EXPOSED: &[(&str, &str, &str)] = &[
    (
        "recall",
        "steward_recall",
        "Search everything Steward remembers about its owner (facts, notes, learnings, read-later, follow-ups) by meaning and words.",
    ),
    (
        "search_notes",
        "steward_search_notes",
        "Search the owner's notes in Steward by meaning and words, optionally only those with all given tags.",
    ),
    (
        "save_note",
        "steward_save_note",
        "Save a note in Steward's memory for its owner (title, body, optional tags).",
    ),
];

/// A memory tool under the name and description the MCP server gives it.
struct Renamed {
    inner: Arc<dyn Tool>,
    name: &'static str,
    description: &'static str,
}

#[async_trait::async_trait]
impl Tool for Renamed {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        self.description
    }
    fn parameters(&self) -> Value {
        self.inner.parameters()
    }
    fn effect(&self) -> Effect {
        self.inner.effect()
    }
    fn output_trust(&self) -> OutputTrust {
        self.inner.output_trust()
    }
    fn reach(&self, args: &Value) -> steward_tools::Reach {
        self.inner.reach(args)
    }
    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        self.inner.validate(args)
    }
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        self.inner.run(args, ctx).await
    }
}

fn limit(args: &Value) -> usize {
    args.get("limit")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_LIST, |n| (n as usize).clamp(1, MAX_LIST))
}

fn when(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| "?".to_owned())
}

fn one_line(s: &str, max: usize) -> String {
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

struct ListNotes {
    memory: Arc<Memory>,
}

#[async_trait::async_trait]
impl Tool for ListNotes {
    fn name(&self) -> &str {
        "steward_list_notes"
    }
    fn description(&self) -> &str {
        "List the owner's notes in Steward, newest first, optionally only those with all given tags."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "tags": tags_schema(),
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST}
            },
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
        tags_arg(args).map(drop)
    }
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let filter = MemoryFilter {
            tags: tags_arg(&args)?,
            ..MemoryFilter::default()
        };
        let notes = self
            .memory
            .list_notes(&ctx.principal.0, &filter, limit(&args))
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "listing notes for an MCP client failed");
                ToolError::Failed("memory is unavailable right now".to_owned())
            })?;
        if notes.is_empty() {
            return Ok("no notes".to_owned());
        }
        let lines: Vec<String> = notes
            .iter()
            .map(|n| {
                let tags = if n.tags.is_empty() {
                    String::new()
                } else {
                    format!(" | tags {}", n.tags.join(","))
                };
                format!(
                    "[note {} | {}{tags}] {}: {}",
                    n.id,
                    when(n.updated_at_ms),
                    one_line(&n.title, 100),
                    one_line(&n.body, SNIPPET)
                )
            })
            .collect();
        Ok(lines.join("\n"))
    }
}

struct ListReminders {
    store: Arc<dyn MemoryStore>,
}

#[async_trait::async_trait]
impl Tool for ListReminders {
    fn name(&self) -> &str {
        "steward_list_reminders"
    }
    fn description(&self) -> &str {
        "List the follow-ups Steward is keeping for its owner (open ones first; read-only), with due times."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "include_done": {"type": "boolean", "description": "also list closed follow-ups"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST}
            },
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
        let include_done = args.get("include_done").and_then(Value::as_bool) == Some(true);
        let mut items = self
            .store
            .list_intentions(&ctx.principal.0, !include_done)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "listing reminders for an MCP client failed");
                ToolError::Failed("memory is unavailable right now".to_owned())
            })?;
        if items.is_empty() {
            return Ok("no reminders".to_owned());
        }
        // Open first, then by due time (undated last), then newest.
        items.sort_by_key(|i| (!i.open, i.due_at_ms.unwrap_or(i64::MAX), -i.created_at_ms));
        let lines: Vec<String> = items
            .iter()
            .take(limit(&args))
            .map(|i| {
                let due = i
                    .due_at_ms
                    .map_or("no due time".to_owned(), |ms| format!("due {}", when(ms)));
                let state = if i.open { "open" } else { "done" };
                format!(
                    "[reminder {} | {state} | {due}] {}",
                    i.id,
                    one_line(&i.text, 300)
                )
            })
            .collect();
        Ok(lines.join("\n"))
    }
}

/// The registry behind the MCP server; each call acts for its context's principal.
pub fn registry(
    memory: Arc<Memory>,
    store: Arc<dyn MemoryStore>,
) -> Result<ToolRegistry, ToolError> {
    let mut registry = ToolRegistry::new();
    for tool in memory_tools(Arc::clone(&memory)) {
        if let Some((_, name, description)) = EXPOSED.iter().find(|(n, _, _)| *n == tool.name()) {
            registry.register(Arc::new(Renamed {
                inner: tool,
                name,
                description,
            }))?;
        }
    }
    registry.register(Arc::new(ListNotes { memory }))?;
    registry.register(Arc::new(ListReminders { store }))?;
    Ok(registry)
}
