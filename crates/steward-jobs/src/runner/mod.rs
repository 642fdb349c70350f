//! The scheduler: one task per job (so a slow or hanging job never holds up another), each a
//! loop that asks its `Timing` for the fire times due since the last recorded occurrence,
//! decides by its `RunPolicy` which one runs (`policy::plan`), claims it in the store (the
//! dedup key and the lease: of several processes on one database exactly one runs it), runs
//! the attempt under a timeout with its lease renewed (`attempt`), and records the end — or
//! waits on the `Timer` until the next fire, a heartbeat, or a change of its settings,
//! whichever is first. Nothing sleeps an interval: every wait ends at a wall-clock instant
//! computed from the clock just before.
//!
//! A job's settings (its timing, time zone and policy) come through a `watch` channel, so the
//! composition root can enable, disable or reschedule a job while it runs.
//!
//! Owns: the loop, claims, heartbeats. Does not own: fire times (`Timing`, implemented by
//! `schedule::Schedule`), what a job does (`Job`), storage (`JobStore`).

mod attempt;
pub mod policy;
pub mod timer;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use steward_protocol::JobName;
use steward_store::{Claim, JobStore, OccurrenceEnd};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::job::Job;
pub use policy::{MissedPolicy, RunPolicy};
pub use timer::{ManualTimer, Timer, WallTimer};

/// Longest look back for fire times missed while nothing ran (beyond it, none are counted).
pub const MAX_LOOKBACK: Duration = Duration::from_secs(8 * 24 * 3600);
/// Most fire times one look back considers.
const MAX_DUE: usize = 20_000;

/// When a job fires: the schedules of `crate::schedule`, or anything else with fire times.
pub trait Timing: Send + Sync + fmt::Debug {
    /// The first fire time strictly after `after`, in `tz`; None: never (disabled).
    fn next_fire(&self, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>>;
    /// The fire times in (`from`, `to`], ascending, at most `limit`.
    fn fires_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        tz: Tz,
        limit: usize,
    ) -> Vec<DateTime<Utc>>;
}

/// What a job runs under now.
#[derive(Debug, Clone)]
pub struct JobSettings {
    pub timing: Arc<dyn Timing>,
    pub tz: Tz,
    pub policy: RunPolicy,
}

/// A job handed to the scheduler.
pub struct ScheduledJob {
    pub name: JobName,
    pub job: Arc<dyn Job>,
    pub settings: watch::Receiver<JobSettings>,
}

/// The scheduler of one process.
pub struct Scheduler {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn JobStore>,
    timer: Arc<dyn Timer>,
    /// This process's name in leases and heartbeats (unique per process).
    owner: String,
    heartbeat_every: Duration,
    /// Each job's loop: `Some(until)` while it waits, None while it works.
    states: Mutex<HashMap<String, Option<i64>>>,
}

/// What a step of a job's loop leads to.
enum Next {
    /// Look again now (something ran or was recorded).
    Again,
    /// Nothing to do before this instant.
    WaitUntil(i64),
    /// Nothing to do ever (disabled), until the settings change.
    Idle,
}

/// The same settings: the same timing value (each new one is a new `Arc`), zone and policy.
fn same(a: &JobSettings, b: &JobSettings) -> bool {
    Arc::ptr_eq(&a.timing, &b.timing) && a.tz == b.tz && a.policy == b.policy
}

