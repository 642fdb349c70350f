//! The scheduler against the real SQLite store, on a `ManualTimer` driven from wake to wake:
//! each occurrence once over a simulated day; a restart mid-day neither repeats nor misses;
//! a suspended machine's missed occurrences follow the policy; a failing job stops after its
//! budget; a panic is a failure; a hanging job is timed out while another keeps its times;
//! two schedulers on one database file run each occurrence once over a simulated week; a
//! reschedule takes effect without a restart; a disabled job never runs.

use crate::runner_support::*;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use steward_jobs::runner::{MissedPolicy, RunPolicy};
use steward_jobs::{Job, ScheduledJob, Scheduler};
use steward_protocol::JobName;
use steward_store::{JobStore, OccurrenceStatus};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

fn name(raw: &str) -> JobName {
    JobName::parse(raw).unwrap()
}

fn memory_store() -> Arc<dyn JobStore> {
    steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap()
}

struct Running {
    scheduler: Scheduler,
    stop: CancellationToken,
    handles: Vec<tokio::task::JoinHandle<()>>,
}

impl Running {
    async fn stop(self) {
        self.stop.cancel();
        for h in self.handles {
            h.await.unwrap();
        }
    }
}

fn start(
    store: &Arc<dyn JobStore>,
    driver: &Driver,
    owner: &str,
    jobs: Vec<(
        &str,
        Arc<dyn Job>,
        watch::Receiver<steward_jobs::JobSettings>,
    )>,
    beat: Duration,
) -> Running {
    let scheduler = Scheduler::new(Arc::clone(store), driver.timer.clone(), owner.to_owned())
        .with_heartbeat_every(beat);
    let stop = CancellationToken::new();
    let handles = jobs
        .into_iter()
        .map(|(n, job, settings)| {
            scheduler.spawn(
                ScheduledJob {
                    name: name(n),
                    job,
                    settings,
                },
                stop.clone(),
            )
        })
        .collect();
    Running {
        scheduler,
        stop,
        handles,
    }
}

fn fixed(
    timing: Arc<dyn steward_jobs::Timing>,
    policy: RunPolicy,
) -> watch::Receiver<steward_jobs::JobSettings> {
    let (tx, rx) = watch::channel(settings(timing, policy));
    // The sender dropped: the settings stay as they are.
    drop(tx);
    rx
}

async fn statuses(store: &Arc<dyn JobStore>, job: &str) -> Vec<(String, OccurrenceStatus, u32)> {
    let mut h: Vec<_> = store
        .job_history(job, 10_000)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.occurrence, r.status, r.attempts))
        .collect();
    h.reverse();
    h
}

#[tokio::test]
async fn every_occurrence_runs_once_over_a_simulated_day() {
    let store = memory_store();
    let d = Driver::at(MONDAY);
    let job = Counting::arc(Behaviour::Succeed);
    let r = start(
        &store,
        &d,
        "p1",
        vec![(
            "quarterly",
            job.clone(),
            fixed(Every::arc(15 * MIN, 0), RunPolicy::default()),
        )],
        Duration::from_secs(60),
    );
    d.run_until(MONDAY + DAY, &[&r.scheduler], 1, &[], &[])
        .await;
    r.stop().await;
    let attempts = job.attempts();
    assert_eq!(
        attempts.len(),
        96,
        "every quarter hour of the day, the 00:00 start excluded, 24:00 included"
    );
    let keys: HashSet<_> = attempts.iter().map(|(k, _)| k.clone()).collect();
    assert_eq!(keys.len(), 96, "no occurrence twice");
    assert!(attempts.iter().all(|(_, a)| *a == 1));
    let h = statuses(&store, "quarterly").await;
    assert!(
        h.iter().all(|(_, s, _)| *s == OccurrenceStatus::Done),
        "{h:?}"
    );
    let beats = store.heartbeats().await.unwrap();
    assert_eq!(beats.len(), 1);
    assert!(
        beats[0].at_ms >= MONDAY + DAY - MIN,
        "the heartbeat is fresh: {beats:?}"
    );
}

