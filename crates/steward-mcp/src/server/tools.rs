//! The tools Steward's MCP server offers, as ordinary Steward `Tool`s in a private registry
//! (so they get the same schema checks, timeout, panic capture and output cap as the agent's
//! tools), each a thin call of `steward_core::MemoryDesk` for the call's principal:
//! `steward_recall` and `steward_search_notes` (in `recall`), `steward_save_note`,
//! `steward_list_notes` and `steward_list_reminders` (here).
//!
//! Reminders: Steward has no scheduler yet, so "reminders" are the memory's intentions
//! (follow-ups the reflection step noted, with an optional due time), offered read-only.
//!
//! Owns: which tools are exposed, their schemas (shapes only: no length bounds, since the
//! desk holds the one rule and a schema bound would refuse in other words) and the text of
//! their results. Does not own: any check of titles, bodies, tags or queries, or memory rules
//! (the desk and `Memory`).

use super::recall::{Recall, SearchNotes};
use super::shared::{
    DEFAULT_LIST, MAX_LIST, SNIPPET, Shared, desk_error, limit, one_line, tags_arg, text_arg,
};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use std::sync::Arc;
use steward_core::MemoryDesk;
use steward_core::memory_desk::{NoteAuthor, NoteDraft};
use steward_protocol::{ConversationId, Effect};
use steward_tools::memory::{note_reach, tags_schema};
use steward_tools::{OutputTrust, Reach, Tool, ToolContext, ToolError, ToolRegistry};

fn when(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| "?".to_owned())
}

struct SaveNote(Shared);

#[async_trait::async_trait]
impl Tool for SaveNote {
    fn name(&self) -> &str {
        "steward_save_note"
    }
    fn description(&self) -> &str {
        "Save a note in Steward's memory for its owner (title, body, optional tags)."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "body": {"type": "string"},
                "tags": tags_schema()
            },
            "required": ["title", "body"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Memory
    }
    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    fn reach(&self, args: &Value) -> Reach {
        note_reach(args)
    }
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let draft = NoteDraft {
            title: text_arg(&args, "title")?,
            body: text_arg(&args, "body")?,
            tags: tags_arg(&args)?,
            // Another program's model wrote it: never the owner's own word.
            author: NoteAuthor::Client {
                conversation: self.0.conversation.clone(),
            },
        };
        let note = self
            .0
            .desk
            .save_note(&ctx.principal, draft)
            .await
            .map_err(desk_error)?;
        Ok(format!(
            "saved note {}: {}",
            note.id,
            one_line(&note.title, 200)
        ))
    }
}

struct ListNotes(Shared);

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
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let notes = self
            .0
            .desk
            .notes(
                &ctx.principal,
                &tags_arg(&args)?,
                limit(&args, DEFAULT_LIST, MAX_LIST),
            )
            .await
            .map_err(desk_error)?;
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

struct ListReminders(Shared);

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
            .0
            .desk
            .reminders(&ctx.principal, include_done)
            .await
            .map_err(desk_error)?;
        if items.is_empty() {
            return Ok("no reminders".to_owned());
        }
        // Open first, then by due time (undated last), then newest.
        items.sort_by_key(|i| (!i.open, i.due_at_ms.unwrap_or(i64::MAX), -i.created_at_ms));
        let lines: Vec<String> = items
            .iter()
            .take(limit(&args, DEFAULT_LIST, MAX_LIST))
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
    desk: Arc<dyn MemoryDesk>,
    conversation: ConversationId,
) -> Result<ToolRegistry, ToolError> {
    let shared = Shared { desk, conversation };
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Recall(shared.clone())))?;
    registry.register(Arc::new(SearchNotes(shared.clone())))?;
    registry.register(Arc::new(SaveNote(shared.clone())))?;
    registry.register(Arc::new(ListNotes(shared.clone())))?;
    registry.register(Arc::new(ListReminders(shared)))?;
    Ok(registry)
}
