//! One attempt at an occurrence: the job runs on a task of its own (a panic is caught as a
//! failure), under a timeout measured on the injected `Timer`, with its lease renewed every
//! third of its length; then the end is recorded — done, skipped, a retry after the policy's
//! backoff, or failed for good once the attempts are spent (or the error is permanent).
//!
//! Owns: running, timing and ending one attempt. Does not own: which occurrence
//! (`mod.rs`), the retry numbers (`policy`).

use std::sync::Arc;

use steward_protocol::JobName;
use steward_store::OccurrenceEnd;

use super::{Inner, RunPolicy, millis, time_of};
use crate::job::{Job, JobError, JobOutcome, RunContext};

/// How an attempt came out, before it is recorded.
enum Ended {
    Outcome(JobOutcome),
    Error(JobError),
    /// Another process took the occurrence over (this one's lease lapsed).
    LostLease,
}

impl Inner {
    pub(super) async fn attempt(
        &self,
        name: &JobName,
        job: &Arc<dyn Job>,
        policy: &RunPolicy,
        key: &str,
        scheduled_ms: i64,
        attempt: u32,
    ) {
        let ctx = RunContext {
            job: name.clone(),
            occurrence: key.to_owned(),
            scheduled: time_of(scheduled_ms),
            attempt,
            trace_id: uuid::Uuid::new_v4().simple().to_string(),
        };
        let started = self.timer.now_ms();
        let deadline = started.saturating_add(millis(policy.timeout));
        let lease = millis(policy.lease);
        let running = {
            let job = Arc::clone(job);
            let ctx = ctx.clone();
            tokio::spawn(async move { job.run(&ctx).await })
        };
        let abort = running.abort_handle();
        let renewing = async {
            let mut at = started;
            loop {
                at = at.saturating_add((lease / 3).max(1));
                self.timer.sleep_until(at).await;
                let until = self.timer.now_ms().saturating_add(lease);
                match self
                    .store
                    .renew_lease(name.as_str(), key, &self.owner, until)
                    .await
                {
                    Ok(true) => {}
                    Ok(false) => return,
                    // A busy database now is not a lost lease: try again at the next third.
                    Err(e) => {
                        tracing::warn!(job = %name, error = %e, "could not renew a job lease")
                    }
                }
            }
        };
        let ended = tokio::select! {
            joined = running => match joined {
                Ok(Ok(outcome)) => Ended::Outcome(outcome),
                Ok(Err(e)) => Ended::Error(e),
                Err(e) if e.is_panic() => Ended::Error(JobError::retry("the job panicked")),
                Err(_) => Ended::Error(JobError::retry("the job was cancelled")),
            },
            () = self.timer.sleep_until(deadline) => {
                abort.abort();
                Ended::Error(JobError::retry(format!(
                    "timed out after {} s", policy.timeout.as_secs()
                )))
            }
            () = renewing => {
                abort.abort();
                Ended::LostLease
            }
        };
        let now = self.timer.now_ms();
        let (end, outcome) = match ended {
            Ended::Outcome(JobOutcome::Done(summary)) => (OccurrenceEnd::Done, summary),
            Ended::Outcome(JobOutcome::Nothing(reason)) => (OccurrenceEnd::Skipped, reason),
            Ended::LostLease => {
                tracing::warn!(job = %name, occurrence = key, "a job's lease was taken over; its attempt stopped");
                return;
            }
            Ended::Error(e) => {
                let retry = (!e.permanent)
                    .then(|| policy.retry_after(attempt))
                    .flatten();
                match retry {
                    Some(wait) => {
                        tracing::warn!(job = %name, occurrence = key, attempt, error = %e.message, "a job attempt failed; it will be retried");
                        (
                            OccurrenceEnd::Retry {
                                at_ms: now.saturating_add(millis(wait)),
                            },
                            e.message,
                        )
                    }
                    None => {
                        tracing::error!(job = %name, occurrence = key, attempt, error = %e.message, "a job occurrence failed for good");
                        (OccurrenceEnd::Failed, e.message)
                    }
                }
            }
        };
        match self
            .store
            .end_occurrence(name.as_str(), key, &self.owner, end, &outcome, now)
            .await
        {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!(job = %name, occurrence = key, "a job ended after its lease was taken over; its end was not recorded")
            }
            Err(e) => {
                tracing::warn!(job = %name, error = %e, "could not record a job's end; its lease will lapse and it will be tried again")
            }
        }
    }
}
