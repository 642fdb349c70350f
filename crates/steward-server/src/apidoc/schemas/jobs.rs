//! Schemas of the scheduler routes' bodies (`jobs/routes.rs`): the jobs list, a run, the
//! caller's scheduled reminders and recurring tasks, and the 409 of cancelling one that was
//! closed before. Like every schema here: never built, field for field what the handler writes.
//!
//! Owns: those bodies' names and shapes in the document. Does not own: the bodies.

use crate::error::ErrorDetail;
use steward_protocol::{ConversationId, Surface};
use utoipa::ToSchema;

/// One occurrence of a job.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct JobRunView {
    /// The occurrence's dedup key (its scheduled time, or a run-now key).
    occurrence: String,
    /// `running`, `retrying`, `done`, `skipped` or `failed`.
    status: String,
    scheduled_ms: i64,
    attempts: u32,
    /// Null while it runs or waits for a retry.
    finished_ms: Option<i64>,
    /// Its summary or error (no secrets, no content).
    outcome: String,
}

/// One scheduled job.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct JobView {
    name: String,
    /// The setting that holds its schedule (`jobs.briefing`).
    setting: String,
    /// The schedule in its canonical words (`daily 07:30`); empty when disabled.
    schedule: String,
    /// Whether it has a schedule.
    enabled: bool,
    /// The next fire in the owner's zone; null when disabled.
    next_fire_ms: Option<i64>,
    /// Its latest sign of life; null when it never ran here.
    heartbeat_ms: Option<i64>,
    /// Its latest occurrence; null when none is recorded.
    last: Option<JobRunView>,
}

/// `GET /api/v1/jobs`.
#[derive(ToSchema)]
pub(crate) struct JobList {
    /// In the order `steward jobs` lists them.
    jobs: Vec<JobView>,
}

/// `POST /api/v1/jobs/{name}/run`.
#[derive(ToSchema)]
pub(crate) struct JobRunReply {
    run: JobRunView,
}

/// A reminder the scheduler will deliver (or did).
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScheduledReminder {
    id: String,
    text: String,
    due_ms: i64,
    /// The due time as it was shown back when it was set.
    shown: String,
    /// Where it is delivered: the surface and conversation it was set in.
    surface: Surface,
    conversation_id: ConversationId,
    /// `pending`, `delivered` or `cancelled`.
    status: String,
    created_ms: i64,
    /// When it was delivered or cancelled; null while pending.
    closed_ms: Option<i64>,
}

/// `GET /api/v1/scheduled/reminders`.
#[derive(ToSchema)]
pub(crate) struct ScheduledReminderList {
    /// Pending ones soonest first, then closed ones.
    reminders: Vec<ScheduledReminder>,
}

/// A recurring task: a stored prompt the scheduler runs as an agent turn on its schedule.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScheduledTask {
    id: String,
    title: String,
    prompt: String,
    /// In the schedule's canonical words (`daily 07:30`).
    schedule: String,
    /// Null for a cancelled task, or a schedule that never fires again.
    next_fire_ms: Option<i64>,
    /// Where its results go: the surface and conversation it was set in.
    surface: Surface,
    conversation_id: ConversationId,
    /// `active` or `cancelled`.
    status: String,
    created_ms: i64,
    cancelled_ms: Option<i64>,
}

/// `GET /api/v1/scheduled/tasks`.
#[derive(ToSchema)]
pub(crate) struct ScheduledTaskList {
    /// Active ones oldest first, then cancelled ones.
    tasks: Vec<ScheduledTask>,
}

/// 409: the reminder or task was closed before (`kind` `conflict`); nothing changed.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AlreadyClosed {
    error: ErrorDetail,
    /// How it stands: `delivered` or `cancelled`.
    status: String,
}