#[tokio::test]
async fn a_restart_mid_day_neither_repeats_nor_misses() {
    let store = memory_store();
    let d = Driver::at(MONDAY + 6 * HOUR);
    let briefing = Every::arc(DAY, 7 * HOUR + 30 * MIN);
    let first = Counting::arc(Behaviour::Succeed);
    let r = start(
        &store,
        &d,
        "before",
        vec![(
            "briefing",
            first.clone(),
            fixed(Arc::clone(&briefing), RunPolicy::default()),
        )],
        Duration::from_secs(60),
    );
    d.run_until(MONDAY + 12 * HOUR, &[&r.scheduler], 1, &[], &[])
        .await;
    r.stop().await;
    assert_eq!(first.runs(), 1, "07:30 ran");
    // The process restarts at 12:00 (a new owner): no second briefing today...
    let second = Counting::arc(Behaviour::Succeed);
    let r = start(
        &store,
        &d,
        "after",
        vec![(
            "briefing",
            second.clone(),
            fixed(briefing, RunPolicy::default()),
        )],
        Duration::from_secs(60),
    );
    d.run_until(MONDAY + DAY + 7 * HOUR, &[&r.scheduler], 1, &[], &[])
        .await;
    assert_eq!(second.runs(), 0, "no second briefing the same day");
    // ...and tomorrow's is not missed.
    d.run_until(MONDAY + DAY + 8 * HOUR, &[&r.scheduler], 1, &[], &[])
        .await;
    r.stop().await;
    assert_eq!(second.runs(), 1, "the next day's briefing ran");
    assert_eq!(statuses(&store, "briefing").await.len(), 2);
}

async fn suspended(policy: MissedPolicy) -> (u32, Vec<(String, OccurrenceStatus, u32)>, String) {
    let store = memory_store();
    let d = Driver::at(MONDAY);
    let job = Counting::arc(Behaviour::Succeed);
    let p = RunPolicy {
        missed: policy,
        ..RunPolicy::default()
    };
    let r = start(
        &store,
        &d,
        "p1",
        vec![("hourly", job.clone(), fixed(Every::arc(HOUR, 0), p))],
        Duration::from_secs(60),
    );
    d.settle(&[&r.scheduler], 1, &[]).await;
    // The machine sleeps from 00:00 to 02:30: the 01:00 and 02:00 occurrences pass unrun.
    d.timer.set_ms(MONDAY + 2 * HOUR + 30 * MIN);
    d.settle(&[&r.scheduler], 1, &[]).await;
    r.stop().await;
    let outcome = store
        .job_history("hourly", 10)
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.status == OccurrenceStatus::Skipped)
        .map(|r| r.outcome)
        .unwrap_or_default();
    (job.runs(), statuses(&store, "hourly").await, outcome)
}

#[tokio::test]
async fn missed_occurrences_are_skipped_or_run_once_by_policy() {
    let (runs, history, outcome) = suspended(MissedPolicy::Skip).await;
    assert_eq!(runs, 0, "a late briefing is not sent");
    assert_eq!(
        history.len(),
        1,
        "one record for the missed ones: {history:?}"
    );
    assert_eq!(history[0].1, OccurrenceStatus::Skipped);
    assert!(outcome.contains("2 occurrence"), "{outcome}");
    let (runs, history, outcome) = suspended(MissedPolicy::RunOnce).await;
    assert_eq!(runs, 1, "the latest runs once");
    let statuses: Vec<_> = history.iter().map(|h| h.1).collect();
    assert_eq!(
        statuses,
        [OccurrenceStatus::Skipped, OccurrenceStatus::Done],
        "{history:?}"
    );
    assert!(outcome.contains("1 occurrence"), "{outcome}");
}

