//! Retention: the scheduler's own records and expired facts, swept. Skipped occurrences go
//! after a week (the reminders job alone writes one a minute), done and failed ones after 90
//! days (what `steward jobs report` looks back over); running and retrying ones, and each
//! job's latest, stay (the store's rule). Facts past their `expires_at` are deleted —
//! applied, not a dry run: expiry was set on each fact when it was written.
//!
//! Owns: the ages kept. Does not own: the deletions (`JobStore::prune_occurrences`,
//! `Memory::retention`), when it runs (the scheduler).

use std::sync::Arc;

use steward_memory::{Memory, RetentionPlan};
use steward_store::JobStore;

use crate::job::{Job, JobError, JobOutcome, RunContext};
use crate::jobs::memory_failure::job_error;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;
/// How long a skipped occurrence is kept.
pub const SKIPPED_KEPT_MS: i64 = 7 * DAY_MS;
/// How long a done or failed occurrence is kept.
pub const FINISHED_KEPT_MS: i64 = 90 * DAY_MS;

pub struct RetentionJob {
    store: Arc<dyn JobStore>,
    /// Its clock is this job's "now" too, so both sweeps measure ages alike.
    memory: Arc<Memory>,
}

impl RetentionJob {
    pub fn new(store: Arc<dyn JobStore>, memory: Arc<Memory>) -> RetentionJob {
        RetentionJob { store, memory }
    }
}

#[async_trait::async_trait]
impl Job for RetentionJob {
    async fn run(&self, _: &RunContext) -> Result<JobOutcome, JobError> {
        let now = self.memory.now_ms();
        let records = self
            .store
            .prune_occurrences(
                now.saturating_sub(SKIPPED_KEPT_MS),
                now.saturating_sub(FINISHED_KEPT_MS),
            )
            .await
            .map_err(|e| JobError::retry(format!("could not prune the job records: {e}")))?;
        let plan = RetentionPlan {
            expired_facts: true,
            ..RetentionPlan::default()
        };
        let facts = self
            .memory
            .retention(&plan, false)
            .await
            .map_err(|e| job_error("the fact sweep failed", e))?
            .total();
        if records == 0 && facts == 0 {
            return Ok(JobOutcome::Nothing(
                "nothing old enough to remove".to_owned(),
            ));
        }
        Ok(JobOutcome::Done(format!(
            "{records} job record(s) and {facts} expired fact(s) removed"
        )))
    }
}
