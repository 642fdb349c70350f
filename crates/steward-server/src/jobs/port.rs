//! The `JobsDesk` port: what `/api/v1/jobs` and `/api/v1/scheduled/…` need from the running
//! scheduler, which the binary implements (the server sees neither the jobs' settings nor the
//! scheduler): each job with its schedule, next fire, last run and heartbeat; running one now;
//! the caller's scheduled reminders and recurring tasks, and cancelling one.
//!
//! Owns: the port and its plain types. Does not own: the routes (`jobs/routes.rs`), the jobs
//! (steward-jobs), the records (steward-store).

use steward_protocol::PrincipalId;
use steward_store::{Reminder, Task};

/// One job as `GET /api/v1/jobs` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSummary {
    pub name: String,
    /// The setting that holds its schedule (`jobs.briefing`).
    pub setting: String,
    /// The schedule in its canonical words; empty when disabled.
    pub schedule: String,
    /// The next fire from now in the owner's zone; None when disabled.
    pub next_fire_ms: Option<i64>,
    /// The job's latest sign of life (its loop beats every minute while it runs).
    pub heartbeat_ms: Option<i64>,
    /// The latest occurrence.
    pub last: Option<JobRun>,
}

/// One occurrence of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRun {
    pub occurrence: String,
    /// `running`, `retrying`, `done`, `skipped` or `failed`.
    pub status: String,
    pub scheduled_ms: i64,
    pub attempts: u32,
    pub finished_ms: Option<i64>,
    /// Its summary or error (no secrets, no content).
    pub outcome: String,
}

/// A recurring task with its next run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSummary {
    pub task: Task,
    /// None for a cancelled task (or a schedule that never fires again).
    pub next_fire_ms: Option<i64>,
}

/// What cancelling a reminder or a task came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancelled {
    /// It was pending (active) and is cancelled now.
    Now,
    /// It was delivered or cancelled before (`status` is how it stands).
    Already { status: &'static str },
    /// No such id for this caller (another person's reads the same).
    NotFound,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JobsDeskError {
    #[error("no job named {0}")]
    UnknownJob(String),
    /// The job's occurrence is held by a run now (here or in another process).
    #[error("{0}")]
    Busy(String),
    #[error("storage failed; see the server log")]
    Store,
}

/// What the binary implements for the jobs routes.
#[async_trait::async_trait]
pub trait JobsDesk: Send + Sync {
    /// Every job, in the order `steward jobs` lists them.
    async fn jobs(&self) -> Result<Vec<JobSummary>, JobsDeskError>;
    /// Run `name` once now, outside its schedule, and wait for the attempt's end.
    async fn run_now(&self, name: &str) -> Result<JobRun, JobsDeskError>;
    /// `who`'s reminders: pending ones soonest first, then (with `include_closed`) delivered
    /// and cancelled ones.
    async fn reminders(
        &self,
        who: &PrincipalId,
        include_closed: bool,
    ) -> Result<Vec<Reminder>, JobsDeskError>;
    async fn cancel_reminder(
        &self,
        who: &PrincipalId,
        id: &str,
    ) -> Result<Cancelled, JobsDeskError>;
    /// `who`'s recurring tasks: active ones oldest first, then (with `include_cancelled`)
    /// cancelled ones.
    async fn tasks(
        &self,
        who: &PrincipalId,
        include_cancelled: bool,
    ) -> Result<Vec<TaskSummary>, JobsDeskError>;
    async fn cancel_task(&self, who: &PrincipalId, id: &str) -> Result<Cancelled, JobsDeskError>;
}
