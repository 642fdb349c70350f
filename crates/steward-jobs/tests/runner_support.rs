//! Test support for the scheduler: a `Timing` of fixed periods (anchored to the epoch, with
//! an offset), a job that counts and can fail or hang, and a driver that moves a
//! `ManualTimer` from one wake to the next — exactly as continuous time would — waiting each
//! time until every job's loop is waiting again, so no test sleeps for the scheduler's sake.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use steward_jobs::runner::{ManualTimer, RunPolicy};
use steward_jobs::{Job, JobError, JobOutcome, JobSettings, RunContext, Scheduler, Timing};
use steward_protocol::ManualClock;

pub const MIN: i64 = 60_000;
pub const HOUR: i64 = 60 * MIN;
pub const DAY: i64 = 24 * HOUR;
/// 2026-12-07 00:00 UTC, a Monday.
pub const MONDAY: i64 = 1_796_601_600_000;

/// Fires at every `period` after the epoch, shifted by `offset`.
#[derive(Debug)]
pub struct Every {
    pub period: i64,
    pub offset: i64,
}

impl Every {
    pub fn arc(period: i64, offset: i64) -> Arc<dyn Timing> {
        Arc::new(Every { period, offset })
    }

    fn next_ms(&self, after: i64) -> i64 {
        let k = (after - self.offset).div_euclid(self.period) + 1;
        k * self.period + self.offset
    }
}

impl Timing for Every {
    fn next_fire(&self, after: DateTime<Utc>, _: Tz) -> Option<DateTime<Utc>> {
        DateTime::from_timestamp_millis(self.next_ms(after.timestamp_millis()))
    }

    fn fires_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        _: Tz,
        limit: usize,
    ) -> Vec<DateTime<Utc>> {
        let mut out = Vec::new();
        let mut at = self.next_ms(from.timestamp_millis());
        while at <= to.timestamp_millis() && out.len() < limit {
            out.extend(DateTime::from_timestamp_millis(at));
            at += self.period;
        }
        out
    }
}

/// Never fires.
#[derive(Debug)]
pub struct Never;

impl Timing for Never {
    fn next_fire(&self, _: DateTime<Utc>, _: Tz) -> Option<DateTime<Utc>> {
        None
    }

    fn fires_between(
        &self,
        _: DateTime<Utc>,
        _: DateTime<Utc>,
        _: Tz,
        _: usize,
    ) -> Vec<DateTime<Utc>> {
        Vec::new()
    }
}

pub fn settings(timing: Arc<dyn Timing>, policy: RunPolicy) -> JobSettings {
    JobSettings {
        timing,
        tz: Tz::UTC,
        policy,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    Succeed,
    Fail,
    Panic,
    Hang,
}

/// A job that records each attempt it is given.
#[derive(Debug)]
pub struct Counting {
    pub behaviour: Behaviour,
    pub attempts: Mutex<Vec<(String, u32)>>,
    pub runs: AtomicU32,
}

impl Counting {
    pub fn arc(behaviour: Behaviour) -> Arc<Counting> {
        Arc::new(Counting {
            behaviour,
            attempts: Mutex::new(Vec::new()),
            runs: AtomicU32::new(0),
        })
    }

    pub fn runs(&self) -> u32 {
        self.runs.load(Ordering::SeqCst)
    }

    pub fn attempts(&self) -> Vec<(String, u32)> {
        self.attempts.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl Job for Counting {
    async fn run(&self, ctx: &RunContext) -> Result<JobOutcome, JobError> {
        self.attempts
            .lock()
            .unwrap()
            .push((ctx.occurrence.clone(), ctx.attempt));
        self.runs.fetch_add(1, Ordering::SeqCst);
        match self.behaviour {
            Behaviour::Succeed => Ok(JobOutcome::Done(format!("ran {}", ctx.occurrence))),
            Behaviour::Fail => Err(JobError::retry("the upstream said 503")),
            Behaviour::Panic => panic!("a job bug"),
            Behaviour::Hang => std::future::pending().await,
        }
    }
}

/// Moves the clock from wake to wake up to `target`, settling after each move.
pub struct Driver {
    pub clock: Arc<ManualClock>,
    pub timer: Arc<ManualTimer>,
}

impl Driver {
    pub fn at(ms: i64) -> Driver {
        let clock = ManualClock::at_ms(ms);
        let timer = ManualTimer::new(Arc::clone(&clock));
        Driver { clock, timer }
    }

    pub fn now(&self) -> i64 {
        use steward_protocol::Clock;
        self.clock.now_ms()
    }

    /// Waits until every job of `schedulers` (`jobs` of them in all, `busy_ok` excepted)
    /// waits for a time after now.
    pub async fn settle(&self, schedulers: &[&Scheduler], jobs: usize, busy_ok: &[&str]) {
        let now = self.now();
        for _ in 0..20_000 {
            let states: Vec<(String, Option<i64>)> =
                schedulers.iter().flat_map(|s| s.states()).collect();
            let settled = states.len() == jobs
                && states.iter().all(|(name, s)| {
                    busy_ok.contains(&name.as_str()) || matches!(s, Some(until) if *until > now)
                });
            if settled {
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        panic!(
            "the scheduler did not settle at {now}: {:?}",
            schedulers.iter().map(|s| s.states()).collect::<Vec<_>>()
        );
    }

    /// Runs time forward to `target`, through every wake on the way (`extra` adds instants
    /// that something not visible in the states waits for, such as an attempt's timeout).
    pub async fn run_until(
        &self,
        target: i64,
        schedulers: &[&Scheduler],
        jobs: usize,
        busy_ok: &[&str],
        extra: &[i64],
    ) {
        loop {
            self.settle(schedulers, jobs, busy_ok).await;
            let now = self.now();
            if now >= target {
                return;
            }
            let next = schedulers
                .iter()
                .flat_map(|s| s.states().into_values().flatten())
                .chain(extra.iter().copied())
                .filter(|t| *t > now)
                .min()
                .unwrap_or(target)
                .min(target);
            self.timer.set_ms(next);
        }
    }
}
