//! The scheduler in `steward serve`: one `Scheduler` for this process (its owner name is
//! unique, so several processes on one database share the work through leases), the jobs
//! with their schedules from the settings, and the proactive budget — both behind `watch`
//! channels, so a change in the app's Settings page (`AppSettings`) reschedules, disables or
//! re-budgets a job without a restart (`JobsControl::apply`).
//!
//! Owns: which jobs run and what settings each gets. Does not own: the scheduler or the jobs
//! (steward-jobs), the settings' rules (`config`).

use std::sync::Arc;
use std::time::Duration;

use chrono_tz::Tz;
use steward_jobs::jobs::RemindersJob;
use steward_jobs::jobs::{BriefingJob, FollowUpsJob, Period};
use steward_jobs::runner::{RunPolicy, WallTimer};
use steward_jobs::schedule::Schedule;
use steward_jobs::voice::{parse_quiet_hours, parse_silenced};
use steward_jobs::{Budget, Job, JobSettings, ScheduledJob, Scheduler, Voice};
use steward_protocol::JobName;
use steward_protocol::PrincipalId;
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
    /// The `jobs.*` key (for the log when it does not parse).
    key: &'static str,
    schedule: fn(&Settings) -> &str,
    policy: fn() -> RunPolicy,
    build: fn(&JobDeps) -> Arc<dyn Job>,
}

/// What the jobs are built from.
struct JobDeps<'a> {
    app: &'a App,
    store: Arc<dyn JobStore>,
    voice: Voice,
    /// Whom the briefings and follow-ups are for (`owner`).
    owner: PrincipalId,
    /// The owner's time zone, live (`timezone`).
    zone: watch::Receiver<Tz>,
}

/// Every job, in the order `steward jobs` lists them.
fn slots() -> Vec<Slot> {
    vec![
        Slot {
            name: "reminders",
            key: "jobs.reminders",
            schedule: |s| &s.jobs.reminders,
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
            name: "briefing",
            key: "jobs.briefing",
            schedule: |s| &s.jobs.briefing,
            policy: RunPolicy::default,
            build: |d| briefing(d, Period::Day),
        },
        Slot {
            name: "weekly_recap",
            key: "jobs.weekly_recap",
            schedule: |s| &s.jobs.weekly_recap,
            policy: RunPolicy::default,
            build: |d| briefing(d, Period::Week),
        },
        Slot {
            name: "follow_ups",
            key: "jobs.follow_ups",
            schedule: |s| &s.jobs.follow_ups,
            policy: follow_up_policy,
            build: |d| {
                Arc::new(FollowUpsJob::new(
                    Arc::clone(&d.app.store),
                    d.voice.clone(),
                    d.app.clock.clone(),
                    d.owner.clone(),
                    d.zone.clone(),
                ))
            },
        },
    ]
}

/// The morning briefing or the weekly recap (missed ones are skipped, the default: a 07:30
/// briefing is not sent at 11:00).
fn briefing(d: &JobDeps, period: Period) -> Arc<dyn Job> {
    Arc::new(BriefingJob::new(
        Arc::clone(&d.app.store),
        d.voice.clone(),
        d.owner.clone(),
        d.zone.clone(),
        period,
    ))
}

/// Follow-ups: a short attempt (a missed check needs no catching up: the next one finds
/// everything due).
fn follow_up_policy() -> RunPolicy {
    RunPolicy {
        timeout: Duration::from_secs(60),
        ..RunPolicy::default()
    }
}

/// The running jobs' settings, to change while they run.
pub struct JobsControl {
    jobs: Vec<(Slot, watch::Sender<JobSettings>)>,
    budget: watch::Sender<Budget>,
    zone: watch::Sender<Tz>,
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
        self.zone.send_replace(zone(settings));
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
        timing: Arc::new(schedule((slot.schedule)(settings), slot.key)),
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
    let (zone_tx, zone_rx) = watch::channel(zone(settings));
    let deps = JobDeps {
        app,
        store: Arc::clone(&store),
        voice,
        owner: crate::app::owner_id(settings)?,
        zone: zone_rx,
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
        zone: zone_tx,
    }))
}

#[cfg(test)]
mod tests {
    /// `steward jobs` lists exactly the jobs `serve` runs, with the same settings.
    #[test]
    fn the_jobs_command_lists_every_slot() {
        let mut settings = crate::config::Settings::skeleton();
        settings.jobs.briefing = "daily 07:30".into();
        let listed: Vec<(&str, &str, String)> = crate::jobs_cmd::jobs(&settings);
        let slots: Vec<(&str, &str, String)> = super::slots()
            .iter()
            .map(|s| (s.name, s.key, (s.schedule)(&settings).to_owned()))
            .collect();
        assert_eq!(listed, slots);
        assert!(
            slots
                .iter()
                .any(|(n, _, s)| *n == "briefing" && s == "daily 07:30")
        );
    }
}
