//! Nightly reflection: the messages since the last reflection that did something (its first
//! attempt's start, so nothing falls between two; none yet: the last 24 hours) are shown to
//! the model through `Memory::reflect`, which keeps profile facts, intentions, learnings and
//! topic summaries through the memory gate. No messages, or no model configured: nothing
//! happens and no model is called. It says nothing to anyone.
//!
//! Owns: which messages a scheduled reflection covers and which model it asks. Does not own:
//! reflecting (`steward_memory::reflect`), when it runs (the scheduler).

use std::sync::Arc;

use steward_llm::{ModelRef, Models};
use steward_memory::Memory;
use steward_store::{JobStore, OccurrenceStatus};

use crate::job::{Job, JobError, JobOutcome, RunContext};
use crate::jobs::memory_failure::job_error;

/// The model reflection asks now (None: none configured). Read at each run, so a model
/// changed in the app's settings is the next reflection's.
pub type ModelChoice = Arc<dyn Fn() -> Option<ModelRef> + Send + Sync>;

/// How far back a job's history is read for its last reflection that did something.
const HISTORY_ROWS: usize = 200;
/// The look back of a reflection with no earlier one to start from.
const FIRST_LOOK_BACK_MS: i64 = 24 * 60 * 60 * 1000;

pub struct ReflectionJob {
    memory: Arc<Memory>,
    models: Arc<Models>,
    model: ModelChoice,
    store: Arc<dyn JobStore>,
    /// Whose facts, intentions and learnings these are (the owner's).
    user: String,
}

impl ReflectionJob {
    pub fn new(
        memory: Arc<Memory>,
        models: Arc<Models>,
        model: ModelChoice,
        store: Arc<dyn JobStore>,
        user: String,
    ) -> ReflectionJob {
        ReflectionJob {
            memory,
            models,
            model,
            store,
            user,
        }
    }

    /// Where this reflection starts: the last one that did something (another occurrence
    /// than this one), else a day back by the memory's clock.
    async fn since_ms(&self, ctx: &RunContext) -> Result<i64, JobError> {
        let history = self
            .store
            .job_history(ctx.job.as_str(), HISTORY_ROWS)
            .await
            .map_err(|e| JobError::retry(format!("could not read the job's history: {e}")))?;
        let last_done = history
            .iter()
            .find(|r| r.status == OccurrenceStatus::Done && r.occurrence != ctx.occurrence);
        Ok(match last_done {
            Some(r) => r.started_ms,
            None => self.memory.now_ms().saturating_sub(FIRST_LOOK_BACK_MS),
        })
    }
}

#[async_trait::async_trait]
impl Job for ReflectionJob {
    async fn run(&self, ctx: &RunContext) -> Result<JobOutcome, JobError> {
        let Some(model) = (self.model)() else {
            return Ok(JobOutcome::Nothing("no model configured".to_owned()));
        };
        let since = self.since_ms(ctx).await?;
        let report = self
            .memory
            .reflect(&self.models, &model, &self.user, since)
            .await
            .map_err(|e| job_error("reflection failed", e))?;
        if report.messages == 0 {
            return Ok(JobOutcome::Nothing(
                "no messages since the last reflection".to_owned(),
            ));
        }
        let f = &report.facts;
        Ok(JobOutcome::Done(format!(
            "{} message(s): {} fact(s) new, {} updated; {} learning(s), {} intention(s), \
             {} summary(ies); {} refused",
            report.messages,
            f.inserted,
            f.updated,
            report.learnings,
            report.intentions,
            report.summaries,
            report.refused.len()
        )))
    }
}
