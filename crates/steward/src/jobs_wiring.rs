//! The scheduler in `steward serve`: one `Scheduler` for this process (its owner name is
//! unique, so several processes on one database share the work through leases), the jobs
//! with their schedules from the settings, and the proactive budget — both behind `watch`
//! channels, so a change in the app's Settings page (`AppSettings`) reschedules, disables or
//! re-budgets a job without a restart (`JobsControl::apply`). Besides the `jobs.*` jobs it
//! runs the approval expiry sweep (every `approvals.sweep_secs`, in whole minutes): in
//! `steward serve` the scheduler sweeps, not the approval desk's own loop.
//!
//! Owns: which jobs run and what settings each gets. Does not own: the scheduler or the jobs
//! (steward-jobs), the settings' rules (`config`).

use std::sync::Arc;
use std::time::Duration;

use chrono_tz::Tz;
use steward_jobs::jobs::{
    ApprovalsJob, BackfillJob, ModelChoice, ReflectionJob, RemindersJob, RetentionJob,
};
use steward_jobs::runner::{MissedPolicy, RunPolicy, WallTimer};
use steward_jobs::schedule::Schedule;
use steward_jobs::voice::{parse_quiet_hours, parse_silenced};
use steward_jobs::{Budget, Job, JobSettings, ScheduledJob, Scheduler, Voice};
use steward_llm::ModelRef;
use steward_protocol::JobName;
use steward_store::JobStore;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::app::App;
use crate::config::Settings;

/// A job of `steward serve`: its name, the setting that holds its schedule, how its attempts
/// run and how it is built. Adding a job is one entry in `slots`.
#[derive(Clone, Copy)]
struct Slot {
    name: &'static str,
    /// The setting that holds its schedule (for the log when it does not parse).
    key: &'static str,
    /// Its schedule in `Schedule`'s words (computed for a job whose setting is not one).
    schedule: fn(&Settings) -> String,
    policy: fn() -> RunPolicy,
    build: fn(&JobDeps) -> Arc<dyn Job>,
}

/// What the jobs are built from.
struct JobDeps<'a> {
    app: &'a App,
    store: Arc<dyn JobStore>,
    voice: Voice,
    /// The settings at start (what cannot change while Steward runs, such as
    /// `memory.extraction_model` and `owner`).
    settings: &'a Settings,
}

/// Every job, in the order `steward jobs` lists them.
fn slots() -> Vec<Slot> {
    vec![
        Slot {
            name: "reminders",
            key: "jobs.reminders",
            schedule: |s| s.jobs.reminders.clone(),
            policy: reminder_policy,
            build: |d| {
                Arc::new(RemindersJob::new(
                    Arc::clone(&d.store),
                    d.voice.clone(),
                    d.app.clock.clone(),
                ))
            },
        },
        Slot {
            name: "approvals",
            key: "approvals.sweep_secs",
            schedule: |s| sweep_schedule(s.approvals.sweep),
            policy: sweep_policy,
            build: |d| Arc::new(ApprovalsJob::new(Arc::new(d.app.steward.clone()))),
        },
        Slot {
            name: "reflection",
            key: "jobs.reflection",
            schedule: |s| s.jobs.reflection.clone(),
            policy: || upkeep_policy(Duration::from_secs(10 * 60)),
            build: |d| {
                Arc::new(ReflectionJob::new(
                    d.app.memory.clone(),
                    d.app.models.clone(),
                    reflection_model(d),
                    Arc::clone(&d.store),
                    d.settings.owner.clone(),
                ))
            },
        },
        Slot {
            name: "retention",
            key: "jobs.retention",
            schedule: |s| s.jobs.retention.clone(),
            policy: || upkeep_policy(Duration::from_secs(5 * 60)),
            build: |d| {
                Arc::new(RetentionJob::new(
                    Arc::clone(&d.store),
                    d.app.memory.clone(),
                ))
            },
        },
        Slot {
            name: "backfill",
            key: "jobs.backfill",
            schedule: |s| s.jobs.backfill.clone(),
            policy: || upkeep_policy(Duration::from_secs(30 * 60)),
            build: |d| Arc::new(BackfillJob::new(d.app.memory.clone())),
        },
    ]
}

/// Each job's name, the setting that holds its schedule, and its schedule now, in the order
/// `steward jobs` lists them.
pub fn schedules(settings: &Settings) -> Vec<(&'static str, &'static str, String)> {
    slots()
        .iter()
        .map(|slot| (slot.name, slot.key, (slot.schedule)(settings)))
        .collect()
}

/// The approval sweep every `approvals.sweep_secs`, rounded up to whole minutes (the
/// scheduler's granularity), at least one.
pub fn sweep_schedule(sweep: Duration) -> String {
    format!("every {}m", sweep.as_secs().div_ceil(60).max(1))
}

/// The model reflection asks: `memory.extraction_model` (fixed while Steward runs), else the
/// primary model as it is now (the app's settings can change it).
fn reflection_model(d: &JobDeps) -> ModelChoice {
    let fixed = d
        .settings
        .memory
        .extraction_model
        .as_deref()
        .and_then(|m| match ModelRef::parse(m) {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::error!(error = %e, "memory.extraction_model does not parse; reflection uses `model`");
                None
            }
        });
    let steward = d.app.steward.clone();
    Arc::new(move || fixed.clone().or_else(|| steward.binding().primary))
}

/// The running jobs' settings, to change while they run.
pub struct JobsControl {
    jobs: Vec<(Slot, watch::Sender<JobSettings>)>,
    budget: watch::Sender<Budget>,
}

