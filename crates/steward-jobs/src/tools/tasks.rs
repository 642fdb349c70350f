//! `schedule_task`, `list_tasks` and `cancel_task`: recurring work the owner asks for — a
//! title, the prompt the agent is given each time, and a schedule in the scheduler's words
//! (`daily 07:30`, `weekly fri 18:00`, `every 2h`, `cron 0 9 * * 1-5`), read in the owner's
//! time zone. Setting one is a consequential effect (`Effect::Write`: the card shows the
//! schedule, the next runs and the prompt, and the owner confirms it), since a task runs a
//! model again and again; cancelling one is the owner's undo (`Effect::Memory`). The target
//! is the conversation the task was set from, captured now.
//!
//! Owns: the tools and their limits. Does not own: the schedule grammar (`schedule`), running
//! tasks (`jobs::tasks`).

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::{Value, json};
use steward_protocol::{Clock, Effect, ScheduledId};
use steward_store::{
    MAX_TASK_PROMPT_LEN, MAX_TASK_TITLE_LEN, StoreError, Task, TaskStatus, TaskStore,
};
use steward_tools::{OutputTrust, Reach, Tool, ToolContext, ToolError, str_arg};

use super::{now, zone};
use crate::schedule::Schedule;

/// Most active tasks one person keeps.
pub const MAX_ACTIVE_TASKS: usize = 20;
/// The shortest time between two runs of a task: each run is a model call.
pub const MIN_TASK_GAP: Duration = Duration::from_secs(15 * 60);
/// Runs looked at to check a cron schedule's shortest gap.
const GAP_SAMPLES: usize = 200;
const MAX_TITLE_CHARS: usize = 100;
const MAX_PROMPT_CHARS: usize = 2000;
const LIST_LIMIT: usize = 50;

fn store_error(e: StoreError) -> ToolError {
    match e {
        StoreError::InvalidInput(reason) => ToolError::InvalidArguments(reason),
        other => ToolError::Failed(format!("the task store failed: {other}")),
    }
}

fn bounded_arg<'a>(
    args: &'a Value,
    name: &str,
    max_chars: usize,
    max_bytes: usize,
) -> Result<&'a str, ToolError> {
    let text = str_arg(args, name)?.trim();
    if text.is_empty() {
        return Err(ToolError::InvalidArguments(format!(
            "argument `{name}` is empty"
        )));
    }
    if text.chars().count() > max_chars || text.len() > max_bytes {
        return Err(ToolError::InvalidArguments(format!(
            "argument `{name}` is longer than {max_chars} characters"
        )));
    }
    Ok(text)
}

/// The schedule argument, parsed and checked: it fires, and never twice within
/// `MIN_TASK_GAP`.
pub fn task_schedule(raw: &str, from: DateTime<Utc>, tz: Tz) -> Result<Schedule, ToolError> {
    let schedule = raw
        .parse::<Schedule>()
        .map_err(|e| ToolError::InvalidArguments(format!("argument `schedule`: {e}")))?;
    if schedule.is_disabled() {
        return Err(ToolError::InvalidArguments(
            "argument `schedule` never fires; give when the task runs, e.g. `daily 07:30`".into(),
        ));
    }
    let mut fires = Vec::with_capacity(GAP_SAMPLES);
    let mut cursor = from;
    while fires.len() < GAP_SAMPLES {
        let Some(next) = schedule.next_fire(cursor, tz) else {
            break;
        };
        fires.push(next);
        cursor = next;
    }
    if fires.is_empty() {
        return Err(ToolError::InvalidArguments(
            "argument `schedule` never fires from now on".into(),
        ));
    }
    let gap = chrono::Duration::from_std(MIN_TASK_GAP).unwrap_or_default();
    if fires.windows(2).any(|w| w[1] - w[0] < gap) {
        return Err(ToolError::InvalidArguments(format!(
            "argument `schedule` runs more often than every {} minutes; each run is a model call",
            MIN_TASK_GAP.as_secs() / 60
        )));
    }
    Ok(schedule)
}

/// The next `n` runs, as the owner reads them.
fn next_runs(schedule: &Schedule, from: DateTime<Utc>, tz: Tz, n: usize) -> String {
    let mut out = Vec::new();
    let mut cursor = from;
    while out.len() < n {
        let Some(next) = schedule.next_fire(cursor, tz) else {
            break;
        };
        out.push(
            next.with_timezone(&tz)
                .format("%a %-d %b %Y %H:%M")
                .to_string(),
        );
        cursor = next;
    }
    format!("{} ({tz})", out.join(", "))
}

pub struct ScheduleTask {
    store: Arc<dyn TaskStore>,
    clock: Arc<dyn Clock>,
}

impl ScheduleTask {
    pub fn new(store: Arc<dyn TaskStore>, clock: Arc<dyn Clock>) -> ScheduleTask {
        ScheduleTask { store, clock }
    }

    fn checked<'a>(
        &self,
        args: &'a Value,
        tz: Tz,
    ) -> Result<(&'a str, &'a str, Schedule), ToolError> {
        let title = bounded_arg(args, "title", MAX_TITLE_CHARS, MAX_TASK_TITLE_LEN)?;
        let prompt = bounded_arg(args, "prompt", MAX_PROMPT_CHARS, MAX_TASK_PROMPT_LEN)?;
        let schedule = task_schedule(str_arg(args, "schedule")?, now(self.clock.as_ref()), tz)?;
        Ok((title, prompt, schedule))
    }
}

