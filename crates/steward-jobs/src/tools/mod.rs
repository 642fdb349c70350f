//! The model's tools for proactive work: `schedule_reminder`, `list_reminders`,
//! `cancel_reminder`, and for recurring tasks `schedule_task`, `list_tasks`, `cancel_task`
//! (setting a task asks first: `tools/tasks.rs` says why). Setting a reminder is Steward writing its own data for the owner
//! (`Effect::Memory`: allowed on a surface a person uses, and declared in `reach`, so after
//! untrusted content the taint rule shows a card first); the owner sees every reminder in
//! `list_reminders` and in `steward jobs`, and can cancel it.
//!
//! Owns: the tools. Does not own: the phrase rules (`when`), the delivery (`jobs::reminders`).

mod reminders;
mod tasks;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use steward_protocol::Clock;
use steward_store::{JobStore, TaskStore};
use steward_tools::{Tool, ToolContext};

pub use reminders::{CancelReminder, ListReminders, ScheduleReminder};
pub use tasks::{
    CancelTask, ListTasks, MAX_ACTIVE_TASKS, MIN_TASK_GAP, ScheduleTask, task_schedule,
};

/// The reminder tools over `store`, reading "now" from `clock`.
pub fn reminder_tools(store: Arc<dyn JobStore>, clock: Arc<dyn Clock>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ScheduleReminder::new(
            Arc::clone(&store),
            Arc::clone(&clock),
        )),
        Arc::new(ListReminders::new(Arc::clone(&store), Arc::clone(&clock))),
        Arc::new(CancelReminder::new(store, clock)),
    ]
}

/// The recurring-task tools over `store`, reading "now" from `clock`.
pub fn task_tools(store: Arc<dyn TaskStore>, clock: Arc<dyn Clock>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ScheduleTask::new(Arc::clone(&store), Arc::clone(&clock))),
        Arc::new(ListTasks::new(Arc::clone(&store))),
        Arc::new(CancelTask::new(store, clock)),
    ]
}

/// The caller's time zone (the owner's `timezone`, UTC when unset or unknown).
fn zone(ctx: &ToolContext) -> Tz {
    ctx.timezone
        .as_deref()
        .and_then(|t| t.parse::<Tz>().ok())
        .unwrap_or(Tz::UTC)
}

/// "Now" from the injected clock.
fn now(clock: &dyn Clock) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp_millis(clock.now_ms()).unwrap_or_default()
}
