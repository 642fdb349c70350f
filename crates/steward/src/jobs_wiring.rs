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
    ApprovalsJob, BackfillJob, BriefingJob, FollowUpsJob, ModelChoice, Period, ReflectionJob,
    RemindersJob, RetentionJob, TasksJob, ToolWeather,
};
use steward_jobs::runner::{MissedPolicy, RunPolicy, WallTimer};
use steward_jobs::schedule::Schedule;
use steward_jobs::voice::{parse_quiet_hours, parse_silenced};
use steward_jobs::{Budget, Job, JobSettings, ScheduledJob, Scheduler, Voice};
use steward_llm::ModelRef;
use steward_protocol::{JobName, Principal, PrincipalId};
use steward_store::{Claim, JobStore};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::app::App;
use crate::config::Settings;

/// A job of `steward serve`: its name, the setting that holds its schedule, how its attempts
/// run and how it is built. Adding a job is one entry in `slots`.
#[derive(Clone, Copy)]
struct Slot {
    name: &'static str,
    /// The `jobs.*` key (for the log when it does not parse).
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
    /// The owner, whom recurring tasks run for.
    owner: Principal,
    /// Whom the briefings and follow-ups are for (`owner`).
    owner_id: PrincipalId,
    /// The owner's time zone, live (`timezone`).
    zone: watch::Receiver<Tz>,
    /// This process's name in leases.
    lease_owner: String,
    /// The settings at start (what cannot change while Steward runs, such as
    /// `memory.extraction_model`).
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
            name: "tasks",
            key: "jobs.tasks",
            schedule: |s| s.jobs.tasks.clone(),
            policy: task_policy,
            build: |d| {
                Arc::new(TasksJob::new(
                    d.app.store.clone(),
                    Arc::clone(&d.store),
                    Arc::new(d.app.steward.clone()),
                    d.owner.clone(),
                    d.voice.clone(),
                    d.app.clock.clone(),
                    d.lease_owner.clone(),
                    TASK_RUN_TIMEOUT,
                ))
            },
        },
        Slot {
            name: "briefing",
            key: "jobs.briefing",
            schedule: |s| s.jobs.briefing.clone(),
            policy: RunPolicy::default,
            build: |d| briefing(d, Period::Day),
        },
        Slot {
            name: "weekly_recap",
            key: "jobs.weekly_recap",
            schedule: |s| s.jobs.weekly_recap.clone(),
            policy: RunPolicy::default,
            build: |d| briefing(d, Period::Week),
        },
        Slot {
            name: "follow_ups",
            key: "jobs.follow_ups",
            schedule: |s| s.jobs.follow_ups.clone(),
            policy: follow_up_policy,
            build: |d| {
                Arc::new(FollowUpsJob::new(
                    Arc::clone(&d.app.store),
                    d.voice.clone(),
                    d.app.clock.clone(),
                    d.owner_id.clone(),
                    d.zone.clone(),
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

/// The morning briefing or the weekly recap (missed ones are skipped, the default: a 07:30
/// briefing is not sent at 11:00).
/// With `jobs.briefing_weather_tool` set, the morning one opens with that tool's line.
fn briefing(d: &JobDeps, period: Period) -> Arc<dyn Job> {
    let job = BriefingJob::new(
        Arc::clone(&d.app.store),
        d.voice.clone(),
        d.owner_id.clone(),
        d.zone.clone(),
        period,
    );
    let Some(tool) = d.settings.jobs.briefing_weather_tool.clone() else {
        return Arc::new(job);
    };
    // The rule checked it is an object at load.
    let args = serde_json::from_str(&d.settings.jobs.briefing_weather_args)
        .unwrap_or_else(|_| serde_json::json!({}));
    Arc::new(job.with_weather(Arc::new(ToolWeather::new(
        d.app.tools.clone(),
        tool,
        args,
        d.owner.clone(),
        d.settings.timezone.clone(),
    ))))
}

/// Follow-ups: a short attempt (a missed check needs no catching up: the next one finds
/// everything due).
fn follow_up_policy() -> RunPolicy {
    RunPolicy {
        timeout: Duration::from_secs(60),
        ..RunPolicy::default()
    }
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

/// Longest run of one recurring task (its turn is cancelled past it, and retried).
const TASK_RUN_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// A job running in this process.
struct Running {
    slot: Slot,
    settings: watch::Sender<JobSettings>,
    job: Arc<dyn Job>,
}

/// The running jobs: their settings, to change while they run, and a way to run one now.
pub struct JobsControl {
    scheduler: Scheduler,
    jobs: Vec<Running>,
    budget: watch::Sender<Budget>,
    zone: watch::Sender<Tz>,
    /// The settings last put in force (what `steward jobs`-style views read).
    current: std::sync::Mutex<Settings>,
}

/// A job's name, the setting that holds its schedule, and the schedule's text now.
pub struct JobSchedule {
    pub name: &'static str,
    pub key: &'static str,
    pub schedule: String,
}

/// Every job of `steward serve` with its schedule in `settings`, in listing order.
pub fn schedules(settings: &Settings) -> Vec<JobSchedule> {
    slots()
        .into_iter()
        .map(|slot| JobSchedule {
            name: slot.name,
            key: slot.key,
            schedule: (slot.schedule)(settings),
        })
        .collect()
}

impl JobsControl {
    /// Put `settings`' schedules and budget in force (the jobs see it at once).
    pub fn apply(&self, settings: &Settings) {
        for running in &self.jobs {
            let next = slot_settings(&running.slot, settings);
            // Only a real change is sent: a job treats new settings as a new schedule from now.
            running.settings.send_if_modified(|current| {
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
        self.zone.send_replace(zone(settings));
        match self.current.lock() {
            Ok(mut c) => *c = settings.clone(),
            Err(poisoned) => *poisoned.into_inner() = settings.clone(),
        }
    }

    /// The settings last put in force.
    pub fn settings(&self) -> Settings {
        match self.current.lock() {
            Ok(c) => c.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Run `name` once now, outside its schedule, under a key of its own
    /// (`manual-<unix ms>`), and wait for the attempt's end. None: no such job.
    pub async fn run_now(&self, name: &str) -> anyhow::Result<Option<(String, Claim)>> {
        let Some(running) = self.jobs.iter().find(|r| r.slot.name == name) else {
            return Ok(None);
        };
        let key = manual_key();
        let policy = (running.slot.policy)();
        let claim = self
            .scheduler
            .run_now(&self::name(name)?, &running.job, &policy, &key)
            .await?;
        Ok(Some((key, claim)))
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

/// Tasks: a tick only claims each due task's run (on a lease of its own) and starts it, so it
/// is short, like the reminders' (the runs have their own timeout, `TASK_RUN_TIMEOUT`).
fn task_policy() -> RunPolicy {
    reminder_policy()
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

/// What the running jobs' shared settings are sent through.
struct Senders {
    budget: watch::Sender<Budget>,
    zone: watch::Sender<Tz>,
}

/// A scheduler for this process, the budget's sender, and what the jobs are built from.
fn parts<'a>(
    app: &'a App,
    settings: &'a Settings,
) -> anyhow::Result<(Scheduler, Senders, JobDeps<'a>)> {
    let store: Arc<dyn JobStore> = app.store.clone();
    let timer = Arc::new(WallTimer::new(app.clock.clone()));
    let lease_owner = owner();
    let scheduler = Scheduler::new(Arc::clone(&store), timer, lease_owner.clone());
    let (budget_tx, budget_rx) = watch::channel(budget(settings));
    let voice = Voice::new(
        Arc::clone(&store),
        Arc::new(app.steward.clone()),
        app.clock.clone(),
        budget_rx,
    );
    let (zone_tx, zone_rx) = watch::channel(zone(settings));
    let owner_id = crate::app::owner_id(settings)?;
    let deps = JobDeps {
        app,
        store,
        voice,
        // The scheduler's authentication step: tasks run for the owner who set them (a
        // task stored for anyone else never runs: `TasksJob` checks).
        owner: Principal::authenticated(owner_id.clone()),
        owner_id,
        zone: zone_rx,
        lease_owner,
        settings,
    };
    let senders = Senders {
        budget: budget_tx,
        zone: zone_tx,
    };
    Ok((scheduler, senders, deps))
}

/// The key of an occurrence run on request, outside the schedule.
fn manual_key() -> String {
    format!("manual-{}", uuid::Uuid::new_v4().simple())
}

/// Run the job `name` once in this process, outside its schedule (`steward jobs run`), and
/// return its occurrence as recorded; None: no such job.
pub async fn run_once(
    app: &App,
    settings: &Settings,
    job_name: &str,
) -> anyhow::Result<Option<steward_store::OccurrenceRecord>> {
    let Some(slot) = slots().into_iter().find(|s| s.name == job_name) else {
        return Ok(None);
    };
    let (scheduler, _budget, deps) = parts(app, settings)?;
    let job = (slot.build)(&deps);
    let key = manual_key();
    scheduler
        .run_now(&name(job_name)?, &job, &(slot.policy)(), &key)
        .await?;
    // A recurring task's turn runs on after the tick: wait for it before the command exits.
    job.settle().await;
    Ok(app.store.occurrence(job_name, &key).await?)
}

/// Start the jobs; they stop with `stop`.
pub fn start(
    app: &App,
    settings: &Settings,
    stop: &CancellationToken,
) -> anyhow::Result<Arc<JobsControl>> {
    start_these(app, settings, stop, |_| true)
}

/// Start only the jobs `wanted` names (`steward chat` runs the reminders alone: its other
/// jobs are `serve`'s, and a turn of the terminal's own must not meet one of theirs).
pub fn start_these(
    app: &App,
    settings: &Settings,
    stop: &CancellationToken,
    wanted: impl Fn(&str) -> bool,
) -> anyhow::Result<Arc<JobsControl>> {
    let (scheduler, senders, deps) = parts(app, settings)?;
    let mut jobs = Vec::new();
    for slot in slots().into_iter().filter(|s| wanted(s.name)) {
        let (tx, rx) = watch::channel(slot_settings(&slot, settings));
        let job = (slot.build)(&deps);
        scheduler.spawn(
            ScheduledJob {
                name: name(slot.name)?,
                job: Arc::clone(&job),
                settings: rx,
            },
            stop.child_token(),
        );
        tracing::info!(
            job = slot.name,
            schedule = %(slot.schedule)(settings),
            "job scheduled"
        );
        jobs.push(Running {
            slot,
            settings: tx,
            job,
        });
    }
    tracing::info!(owner = scheduler.owner(), "scheduler started");
    Ok(Arc::new(JobsControl {
        scheduler,
        jobs,
        budget: senders.budget,
        zone: senders.zone,
        current: std::sync::Mutex::new(settings.clone()),
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
            "tasks",
            "briefing",
            "weekly_recap",
            "follow_ups",
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
