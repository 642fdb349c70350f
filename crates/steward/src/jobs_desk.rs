//! `AppJobsDesk`: steward-server's `JobsDesk` over this process's scheduler (`JobsControl`)
//! and the store — what `/api/v1/jobs` and `/api/v1/scheduled/…` show and do.
//!
//! Owns: the mapping from the scheduler's records to the port's views. Does not own: the
//! routes (steward-server), which jobs exist (`jobs_wiring::slots`), the records (the store).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use steward_jobs::schedule::Schedule;
use steward_protocol::{Clock, PrincipalId};
use steward_server::{Cancelled, JobRun, JobSummary, JobsDesk, JobsDeskError, TaskSummary};
use steward_store::{
    Claim, OccurrenceRecord, Reminder, ReminderStatus, Store, StoreError, TaskStatus,
};

use crate::jobs_wiring::{self, JobsControl};

/// Most reminders or tasks one listing reads.
const LIST_LIMIT: usize = 1_000;
/// Most tasks a person keeps is far fewer; a listing with the cancelled ones reads this many.
const TASK_LIMIT: usize = 500;

pub struct AppJobsDesk {
    control: Arc<JobsControl>,
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
}

impl AppJobsDesk {
    pub fn new(control: Arc<JobsControl>, store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        Self {
            control,
            store,
            clock,
        }
    }

    fn now(&self) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp_millis(self.clock.now_ms()).unwrap_or_default()
    }

    fn zone(&self) -> Tz {
        self.control.settings().timezone.parse().unwrap_or(Tz::UTC)
    }

    fn next_fire(&self, schedule: &str) -> Option<i64> {
        let schedule = schedule.parse::<Schedule>().ok()?;
        schedule
            .next_fire(self.now(), self.zone())
            .map(|t| t.timestamp_millis())
    }
}

fn store_failed(e: StoreError) -> JobsDeskError {
    tracing::error!(error = %e, "the jobs desk could not read or write the store");
    JobsDeskError::Store
}

fn run_of(r: &OccurrenceRecord) -> JobRun {
    JobRun {
        occurrence: r.occurrence.clone(),
        status: r.status.as_str().to_owned(),
        scheduled_ms: r.scheduled_ms,
        attempts: r.attempts,
        finished_ms: r.finished_ms,
        outcome: r.outcome.clone(),
    }
}

#[async_trait::async_trait]
impl JobsDesk for AppJobsDesk {
    async fn jobs(&self) -> Result<Vec<JobSummary>, JobsDeskError> {
        let settings = self.control.settings();
        let beats = self.store.heartbeats().await.map_err(store_failed)?;
        let mut out = Vec::new();
        for job in jobs_wiring::schedules(&settings) {
            let last = self
                .store
                .job_history(job.name, 1)
                .await
                .map_err(store_failed)?
                .first()
                .map(run_of);
            // The canonical words, or empty when it never fires.
            let schedule = match job.schedule.parse::<Schedule>() {
                Ok(s) if !s.is_disabled() => s.to_string(),
                _ => String::new(),
            };
            out.push(JobSummary {
                name: job.name.to_owned(),
                setting: job.key.to_owned(),
                next_fire_ms: self.next_fire(&schedule),
                schedule,
                heartbeat_ms: beats.iter().find(|b| b.job == job.name).map(|b| b.at_ms),
                last,
            });
        }
        Ok(out)
    }

    async fn run_now(&self, name: &str) -> Result<JobRun, JobsDeskError> {
        let ran = self.control.run_now(name).await.map_err(|e| {
            tracing::error!(job = name, error = %e, "could not run a job now");
            JobsDeskError::Store
        })?;
        let Some((key, claim)) = ran else {
            return Err(JobsDeskError::UnknownJob(name.to_owned()));
        };
        if let Claim::Held { .. } = claim {
            return Err(JobsDeskError::Busy(format!("{name} is running now")));
        }
        let record = self
            .store
            .occurrence(name, &key)
            .await
            .map_err(store_failed)?
            .ok_or(JobsDeskError::Store)?;
        Ok(run_of(&record))
    }

    async fn reminders(
        &self,
        who: &PrincipalId,
        include_closed: bool,
    ) -> Result<Vec<Reminder>, JobsDeskError> {
        self.store
            .reminders_of(who, include_closed, LIST_LIMIT)
            .await
            .map_err(store_failed)
    }

    async fn cancel_reminder(
        &self,
        who: &PrincipalId,
        id: &str,
    ) -> Result<Cancelled, JobsDeskError> {
        let found = self.store.reminder(id).await.map_err(store_failed)?;
        // Another person's reminder reads as unknown: ids are not a way to probe.
        let Some(reminder) = found.filter(|r| &r.principal == who) else {
            return Ok(Cancelled::NotFound);
        };
        let now = self
            .store
            .close_reminder(id, ReminderStatus::Cancelled, self.clock.now_ms())
            .await
            .map_err(store_failed)?;
        if now {
            return Ok(Cancelled::Now);
        }
        let status = match self.store.reminder(id).await.map_err(store_failed)? {
            Some(r) => r.status,
            None => reminder.status,
        };
        Ok(Cancelled::Already {
            status: status.as_str(),
        })
    }

    async fn tasks(
        &self,
        who: &PrincipalId,
        include_cancelled: bool,
    ) -> Result<Vec<TaskSummary>, JobsDeskError> {
        let tasks = self
            .store
            .tasks_of(who, include_cancelled, TASK_LIMIT)
            .await
            .map_err(store_failed)?;
        Ok(tasks
            .into_iter()
            .map(|task| TaskSummary {
                next_fire_ms: (task.status == TaskStatus::Active)
                    .then(|| self.next_fire(&task.schedule))
                    .flatten(),
                task,
            })
            .collect())
    }

    async fn cancel_task(&self, who: &PrincipalId, id: &str) -> Result<Cancelled, JobsDeskError> {
        let found = self.store.task(id).await.map_err(store_failed)?;
        if found.is_none_or(|t| &t.principal != who) {
            return Ok(Cancelled::NotFound);
        }
        if self
            .store
            .cancel_task(id, self.clock.now_ms())
            .await
            .map_err(store_failed)?
        {
            return Ok(Cancelled::Now);
        }
        Ok(Cancelled::Already {
            status: TaskStatus::Cancelled.as_str(),
        })
    }
}
