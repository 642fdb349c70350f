//! `schedule_reminder` (the owner's words for when, resolved in code in their time zone —
//! an ambiguous phrase comes back as a question to ask them, never a guess), `list_reminders`
//! and `cancel_reminder` (only the caller's own). The delivery target is the conversation and
//! surface the reminder was set from, captured now.

use std::sync::Arc;

use chrono_tz::Tz;
use serde_json::{Value, json};
use steward_protocol::{Clock, Effect, ScheduledId};
use steward_store::{JobStore, MAX_REMINDER_TEXT_LEN, Reminder, ReminderStatus, StoreError};
use steward_tools::{OutputTrust, Reach, Tool, ToolContext, ToolError, str_arg};

use super::{now, zone};
use crate::when::{self, Resolved};

/// Longest "when" phrase the tool takes.
const MAX_WHEN_CHARS: usize = 200;
/// Longest reminder text the tool takes, in characters.
const MAX_TEXT_CHARS: usize = 1000;
/// Most reminders `list_reminders` shows.
const LIST_LIMIT: usize = 50;

fn store_error(e: StoreError) -> ToolError {
    match e {
        StoreError::InvalidInput(reason) => ToolError::InvalidArguments(reason),
        other => ToolError::Failed(format!("the reminder store failed: {other}")),
    }
}

fn text_arg(args: &Value) -> Result<&str, ToolError> {
    let text = str_arg(args, "text")?.trim();
    if text.is_empty() {
        return Err(ToolError::InvalidArguments(
            "argument `text` is empty".into(),
        ));
    }
    if text.chars().count() > MAX_TEXT_CHARS || text.len() > MAX_REMINDER_TEXT_LEN {
        return Err(ToolError::InvalidArguments(format!(
            "argument `text` is longer than {MAX_TEXT_CHARS} characters"
        )));
    }
    Ok(text)
}

/// The phrase resolved now, or the question to ask back (as the tool's error, for the model
/// to put to the owner).
fn resolve(args: &Value, clock: &dyn Clock, tz: Tz) -> Result<Resolved, ToolError> {
    let phrase = str_arg(args, "when")?;
    when::resolve(phrase, now(clock), tz).map_err(|unresolved| {
        ToolError::InvalidArguments(format!(
            "not scheduled: {unresolved}. Ask the owner; do not guess a time."
        ))
    })
}

pub struct ScheduleReminder {
    store: Arc<dyn JobStore>,
    clock: Arc<dyn Clock>,
}

impl ScheduleReminder {
    pub fn new(store: Arc<dyn JobStore>, clock: Arc<dyn Clock>) -> ScheduleReminder {
        ScheduleReminder { store, clock }
    }
}

#[async_trait::async_trait]
impl Tool for ScheduleReminder {
    fn name(&self) -> &str {
        "schedule_reminder"
    }

    fn description(&self) -> &str {
        "Remind the owner of something at a time they name. Pass their own words for when (\"in 2 days at 9\", \"next Friday\"); confirm with the time this returns."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "when": {"type": "string", "minLength": 1, "maxLength": MAX_WHEN_CHARS},
                "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS}
            },
            "required": ["when", "text"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::Memory
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        text_arg(args)?;
        if str_arg(args, "when")?.trim().is_empty() {
            return Err(ToolError::InvalidArguments(
                "argument `when` is empty".into(),
            ));
        }
        Ok(())
    }

    fn reach(&self, args: &Value) -> Reach {
        let text = args.get("text").and_then(Value::as_str).unwrap_or("");
        let when = args.get("when").and_then(Value::as_str).unwrap_or("");
        Reach {
            remembers: vec![text.to_owned()],
            summary: Some(format!(
                "reminder “{}” {}",
                Reach::line(text, 80),
                Reach::line(when, 40)
            )),
            ..Reach::default()
        }
    }

