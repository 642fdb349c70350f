//! Two schedulers in two real processes on one SQLite database, over a simulated week (the
//! one of the spring-forward change in Europe/Berlin): every occurrence of every job runs
//! exactly once, and both processes take part. The processes are `steward-sim-scheduler`
//! (tests/sim/), which read a clock file this test moves from fire time to fire time, waiting
//! at each until the store says the occurrences due then are done.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use steward_jobs::runner::occurrence_key;
use steward_jobs::schedule::Schedule;
use steward_protocol::SystemClock;
use steward_store::{OccurrenceStatus, Store, StoreConfig, StoreLocation};

const JOBS: &[(&str, &str)] = &[
    ("hourly", "every 1h"),
    ("nightly", "daily 02:30"),
    ("weekly", "weekly mon 08:00"),
    ("workdays", "cron 0 9 * * 1-5"),
];

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn set_clock(path: &Path, ms: i64) {
    // Written whole then renamed: a reader never sees half a number.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, ms.to_string()).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn spawn(dir: &Path, process: &str) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_steward-sim-scheduler"));
    cmd.arg(dir.join("steward.db"))
        .arg(dir.join("clock"))
        .arg(dir.join("runs.log"))
        .arg(dir.join("stop"))
        .arg(process);
    for (name, schedule) in JOBS {
        cmd.arg(format!("{name}={schedule}"));
    }
    cmd.spawn().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_run_every_occurrence_of_a_week_exactly_once() {
    let dir = std::env::temp_dir().join(format!(
        "steward-two-processes-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let _cleanup = Dir(dir.clone());
    // Monday 23 March 2026, 00:00 UTC; Berlin springs forward on Sunday the 29th.
    let start = Utc.with_ymd_and_hms(2026, 3, 23, 0, 0, 0).unwrap();
    let end = start + chrono::Duration::days(7);
    set_clock(&dir.join("clock"), start.timestamp_millis());
    // The database made once before both start, as `steward serve` would have.
    let store = steward_store::open(&StoreConfig {
        location: StoreLocation::SqliteFile(dir.join("steward.db")),
        clock: SystemClock::shared(),
    })
    .unwrap();
    let _children = Children(vec![spawn(&dir, "p1"), spawn(&dir, "p2")]);
    for process in ["p1", "p2"] {
        let ready = dir.join(format!("stop.ready-{process}"));
        for _ in 0..2000 {
            if ready.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(ready.exists(), "{process} did not start");
    }

    // Every fire of the week, by time: which jobs fire then.
    let mut fires: BTreeMap<DateTime<Utc>, Vec<&str>> = BTreeMap::new();
    for (name, schedule) in JOBS {
        let schedule: Schedule = schedule.parse().unwrap();
        for t in schedule.fires_between(start, end, chrono_tz::Europe::Berlin, 10_000) {
            fires.entry(t).or_default().push(name);
        }
    }
    let expected: usize = fires.values().map(Vec::len).sum();
    assert_eq!(
        fires.values().flatten().filter(|n| **n == "hourly").count(),
        168
    );
    assert_eq!(
        fires
            .values()
            .flatten()
            .filter(|n| **n == "nightly")
            .count(),
        7,
        "the gap day's 02:30 fires once"
    );

    for (t, names) in &fires {
        // A second past the fire: on time for both.
        set_clock(&dir.join("clock"), t.timestamp_millis() + 1000);
        let key = occurrence_key(t.timestamp_millis());
        for name in names {
            wait_done(&*store, name, &key).await;
        }
    }
    std::fs::write(dir.join("stop"), "").unwrap();
    let log = std::fs::read_to_string(dir.join("runs.log")).unwrap();
    let mut runs: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for line in log.lines() {
        let mut parts = line.split(' ');
        let (job, occurrence, process) = (
            parts.next().unwrap().to_owned(),
            parts.next().unwrap().to_owned(),
            parts.next().unwrap().to_owned(),
        );
        runs.entry((job, occurrence)).or_default().push(process);
    }
    let twice: Vec<_> = runs.iter().filter(|(_, p)| p.len() > 1).collect();
    assert!(twice.is_empty(), "ran more than once: {twice:?}");
    assert_eq!(runs.len(), expected, "every occurrence ran");
    let by: BTreeSet<&str> = runs.values().flatten().map(String::as_str).collect();
    assert_eq!(by, BTreeSet::from(["p1", "p2"]), "both processes took part");
}

async fn wait_done(store: &dyn Store, job: &str, key: &str) {
    for _ in 0..2000 {
        if let Some(r) = store.occurrence(job, key).await.unwrap() {
            assert_ne!(r.status, OccurrenceStatus::Failed, "{job} {key}");
            assert_ne!(r.status, OccurrenceStatus::Skipped, "{job} {key} skipped");
            if r.status == OccurrenceStatus::Done {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{job} {key} was not run within 10 s");
}
