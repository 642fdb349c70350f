//! steward-jobs: proactive work. `schedule` computes when a job fires next — every N, daily
//! at a local time, weekly, cron in a time zone — always from the clock, never by sleeping an
//! interval, with defined behaviour in DST gaps and repeated hours. `when` resolves the time
//! phrases a person says ("in 2 days at 9", "next Friday") in their time zone, in code, and
//! asks back when a phrase is ambiguous.
//!
//! Owns: schedules, time phrases, (later) the scheduler loop and the jobs. Does not own:
//! storage of occurrences and leases (steward-store's `JobStore`), delivery (core's delivery
//! port), the configuration keys (the binary).

pub mod job;
pub mod jobs;
pub mod runner;
pub mod schedule;
pub mod tools;
pub mod voice;
pub mod when;

pub use job::{Job, JobError, JobOutcome, RunContext};
pub use runner::{JobSettings, ScheduledJob, Scheduler, Timing};
pub use voice::{Budget, Held, Said, Speaker, Voice};