/// Down from 01:30 to 04:30 after an 01:00 run: 02:00, 03:00 and 04:00 were missed.
async fn restarted_after_downtime(policy: MissedPolicy) -> (u32, Vec<OccurrenceStatus>, String) {
    let store = memory_store();
    let d = Driver::at(MONDAY + 30 * MIN);
    let p = RunPolicy {
        missed: policy,
        ..RunPolicy::default()
    };
    let before = Counting::arc(Behaviour::Succeed);
    let r = start(
        &store,
        &d,
        "before",
        vec![("upkeep", before.clone(), fixed(Every::arc(HOUR, 0), p))],
        Duration::from_secs(60),
    );
    d.run_until(MONDAY + HOUR + 30 * MIN, &[&r.scheduler], 1, &[], &[])
        .await;
    r.stop().await;
    assert_eq!(before.runs(), 1);
    d.timer.set_ms(MONDAY + 4 * HOUR + 30 * MIN);
    let after = Counting::arc(Behaviour::Succeed);
    let r = start(
        &store,
        &d,
        "after",
        vec![("upkeep", after.clone(), fixed(Every::arc(HOUR, 0), p))],
        Duration::from_secs(60),
    );
    d.settle(&[&r.scheduler], 1, &[]).await;
    r.stop().await;
    let history = statuses(&store, "upkeep")
        .await
        .into_iter()
        .map(|h| h.1)
        .collect();
    let skipped = store
        .job_history("upkeep", 10)
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.status == OccurrenceStatus::Skipped)
        .map(|r| r.outcome)
        .unwrap_or_default();
    (after.runs(), history, skipped)
}

#[tokio::test]
async fn occurrences_missed_while_down_follow_the_policy_after_a_restart() {
    let (runs, history, skipped) = restarted_after_downtime(MissedPolicy::RunOnce).await;
    assert_eq!(runs, 1, "the latest missed one runs once on start");
    assert_eq!(
        history,
        [
            OccurrenceStatus::Done,
            OccurrenceStatus::Skipped,
            OccurrenceStatus::Done
        ]
    );
    assert!(skipped.contains("2 occurrence"), "{skipped}");
    let (runs, history, skipped) = restarted_after_downtime(MissedPolicy::Skip).await;
    assert_eq!(runs, 0, "04:00 is 30 minutes late: skipped with the others");
    assert_eq!(history, [OccurrenceStatus::Done, OccurrenceStatus::Skipped]);
    assert!(skipped.contains("3 occurrence"), "{skipped}");
}

#[tokio::test]
async fn a_failing_job_stops_after_its_budget_and_a_panic_is_a_failure() {
    for behaviour in [Behaviour::Fail, Behaviour::Panic] {
        let store = memory_store();
        let d = Driver::at(MONDAY);
        let job = Counting::arc(behaviour);
        let p = RunPolicy {
            max_attempts: 3,
            backoff: Duration::from_secs(60),
            ..RunPolicy::default()
        };
        let r = start(
            &store,
            &d,
            "p1",
            vec![("flaky", job.clone(), fixed(Every::arc(DAY, HOUR), p))],
            Duration::from_secs(60),
        );
        d.run_until(MONDAY + 3 * HOUR, &[&r.scheduler], 1, &[], &[])
            .await;
        let attempts = job.attempts();
        let first_key = attempts[0].0.clone();
        assert_eq!(
            attempts,
            vec![
                (first_key.clone(), 1),
                (first_key.clone(), 2),
                (first_key.clone(), 3)
            ],
            "{behaviour:?}: three attempts, then no more"
        );
        let h = statuses(&store, "flaky").await;
        assert_eq!(
            h,
            vec![(first_key, OccurrenceStatus::Failed, 3)],
            "{behaviour:?}"
        );
        let rec = &store.job_history("flaky", 1).await.unwrap()[0];
        assert!(
            rec.outcome.contains("503") || rec.outcome.contains("panicked"),
            "{}",
            rec.outcome
        );
        // The next day's occurrence is tried afresh.
        d.run_until(MONDAY + DAY + 2 * HOUR, &[&r.scheduler], 1, &[], &[])
            .await;
        r.stop().await;
        assert_eq!(job.runs(), 6, "{behaviour:?}");
    }
}

