//! `steward jobs` (each job: its schedule, next fire, last occurrence, heartbeat) and
//! `steward jobs report [--days N]` (runs, skips and failures per job; proactive messages
//! sent, 👍, 👎 and ignored per genre — what the owner may want to silence with
//! `proactive.silenced`). Opens only the store: no model, no surface.
//!
//! Owns: the commands' layout. Does not own: the records (steward-store's `JobStore`), the
//! schedules (steward-jobs), which jobs exist (`jobs_wiring`'s table).

use std::fmt::Write as _;
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use clap::Subcommand;
use steward_jobs::schedule::Schedule;
use steward_store::{GenreEngagement, Heartbeat, JobStore, OccurrenceRecord, OccurrenceStatus};

use crate::app;
use crate::config::{LoadedConfig, Settings};
use crate::memory_cmd::terminal_safe;

/// Occurrences read per job for the report.
const REPORT_ROWS: usize = 10_000;
/// A heartbeat older than this means the job's loop is not running (the loop beats every
/// minute while its process runs).
pub const STALE_HEARTBEAT_MS: i64 = 5 * 60_000;

#[derive(Subcommand)]
pub enum JobsCommand {
    /// Runs, skips and failures per job, and how each kind of proactive message is received.
    Report {
        /// How many days back, today included (1 to 366).
        #[arg(long, value_name = "N", default_value = "7", value_parser = clap::value_parser!(u16).range(1..=366))]
        days: u16,
    },
}

/// Each job the scheduler runs, with the setting that holds its schedule: the scheduler's
/// own table (`jobs_wiring::schedules`), so a job added there is listed here.
pub fn jobs(settings: &Settings) -> Vec<(&'static str, &'static str, String)> {
    crate::jobs_wiring::schedules(settings)
}

fn when(ms: i64, tz: Tz) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(|t| t.with_timezone(&tz).format("%a %d %b %H:%M").to_string())
        .unwrap_or_else(|| "?".to_owned())
}

fn ago(now: i64, then: i64) -> String {
    let secs = (now - then).max(0) / 1000;
    match secs {
        s if s < 120 => format!("{s} s ago"),
        s if s < 7200 => format!("{} min ago", s / 60),
        s if s < 172_800 => format!("{} h ago", s / 3600),
        s => format!("{} days ago", s / 86_400),
    }
}

pub async fn run(loaded: &LoadedConfig, command: Option<JobsCommand>) -> anyhow::Result<ExitCode> {
    let settings = &loaded.settings;
    app::init_file_logging(&app::terminal_log_filter(loaded), &app::log_path(settings));
    let clock = app::clock();
    let store = app::open_store(settings, clock.clone())?;
    let tz: Tz = settings.timezone.parse().unwrap_or(Tz::UTC);
    let now = clock.now_ms();
    let text = match command {
        None => list(&*store, settings, tz, now).await?,
        Some(JobsCommand::Report { days }) => {
            report(&*store, settings, now - i64::from(days) * 86_400_000, days).await?
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// The list `steward jobs` prints.
pub async fn list(
    store: &dyn JobStore,
    settings: &Settings,
    tz: Tz,
    now: i64,
) -> anyhow::Result<String> {
    let beats = store.heartbeats().await?;
    let mut out = String::new();
    for (name, key, schedule_text) in jobs(settings) {
        let schedule: Schedule = schedule_text.parse().unwrap_or(Schedule::Disabled);
        let next = DateTime::<Utc>::from_timestamp_millis(now)
            .and_then(|t| schedule.next_fire(t, tz))
            .map(|t| when(t.timestamp_millis(), tz))
            .unwrap_or_else(|| "never (disabled)".to_owned());
        let shown = if schedule_text.is_empty() {
            "disabled".to_owned()
        } else {
            schedule_text
        };
        let _ = writeln!(out, "{name}  ({key} = {shown})");
        let _ = writeln!(out, "  next: {next}");
        match store.job_history(name, 1).await?.first() {
            Some(last) => {
                let _ = writeln!(
                    out,
                    "  last: {} {} — {}{}",
                    when(last.scheduled_ms, tz),
                    last.status.as_str(),
                    terminal_safe(&last.outcome),
                    if last.attempts > 1 {
                        format!(" ({} attempts)", last.attempts)
                    } else {
                        String::new()
                    }
                );
            }
            None => {
                let _ = writeln!(out, "  last: never ran");
            }
        }
        let _ = writeln!(
            out,
            "  heartbeat: {}",
            heartbeat(beats.iter().find(|b| b.job == name), now)
        );
    }
    Ok(out)
}

fn heartbeat(beat: Option<&Heartbeat>, now: i64) -> String {
    match beat {
        None => "none (no `steward serve` has run it)".to_owned(),
        Some(b) if now - b.at_ms > STALE_HEARTBEAT_MS => {
            format!("STALE, {} (is `steward serve` running?)", ago(now, b.at_ms))
        }
        Some(b) => ago(now, b.at_ms),
    }
}

#[derive(Default)]
struct Counts {
    done: usize,
    skipped: usize,
    failed: usize,
    retrying: usize,
}

fn counts(rows: &[OccurrenceRecord], since: i64) -> Counts {
    let mut c = Counts::default();
    for r in rows.iter().filter(|r| r.scheduled_ms >= since) {
        match r.status {
            OccurrenceStatus::Done => c.done += 1,
            OccurrenceStatus::Skipped => c.skipped += 1,
            OccurrenceStatus::Failed => c.failed += 1,
            OccurrenceStatus::Retrying | OccurrenceStatus::Running => c.retrying += 1,
        }
    }
    c
}

/// The report `steward jobs report` prints.
pub async fn report(
    store: &dyn JobStore,
    settings: &Settings,
    since: i64,
    days: u16,
) -> anyhow::Result<String> {
    let mut out = format!("Jobs, last {days} day(s):\n");
    for (name, _, _) in jobs(settings) {
        let rows = store.job_history(name, REPORT_ROWS).await?;
        let c = counts(&rows, since);
        let _ = write!(
            out,
            "  {name}: {} done, {} skipped, {} failed",
            c.done, c.skipped, c.failed
        );
        if c.retrying > 0 {
            let _ = write!(out, ", {} running or waiting to retry", c.retrying);
        }
        out.push('\n');
        if let Some(last_failure) = rows
            .iter()
            .find(|r| r.status == OccurrenceStatus::Failed && r.scheduled_ms >= since)
        {
            let _ = writeln!(
                out,
                "    last failure: {}",
                terminal_safe(&last_failure.outcome)
            );
        }
    }
    let engagement = store.engagement_since(since).await?;
    out.push_str("\nProactive messages (sent, 👍, 👎, ignored):\n");
    if engagement.is_empty() {
        out.push_str("  none sent\n");
    }
    for g in &engagement {
        let _ = writeln!(out, "  {}", engagement_line(g));
    }
    Ok(out)
}

fn engagement_line(g: &GenreEngagement) -> String {
    let hint = if g.sent >= 5 && g.liked == 0 && g.ignored * 10 >= g.sent * 8 {
        format!(
            "  — mostly ignored: consider proactive.silenced = \"{}\"",
            g.genre
        )
    } else {
        String::new()
    };
    format!(
        "{:<11} {:>4} sent  {:>3} 👍  {:>3} 👎  {:>4} ignored{hint}",
        g.genre, g.sent, g.liked, g.disliked, g.ignored
    )
}
