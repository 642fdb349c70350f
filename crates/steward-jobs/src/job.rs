//! What a job is to the scheduler: a name and one async `run` per attempt at an occurrence,
//! which says what came of it — something done, nothing to do, or an error (retried within
//! the job's budget, unless it says it is permanent).
//!
//! Owns: the `Job` trait and what an attempt returns. Does not own: when it runs (`runner`),
//! what any job does (the jobs).

use chrono::{DateTime, Utc};
use steward_protocol::JobName;

/// The attempt a job is asked to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunContext {
    pub job: JobName,
    /// The occurrence's dedup key (`Timing`'s fire time, or a job's own key).
    pub occurrence: String,
    /// When the occurrence was due.
    pub scheduled: DateTime<Utc>,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// A fresh id for this attempt: the trace id of whatever it sends, so a reaction lands
    /// on it.
    pub trace_id: String,
}

/// What an attempt came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutcome {
    /// It did something (the summary is kept with the occurrence: no secrets, no content).
    Done(String),
    /// Nothing was due, silenced or over budget: recorded as skipped; no model call should
    /// have been made.
    Nothing(String),
}

/// Why an attempt failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct JobError {
    pub message: String,
    /// True when trying again cannot help (bad configuration, a refused input): no retry.
    pub permanent: bool,
}

impl JobError {
    /// A failure worth another attempt (network, a model's 5xx, a busy database).
    pub fn retry(message: impl Into<String>) -> JobError {
        JobError {
            message: message.into(),
            permanent: false,
        }
    }

    /// A failure no retry can fix.
    pub fn permanent(message: impl Into<String>) -> JobError {
        JobError {
            message: message.into(),
            permanent: true,
        }
    }
}

/// A unit of proactive work.
#[async_trait::async_trait]
pub trait Job: Send + Sync + 'static {
    /// One attempt at `ctx.occurrence`. The scheduler times it out, catches a panic as a
    /// failure, and records the result; the job must be safe to attempt again (a retry, or a
    /// takeover after its process died).
    async fn run(&self, ctx: &RunContext) -> Result<JobOutcome, JobError>;

    /// Wait for work an attempt started and left running on its own (a recurring task's
    /// turn): a command that runs a job once and exits calls it before exiting. Most jobs
    /// finish inside `run`.
    async fn settle(&self) {}
}