    async fn preview(&self, args: &Value, ctx: &ToolContext) -> Option<Result<String, ToolError>> {
        Some(resolve(args, self.clock.as_ref(), zone(ctx)).and_then(|r| {
            Ok(format!(
                "Will remind you “{}” on {}.",
                text_arg(args)?,
                r.shown
            ))
        }))
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let text = text_arg(&args)?;
        let resolved = resolve(&args, self.clock.as_ref(), zone(ctx))?;
        let id = uuid::Uuid::new_v4().simple().to_string();
        let reminder = Reminder {
            id: id.clone(),
            principal: ctx.principal.id().clone(),
            text: text.to_owned(),
            due_ms: resolved.at.timestamp_millis(),
            shown: resolved.shown.clone(),
            surface: ctx.surface,
            conversation: ctx.conversation.clone(),
            trace_id: ctx.trace_id.clone().unwrap_or_else(|| "none".to_owned()),
            status: ReminderStatus::Pending,
            created_ms: self.clock.now_ms(),
            closed_ms: None,
        };
        self.store
            .add_reminder(&reminder)
            .await
            .map_err(store_error)?;
        Ok(format!(
            "Reminder set for {} (id {id}): “{text}”. Tell the owner this exact time.",
            resolved.shown
        ))
    }
}

pub struct ListReminders {
    store: Arc<dyn JobStore>,
    clock: Arc<dyn Clock>,
}

impl ListReminders {
    pub fn new(store: Arc<dyn JobStore>, clock: Arc<dyn Clock>) -> ListReminders {
        ListReminders { store, clock }
    }
}

#[async_trait::async_trait]
impl Tool for ListReminders {
    fn name(&self) -> &str {
        "list_reminders"
    }

    fn description(&self) -> &str {
        "List the owner's pending reminders (with ids, to cancel one)."
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }

    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    async fn run(&self, _args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let pending = self
            .store
            .reminders_of(ctx.principal.id(), false, LIST_LIMIT)
            .await
            .map_err(store_error)?;
        if pending.is_empty() {
            return Ok("No pending reminders.".to_owned());
        }
        let now_ms = self.clock.now_ms();
        let lines: Vec<String> = pending
            .iter()
            .map(|r| {
                let late = if r.due_ms <= now_ms { " (due now)" } else { "" };
                format!("- {}: “{}” on {}{late}", r.id, r.text, r.shown)
            })
            .collect();
        Ok(lines.join("\n"))
    }
}

pub struct CancelReminder {
    store: Arc<dyn JobStore>,
    clock: Arc<dyn Clock>,
}

impl CancelReminder {
    pub fn new(store: Arc<dyn JobStore>, clock: Arc<dyn Clock>) -> CancelReminder {
        CancelReminder { store, clock }
    }
}

#[async_trait::async_trait]
impl Tool for CancelReminder {
    fn name(&self) -> &str {
        "cancel_reminder"
    }

    fn description(&self) -> &str {
        "Cancel one of the owner's pending reminders by its id."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"id": {"type": "string", "minLength": 1, "maxLength": 128}},
            "required": ["id"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::Memory
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let id = ScheduledId::parse(str_arg(&args, "id")?.trim())
            .map_err(|e| ToolError::InvalidArguments(format!("argument `id`: {e}")))?;
        let id = id.as_str();
        let found = self.store.reminder(id).await.map_err(store_error)?;
        // Another principal's reminder reads as unknown: ids are not a way to probe.
        let Some(reminder) = found.filter(|r| &r.principal == ctx.principal.id()) else {
            return Ok(format!("No reminder with id {id}."));
        };
        let cancelled = self
            .store
            .close_reminder(&reminder.id, ReminderStatus::Cancelled, self.clock.now_ms())
            .await
            .map_err(store_error)?;
        Ok(if cancelled {
            format!(
                "Cancelled the reminder “{}” ({}).",
                reminder.text, reminder.shown
            )
        } else {
            format!("That reminder was already {}.", reminder.status.as_str())
        })
    }
}