#[async_trait::async_trait]
impl Tool for ScheduleTask {
    fn name(&self) -> &str {
        "schedule_task"
    }

    fn description(&self) -> &str {
        "Set up recurring work the owner asks for: each time the schedule fires, the agent is given `prompt` and the answer is sent here. `schedule`: `daily HH:MM`, `weekly <day> HH:MM`, `every <n>h`, or `cron <5 fields>`, in the owner's time zone; at most every 15 minutes. For a one-off, use schedule_reminder."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": MAX_TITLE_CHARS},
                "prompt": {"type": "string", "minLength": 1, "maxLength": MAX_PROMPT_CHARS},
                "schedule": {"type": "string", "minLength": 1, "maxLength": 256}
            },
            "required": ["title", "prompt", "schedule"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::Write
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        // The zone is the caller's; UTC here only checks the words and the gap.
        self.checked(args, Tz::UTC).map(|_| ())
    }

    fn reach(&self, args: &Value) -> Reach {
        let title = args.get("title").and_then(Value::as_str).unwrap_or("");
        let schedule = args.get("schedule").and_then(Value::as_str).unwrap_or("");
        Reach {
            summary: Some(format!(
                "recurring task “{}” {}",
                Reach::line(title, 80),
                Reach::line(schedule, 40)
            )),
            ..Reach::default()
        }
    }

    async fn preview(&self, args: &Value, ctx: &ToolContext) -> Option<Result<String, ToolError>> {
        let tz = zone(ctx);
        Some(self.checked(args, tz).map(|(title, prompt, schedule)| {
            format!(
                "Will run the task “{title}” {schedule}; next: {}.\nEach time, the agent is asked:\n{prompt}\nThe answer comes to this conversation; anything consequential it wants to do waits for your approval.",
                next_runs(&schedule, now(self.clock.as_ref()), tz, 3)
            )
        }))
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let tz = zone(ctx);
        let (title, prompt, schedule) = self.checked(&args, tz)?;
        let active = self
            .store
            .tasks_of(ctx.principal.id(), false, MAX_ACTIVE_TASKS + 1)
            .await
            .map_err(store_error)?;
        if active.len() >= MAX_ACTIVE_TASKS {
            return Err(ToolError::InvalidArguments(format!(
                "the owner already has {MAX_ACTIVE_TASKS} recurring tasks; cancel one first (list_tasks)"
            )));
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        let task = Task {
            id: id.clone(),
            principal: ctx.principal.id().clone(),
            title: title.to_owned(),
            prompt: prompt.to_owned(),
            schedule: schedule.to_string(),
            surface: ctx.surface,
            conversation: ctx.conversation.clone(),
            trace_id: ctx.trace_id.clone().unwrap_or_else(|| "none".to_owned()),
            status: TaskStatus::Active,
            created_ms: self.clock.now_ms(),
            cancelled_ms: None,
        };
        self.store.add_task(&task).await.map_err(store_error)?;
        Ok(format!(
            "Task “{title}” set (id {id}): runs {schedule}; next: {}. Tell the owner these times.",
            next_runs(&schedule, now(self.clock.as_ref()), tz, 2)
        ))
    }
}

pub struct ListTasks {
    store: Arc<dyn TaskStore>,
}

impl ListTasks {
    pub fn new(store: Arc<dyn TaskStore>) -> ListTasks {
        ListTasks { store }
    }
}

#[async_trait::async_trait]
impl Tool for ListTasks {
    fn name(&self) -> &str {
        "list_tasks"
    }

    fn description(&self) -> &str {
        "List the owner's recurring tasks (with ids, to cancel one)."
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
        let tasks = self
            .store
            .tasks_of(ctx.principal.id(), false, LIST_LIMIT)
            .await
            .map_err(store_error)?;
        if tasks.is_empty() {
            return Ok("No recurring tasks.".to_owned());
        }
        let lines: Vec<String> = tasks
            .iter()
            .map(|t| format!("- {}: “{}” {}", t.id, t.title, t.schedule))
            .collect();
        Ok(lines.join("\n"))
    }
}

pub struct CancelTask {
    store: Arc<dyn TaskStore>,
    clock: Arc<dyn Clock>,
}

impl CancelTask {
    pub fn new(store: Arc<dyn TaskStore>, clock: Arc<dyn Clock>) -> CancelTask {
        CancelTask { store, clock }
    }
}

#[async_trait::async_trait]
impl Tool for CancelTask {
    fn name(&self) -> &str {
        "cancel_task"
    }

    fn description(&self) -> &str {
        "Cancel one of the owner's recurring tasks by its id."
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
        let found = self.store.task(id).await.map_err(store_error)?;
        // Another principal's task reads as unknown: ids are not a way to probe.
        let Some(task) = found.filter(|t| &t.principal == ctx.principal.id()) else {
            return Ok(format!("No task with id {id}."));
        };
        let cancelled = self
            .store
            .cancel_task(&task.id, self.clock.now_ms())
            .await
            .map_err(store_error)?;
        Ok(if cancelled {
            format!("Cancelled the task “{}” ({}).", task.title, task.schedule)
        } else {
            format!("That task was already {}.", task.status.as_str())
        })
    }
}