fn ms_of(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn time_of(ms: i64) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The dedup key of the occurrence due at `fire_ms`: its Unix second (the job is the other
/// half of the store's key; `schedule::occurrence_key` spells both for display).
pub fn occurrence_key(fire_ms: i64) -> String {
    format!("at-{}", fire_ms.div_euclid(1000))
}

impl Timing for crate::schedule::Schedule {
    fn next_fire(&self, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
        crate::schedule::Schedule::next_fire(self, after, tz)
    }

    fn fires_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        tz: Tz,
        limit: usize,
    ) -> Vec<DateTime<Utc>> {
        crate::schedule::Schedule::fires_between(self, from, to, tz, limit)
    }
}

impl Scheduler {
    /// `owner` names this process in leases and heartbeats: unique per process (a host name
    /// and a random part), or two processes would share leases.
    pub fn new(store: Arc<dyn JobStore>, timer: Arc<dyn Timer>, owner: String) -> Scheduler {
        Scheduler {
            inner: Arc::new(Inner {
                store,
                timer,
                owner,
                heartbeat_every: Duration::from_secs(60),
                states: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// How often each job writes its heartbeat (and so the longest wait of its loop).
    pub fn with_heartbeat_every(self, every: Duration) -> Scheduler {
        let inner = Inner {
            store: Arc::clone(&self.inner.store),
            timer: Arc::clone(&self.inner.timer),
            owner: self.inner.owner.clone(),
            heartbeat_every: every.max(Duration::from_secs(1)),
            states: Mutex::new(HashMap::new()),
        };
        Scheduler {
            inner: Arc::new(inner),
        }
    }

    pub fn owner(&self) -> &str {
        &self.inner.owner
    }

    /// Each started job's loop by name: `Some(ms)` while it waits until that clock time,
    /// None while it works. For `steward jobs` (the next wake) and for tests that drive a
    /// `ManualTimer` from wake to wake.
    pub fn states(&self) -> HashMap<String, Option<i64>> {
        match self.inner.states.lock() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Start `job`'s loop; it ends when `stop` is cancelled.
    pub fn spawn(&self, job: ScheduledJob, stop: CancellationToken) -> tokio::task::JoinHandle<()> {
        let inner = Arc::clone(&self.inner);
        tokio::spawn(async move { inner.job_loop(job, stop).await })
    }

    /// Run one occurrence of `job` now, outside its schedule (`steward jobs run NAME`), under
    /// the key `key` (so a repeated request with the same key runs once).
    pub async fn run_now(
        &self,
        name: &JobName,
        job: &Arc<dyn Job>,
        policy: &RunPolicy,
        key: &str,
    ) -> Result<Claim, steward_store::StoreError> {
        let now = self.inner.timer.now_ms();
        let claim = self
            .inner
            .store
            .claim_occurrence(
                name.as_str(),
                key,
                now,
                &self.inner.owner,
                now,
                millis(policy.lease),
            )
            .await?;
        if let Claim::Run { attempt } = claim {
            self.inner
                .attempt(name, job, policy, key, now, attempt)
                .await;
        }
        Ok(claim)
    }
}

impl Inner {
    async fn job_loop(self: Arc<Inner>, mut scheduled: ScheduledJob, stop: CancellationToken) {
        let started_ms = self.timer.now_ms();
        // Set when the settings change: a new schedule's fire times before the change were
        // never due. (A restart sets none: what was missed while down is the policy's.)
        let mut floor_ms: Option<i64> = None;
        let mut previous: Option<JobSettings> = None;
        self.set_state(&scheduled.name, None);
        let mut settings_live = true;
        loop {
            if stop.is_cancelled() {
                return;
            }
            let settings = scheduled.settings.borrow_and_update().clone();
            let now = self.timer.now_ms();
            // Compared here, whichever way the loop woke (a timer and a change can be ready
            // together): settings unlike the last seen are a change from now on.
            if previous.as_ref().is_some_and(|p| !same(p, &settings)) {
                floor_ms = Some(now);
            }
            previous = Some(settings.clone());
            if let Err(e) = self
                .store
                .beat(scheduled.name.as_str(), &self.owner, now)
                .await
            {
                tracing::warn!(job = %scheduled.name, error = %e, "could not record a job heartbeat");
            }
            let next = match self
                .step(&scheduled, &settings, started_ms, floor_ms, now)
                .await
            {
                Ok(next) => next,
                Err(e) => {
                    tracing::warn!(job = %scheduled.name, error = %e, "the scheduler could not read or claim; trying again shortly");
                    Next::WaitUntil(now.saturating_add(30_000))
                }
            };
            let beat_at = now.saturating_add(millis(self.heartbeat_every));
            let wake = match next {
                Next::Again => continue,
                Next::WaitUntil(at) => at.min(beat_at),
                Next::Idle => beat_at,
            };
            self.set_state(&scheduled.name, Some(wake));
            tokio::select! {
                () = stop.cancelled() => return,
                changed = scheduled.settings.changed(), if settings_live => {
                    // A dropped sender leaves the last settings in force.
                    settings_live = changed.is_ok();
                }
                () = self.timer.sleep_until(wake) => {}
            }
            self.set_state(&scheduled.name, None);
        }
    }

    fn set_state(&self, name: &JobName, state: Option<i64>) {
        let mut states = match self.states.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        states.insert(name.as_str().to_owned(), state);
    }

    async fn step(
        &self,
        scheduled: &ScheduledJob,
        settings: &JobSettings,
        started_ms: i64,
        floor_ms: Option<i64>,
        now: i64,
    ) -> Result<Next, steward_store::StoreError> {
        let name = &scheduled.name;
        let policy = &settings.policy;
        let last = self
            .store
            .job_history(name.as_str(), 1)
            .await?
            .into_iter()
            .next();
        // Fire times after the latest recorded occurrence (after the start, for a job never
        // run), after the last change of settings, and within the look back.
        let anchor = last
            .as_ref()
            .map_or(started_ms, |r| r.scheduled_ms)
            .max(floor_ms.unwrap_or(i64::MIN))
            .max(now.saturating_sub(millis(MAX_LOOKBACK)));
        let due: Vec<i64> = settings
            .timing
            .fires_between(time_of(anchor), time_of(now), settings.tz, MAX_DUE)
            .into_iter()
            .map(ms_of)
            .collect();
        // The latest recorded occurrence, unfinished and not yet superseded by a newer fire:
        // a retry that waits, a run in another process, a run whose process died.
        if let Some(r) = last.filter(|r| !r.status.is_final() && due.is_empty()) {
            let claim = self
                .claim(name, &r.occurrence, r.scheduled_ms, policy, now)
                .await?;
            return Ok(match claim {
                Claim::Run { attempt } => {
                    self.attempt(
                        name,
                        &scheduled.job,
                        policy,
                        &r.occurrence,
                        r.scheduled_ms,
                        attempt,
                    )
                    .await;
                    Next::Again
                }
                Claim::RetryAt(at) => Next::WaitUntil(self.sooner(settings, now, at)),
                Claim::Held { until_ms } => Next::WaitUntil(self.sooner(settings, now, until_ms)),
                Claim::Finished(_) => self.until_next(settings, now),
            });
        }
        if due.is_empty() {
            return Ok(self.until_next(settings, now));
        }
        let plan = policy::plan(&due, now, policy);
        if let Some(&skipped) = plan.skip.last() {
            self.record_missed(name, skipped, plan.skip.len(), policy, now)
                .await?;
        }
        let Some(fire) = plan.run else {
            return Ok(Next::Again);
        };
        let key = occurrence_key(fire);
        Ok(match self.claim(name, &key, fire, policy, now).await? {
            Claim::Run { attempt } => {
                self.attempt(name, &scheduled.job, policy, &key, fire, attempt)
                    .await;
                Next::Again
            }
            Claim::Held { until_ms } => Next::WaitUntil(until_ms),
            Claim::RetryAt(at) => Next::WaitUntil(at),
            Claim::Finished(_) => Next::Again,
        })
    }

    async fn claim(
        &self,
        name: &JobName,
        key: &str,
        scheduled_ms: i64,
        policy: &RunPolicy,
        now: i64,
    ) -> Result<Claim, steward_store::StoreError> {
        self.store
            .claim_occurrence(
                name.as_str(),
                key,
                scheduled_ms,
                &self.owner,
                now,
                millis(policy.lease),
            )
            .await
    }

    /// The latest of `count` missed fire times, recorded as skipped (the others are only
    /// counted: a job down for a week must not write a row per minute it missed).
    async fn record_missed(
        &self,
        name: &JobName,
        fire: i64,
        count: usize,
        policy: &RunPolicy,
        now: i64,
    ) -> Result<(), steward_store::StoreError> {
        let key = occurrence_key(fire);
        if let Claim::Run { .. } = self.claim(name, &key, fire, policy, now).await? {
            let outcome = format!("missed while not running ({count} occurrence(s)); skipped");
            tracing::info!(job = %name, count, "missed occurrences skipped");
            self.store
                .end_occurrence(
                    name.as_str(),
                    &key,
                    &self.owner,
                    OccurrenceEnd::Skipped,
                    &outcome,
                    now,
                )
                .await?;
        }
        Ok(())
    }

    fn until_next(&self, settings: &JobSettings, now: i64) -> Next {
        match settings.timing.next_fire(time_of(now), settings.tz) {
            Some(t) => Next::WaitUntil(ms_of(t)),
            None => Next::Idle,
        }
    }

    /// `at`, or the next fire time when that comes first.
    fn sooner(&self, settings: &JobSettings, now: i64, at: i64) -> i64 {
        match settings.timing.next_fire(time_of(now), settings.tz) {
            Some(t) => at.min(ms_of(t)),
            None => at,
        }
    }
}