#[tokio::test]
async fn a_hanging_job_is_timed_out_while_another_keeps_its_times() {
    let store = memory_store();
    let d = Driver::at(MONDAY);
    let hang = Counting::arc(Behaviour::Hang);
    let tick = Counting::arc(Behaviour::Succeed);
    let p = RunPolicy {
        timeout: Duration::from_secs(5 * 60),
        max_attempts: 1,
        ..RunPolicy::default()
    };
    let r = start(
        &store,
        &d,
        "p1",
        vec![
            ("hangs", hang.clone(), fixed(Every::arc(DAY, MIN), p)),
            (
                "ticks",
                tick.clone(),
                fixed(Every::arc(MIN, 0), RunPolicy::default()),
            ),
        ],
        Duration::from_secs(60),
    );
    d.run_until(
        MONDAY + 10 * MIN,
        &[&r.scheduler],
        2,
        &["hangs"],
        &[MONDAY + 6 * MIN],
    )
    .await;
    assert_eq!(tick.runs(), 10, "the other job kept every minute");
    assert_eq!(hang.runs(), 1);
    let h = store.job_history("hangs", 1).await.unwrap();
    assert_eq!(h[0].status, OccurrenceStatus::Failed, "{h:?}");
    assert!(h[0].outcome.contains("timed out"), "{}", h[0].outcome);
    assert_eq!(
        h[0].finished_ms,
        Some(MONDAY + 6 * MIN),
        "ended at its deadline: started 00:01 + 5 min"
    );
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_schedulers_on_one_database_run_each_occurrence_once_over_a_week() {
    let dir = std::env::temp_dir().join(format!("steward-jobs-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("steward.db");
    let a: Arc<dyn JobStore> =
        steward_store::open(&steward_store::StoreConfig::sqlite_file(&path)).unwrap();
    let b: Arc<dyn JobStore> =
        steward_store::open(&steward_store::StoreConfig::sqlite_file(&path)).unwrap();
    let d = Driver::at(MONDAY);
    let (ja, jb) = (
        Counting::arc(Behaviour::Succeed),
        Counting::arc(Behaviour::Succeed),
    );
    let hourly = Every::arc(HOUR, 0);
    let ra = start(
        &a,
        &d,
        "proc-a",
        vec![(
            "hourly",
            ja.clone(),
            fixed(Arc::clone(&hourly), RunPolicy::default()),
        )],
        Duration::from_secs(3600),
    );
    let rb = start(
        &b,
        &d,
        "proc-b",
        vec![("hourly", jb.clone(), fixed(hourly, RunPolicy::default()))],
        Duration::from_secs(3600),
    );
    d.run_until(
        MONDAY + 7 * DAY,
        &[&ra.scheduler, &rb.scheduler],
        2,
        &[],
        &[],
    )
    .await;
    ra.stop().await;
    rb.stop().await;
    let mut keys: Vec<String> = ja
        .attempts()
        .into_iter()
        .chain(jb.attempts())
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys.len(), 168, "one run per hour of the week, by either");
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 168, "never the same occurrence twice");
    assert!(ja.runs() > 0 || jb.runs() > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_reschedule_takes_effect_without_a_restart_and_disabled_never_runs() {
    let store = memory_store();
    let d = Driver::at(MONDAY);
    let job = Counting::arc(Behaviour::Succeed);
    let (tx, rx) = watch::channel(settings(Arc::new(Never), RunPolicy::default()));
    let r = start(
        &store,
        &d,
        "p1",
        vec![("recap", job.clone(), rx)],
        Duration::from_secs(60),
    );
    d.run_until(MONDAY + 2 * HOUR, &[&r.scheduler], 1, &[], &[])
        .await;
    assert_eq!(job.runs(), 0, "disabled");
    tx.send(settings(Every::arc(30 * MIN, 0), RunPolicy::default()))
        .unwrap();
    d.run_until(MONDAY + 3 * HOUR, &[&r.scheduler], 1, &[], &[])
        .await;
    let keys: Vec<String> = job.attempts().into_iter().map(|(k, _)| k).collect();
    let at = |ms: i64| steward_jobs::runner::occurrence_key(ms);
    assert_eq!(
        keys,
        [at(MONDAY + 2 * HOUR + 30 * MIN), at(MONDAY + 3 * HOUR)],
        "from the change on, none before it"
    );
    r.stop().await;
}
