//! The embedding backfill: notes, facts and read-later items saved while the embedder was
//! down (or before it was configured) get their vectors, so recall by meaning finds them.
//! Nothing missing, or no embedder: nothing happens.
//!
//! Owns: turning the backfill into a job. Does not own: the rounds and the embedding
//! (`Memory::backfill_all`), when it runs (the scheduler).

use std::sync::Arc;

use steward_memory::Memory;

use crate::job::{Job, JobError, JobOutcome, RunContext};
use crate::jobs::memory_failure::job_error;

pub struct BackfillJob {
    memory: Arc<Memory>,
}

impl BackfillJob {
    pub fn new(memory: Arc<Memory>) -> BackfillJob {
        BackfillJob { memory }
    }
}

#[async_trait::async_trait]
impl Job for BackfillJob {
    async fn run(&self, _: &RunContext) -> Result<JobOutcome, JobError> {
        let Some(model) = self.memory.embedder_id().map(str::to_owned) else {
            return Ok(JobOutcome::Nothing("no embedding model".to_owned()));
        };
        // Vectors already added stay added when a round fails: the retry goes on from there.
        let added = self
            .memory
            .backfill_all()
            .await
            .map_err(|e| job_error("the backfill failed", e))?;
        if added == 0 {
            return Ok(JobOutcome::Nothing("no vector missing".to_owned()));
        }
        Ok(JobOutcome::Done(format!(
            "{added} vector(s) added for {model}"
        )))
    }
}
