//! One scheduler process for the two-process test (`tests/two_processes.rs`), not a program
//! anyone runs: a `Scheduler` over a SQLite file shared with another such process, on a
//! simulated clock the test moves by writing Unix milliseconds into a file. Each job appends
//! `<job> <occurrence> <process>` to a shared log per attempt, so the test counts how often
//! each occurrence ran. Says it is ready with `STOP_FILE.ready-PROCESS`; exits when the stop
//! file appears.
//!
//! Built as the test-only binary `steward-sim-scheduler` (Cargo.toml). Usage:
//! `steward-sim-scheduler DB CLOCK_FILE LOG_FILE STOP_FILE PROCESS NAME=SCHEDULE...`

// A test fixture: a bad argument ends it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use steward_jobs::runner::{RunPolicy, Timer};
use steward_jobs::schedule::Schedule;
use steward_jobs::{Job, JobError, JobOutcome, JobSettings, RunContext, ScheduledJob, Scheduler};
use steward_protocol::{Clock, JobName};
use steward_store::{StoreConfig, StoreLocation};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// The simulated clock: the last value read from the file (it only moves forward).
#[derive(Debug)]
struct FileClock {
    path: PathBuf,
    last: AtomicI64,
}

impl Clock for FileClock {
    fn now_ms(&self) -> i64 {
        if let Ok(text) = std::fs::read_to_string(&self.path)
            && let Ok(ms) = text.trim().parse::<i64>()
        {
            self.last.fetch_max(ms, Ordering::SeqCst);
        }
        self.last.load(Ordering::SeqCst)
    }
}

struct FileTimer(Arc<FileClock>);

#[async_trait::async_trait]
impl Timer for FileTimer {
    async fn sleep_until(&self, at_ms: i64) {
        while self.0.now_ms() < at_ms {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    fn now_ms(&self) -> i64 {
        self.0.now_ms()
    }
}

struct Logged {
    log: PathBuf,
    process: String,
}

#[async_trait::async_trait]
impl Job for Logged {
    async fn run(&self, ctx: &RunContext) -> Result<JobOutcome, JobError> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .map_err(|e| JobError::retry(e.to_string()))?;
        // One write per line: appends of a short line are not interleaved.
        let line = format!("{} {} {}\n", ctx.job, ctx.occurrence, self.process);
        file.write_all(line.as_bytes())
            .map_err(|e| JobError::retry(e.to_string()))?;
        Ok(JobOutcome::Done("logged".into()))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, clock_file, log, stop_file, process, jobs @ ..] = args.as_slice() else {
        panic!("usage: sim_scheduler DB CLOCK_FILE LOG_FILE STOP_FILE PROCESS NAME=SCHEDULE...");
    };
    let clock = Arc::new(FileClock {
        path: clock_file.into(),
        last: AtomicI64::new(0),
    });
    let store = steward_store::open(&StoreConfig {
        location: StoreLocation::SqliteFile(db.into()),
        clock: clock.clone(),
    })
    .unwrap();
    let scheduler = Scheduler::new(store, Arc::new(FileTimer(clock.clone())), process.clone());
    let stop = CancellationToken::new();
    let mut senders = Vec::new();
    for spec in jobs {
        let (name, schedule) = spec.split_once('=').unwrap();
        let (tx, rx) = watch::channel(JobSettings {
            timing: Arc::new(schedule.parse::<Schedule>().unwrap()),
            tz: chrono_tz::Europe::Berlin,
            policy: RunPolicy::default(),
        });
        senders.push(tx);
        scheduler.spawn(
            ScheduledJob {
                name: JobName::parse(name).unwrap(),
                job: Arc::new(Logged {
                    log: log.into(),
                    process: process.clone(),
                }),
                settings: rx,
            },
            stop.child_token(),
        );
    }
    // Ready once every job's loop has read its start time (before that, a fire the test
    // moves the clock to could come before the loop's start, and not be due for it).
    while scheduler.states().len() < jobs.len() {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    std::fs::write(format!("{stop_file}.ready-{process}"), "").unwrap();
    while !std::path::Path::new(stop_file).exists() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.cancel();
}