impl JobsControl {
    /// Put `settings`' schedules and budget in force (the jobs see it at once).
    pub fn apply(&self, settings: &Settings) {
        for (slot, sender) in &self.jobs {
            let next = slot_settings(slot, settings);
            // Only a real change is sent: a job treats new settings as a new schedule from now.
            sender.send_if_modified(|current| {
                let same = format!("{:?}", current.timing) == format!("{:?}", next.timing)
                    && current.tz == next.tz
                    && current.policy == next.policy;
                if !same {
                    *current = next;
                }
                !same
            });
        }
        self.budget.send_replace(budget(settings));
    }
}

fn zone(settings: &Settings) -> Tz {
    settings.timezone.parse().unwrap_or(Tz::UTC)
}

/// A schedule that passed its rule at load; one that somehow does not is disabled, loudly.
fn schedule(text: &str, key: &str) -> Schedule {
    match text.parse::<Schedule>() {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(key, error = %e, "a job schedule did not parse; the job is disabled");
            Schedule::Disabled
        }
    }
}

fn slot_settings(slot: &Slot, settings: &Settings) -> JobSettings {
    JobSettings {
        timing: Arc::new(schedule(&(slot.schedule)(settings), slot.key)),
        tz: zone(settings),
        policy: (slot.policy)(),
    }
}

/// Reminders: a short attempt, retried soon; a missed minute needs no catching up (the next
/// run delivers everything due).
fn reminder_policy() -> RunPolicy {
    RunPolicy {
        timeout: Duration::from_secs(60),
        backoff: Duration::from_secs(15),
        max_backoff: Duration::from_secs(60),
        ..RunPolicy::default()
    }
}

/// The approval sweep: like reminders, a short attempt retried soon; a missed sweep needs no
/// catching up (start-up sweeps once, and the next one expires everything overdue).
fn sweep_policy() -> RunPolicy {
    reminder_policy()
}

/// Upkeep (reflection, retention, backfill): it must happen eventually, so an occurrence
/// missed while Steward was down runs once at start; `timeout` per attempt.
fn upkeep_policy(timeout: Duration) -> RunPolicy {
    RunPolicy {
        missed: MissedPolicy::RunOnce,
        timeout,
        ..RunPolicy::default()
    }
}

fn budget(settings: &Settings) -> Budget {
    let p = &settings.proactive;
    Budget {
        quiet: p
            .quiet_hours
            .as_deref()
            .and_then(|q| parse_quiet_hours(q).ok().flatten()),
        daily_cap: p.daily_cap,
        silenced: p
            .silenced
            .as_deref()
            .and_then(|s| parse_silenced(s).ok())
            .unwrap_or_default(),
        tz: zone(settings),
    }
}

fn name(raw: &str) -> anyhow::Result<JobName> {
    JobName::parse(raw).map_err(|e| anyhow::anyhow!("job name {raw}: {e}"))
}

/// This process's name in leases and heartbeats.
fn owner() -> String {
    format!(
        "pid{}-{}",
        std::process::id(),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

/// Start the jobs; they stop with `stop`.
pub fn start(
    app: &App,
    settings: &Settings,
    stop: &CancellationToken,
) -> anyhow::Result<Arc<JobsControl>> {
    let store: Arc<dyn JobStore> = app.store.clone();
    let timer = Arc::new(WallTimer::new(app.clock.clone()));
    let scheduler = Scheduler::new(Arc::clone(&store), timer, owner());
    let (budget_tx, budget_rx) = watch::channel(budget(settings));
    let voice = Voice::new(
        Arc::clone(&store),
        Arc::new(app.steward.clone()),
        app.clock.clone(),
        budget_rx,
    );
    let deps = JobDeps {
        app,
        store: Arc::clone(&store),
        voice,
        settings,
    };
    let mut jobs = Vec::new();
    for slot in slots() {
        let (tx, rx) = watch::channel(slot_settings(&slot, settings));
        scheduler.spawn(
            ScheduledJob {
                name: name(slot.name)?,
                job: (slot.build)(&deps),
                settings: rx,
            },
            stop.child_token(),
        );
        tracing::info!(
            job = slot.name,
            schedule = (slot.schedule)(settings),
            "job scheduled"
        );
        jobs.push((slot, tx));
    }
    tracing::info!(owner = scheduler.owner(), "scheduler started");
    Ok(Arc::new(JobsControl {
        jobs,
        budget: budget_tx,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_runs_every_whole_minute_at_least_one() {
        let every = |secs| sweep_schedule(Duration::from_secs(secs));
        assert_eq!(every(1), "every 1m");
        assert_eq!(every(30), "every 1m");
        assert_eq!(every(60), "every 1m");
        assert_eq!(every(61), "every 2m");
        assert_eq!(every(3600), "every 60m");
        assert_eq!(sweep_schedule(Duration::ZERO), "every 1m");
        for secs in [1, 61, 3600] {
            assert!(
                every(secs)
                    .parse::<Schedule>()
                    .is_ok_and(|s| s != Schedule::Disabled),
                "{secs}"
            );
        }
    }

    #[test]
    fn every_job_is_in_the_table_once() {
        let names: Vec<&str> = slots().iter().map(|s| s.name).collect();
        for job in [
            "reminders",
            "approvals",
            "reflection",
            "retention",
            "backfill",
        ] {
            assert_eq!(names.iter().filter(|n| **n == job).count(), 1, "{job}");
            assert!(name(job).is_ok(), "{job} is a valid job name");
        }
    }
}
