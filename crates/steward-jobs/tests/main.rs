//! Every integration test of this crate in one test binary: each file beside this one is a
//! module.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod briefing_job;
mod briefing_support;
mod briefing_weather;
mod follow_ups_job;
mod idle_day;
mod reminders_job;
mod runner;
mod runner_support;
mod schedule_cron_vectors;
mod schedule_dst;
mod schedule_next;
mod schedule_parse;
mod schedule_support;
mod task_tools;
mod tasks_job;
mod two_processes;
mod upkeep_jobs;
mod voice;
mod when_phrases;
