//! `steward jobs` (each job: its schedule, next fire, last occurrence, heartbeat) and
//! `steward jobs report [--days N]` (runs, skips and failures per job; proactive messages
//! sent, 👍, 👎 and ignored per genre — what the owner may want to silence with
//! `proactive.silenced`). Opens only the store: no model, no surface.
//!
//! Owns: the commands' layout. Does not own: the records (steward-store's `JobStore`), the
//! schedules (steward-jobs), which jobs exist (`jobs_wiring::schedules`).

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
    /// Run a job once now, outside its schedule (what it says goes where it would; Telegram
    /// too when a bot token is set), and show how it went.
    Run {
        /// The job, as `steward jobs` lists it (e.g. briefing).
        name: String,
    },
    /// Turn a job on: with the schedule given (`daily 07:30`, `every 2h`, `weekly fri 18:00`,
    /// `cron 0 9 * * 1-5`), or back to its configured one. A running `steward serve` takes it
    /// within 15 s.
    Enable {
        name: String,
        /// The schedule's words (quoting is optional).
        #[arg(trailing_var_arg = true, num_args = 0..)]
        schedule: Vec<String>,
    },
    /// Turn a job off (its schedule becomes empty) until `steward jobs enable`.
    Disable { name: String },
    /// Stop one kind of proactive message from speaking (reminder, task, briefing, recap,
    /// follow_up, reflection); `--undo` lets it speak again.
    Silence {
        genre: String,
        #[arg(long)]
        undo: bool,
    },
}

/// Each job the scheduler runs, with the setting that holds its schedule.
pub fn jobs(settings: &Settings) -> Vec<(&'static str, &'static str, String)> {
    crate::jobs_wiring::schedules(settings)
        .into_iter()
        .map(|j| (j.name, j.key, j.schedule))
        .collect()
}

/// The setting of job `name`, or an error listing the jobs there are.
fn job_key(settings: &Settings, name: &str) -> anyhow::Result<&'static str> {
    let all = jobs(settings);
    match all.iter().find(|(n, _, _)| *n == name) {
        Some((_, key, _)) => Ok(key),
        None => {
            let names: Vec<&str> = all.iter().map(|(n, _, _)| *n).collect();
            anyhow::bail!("no job named {name:?}; the jobs are: {}", names.join(", "))
        }
    }
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
    app::init_file_logging(
        &app::terminal_log_filter(loaded),
        &app::log_path(&loaded.settings),
    );
    let clock = app::clock();
    let store = app::open_store(&loaded.settings, clock.clone())?;
    // With the values set in the app or by `steward jobs enable|disable|silence`.
    let effective = app::effective(loaded, &*store).await?;
    let settings = &effective;
    let tz: Tz = settings.timezone.parse().unwrap_or(Tz::UTC);
    let now = clock.now_ms();
    let text = match command {
        None => list(&*store, settings, tz, now).await?,
        Some(JobsCommand::Report { days }) => {
            report(&*store, settings, now - i64::from(days) * 86_400_000, days).await?
        }
        Some(JobsCommand::Run { name }) => {
            drop(store);
            return run_now(loaded, &name).await;
        }
        Some(JobsCommand::Enable { name, schedule }) => {
            let key = job_key(settings, &name)?;
            let words = schedule.join(" ");
            if words.trim().is_empty() {
                crate::settings_desk::keep_runtime(loaded, &*store, key, None).await?;
                let back = jobs(&app::effective(loaded, &*store).await?)
                    .into_iter()
                    .find(|(n, _, _)| *n == name)
                    .map(|(_, _, s)| s)
                    .unwrap_or_default();
                if back.trim().is_empty() {
                    format!(
                        "{name}: back to its configured schedule, which is empty (off): give one, e.g. `steward jobs enable {name} daily 07:30`\n"
                    )
                } else {
                    format!("{name}: back to its configured schedule ({key} = {back})\n")
                }
            } else {
                let schedule: Schedule =
                    words.parse().map_err(|e| anyhow::anyhow!("{key}: {e}"))?;
                if schedule.is_disabled() {
                    anyhow::bail!(
                        "that schedule never fires; to turn {name} off: `steward jobs disable {name}`"
                    );
                }
                let kept = crate::settings_desk::keep_runtime(loaded, &*store, key, Some(&words))
                    .await?
                    .unwrap_or_default();
                format!(
                    "{name}: on ({key} = {kept}); a running `steward serve` takes it within 15 s\n"
                )
            }
        }
        Some(JobsCommand::Disable { name }) => {
            let key = job_key(settings, &name)?;
            crate::settings_desk::keep_runtime(loaded, &*store, key, Some("")).await?;
            format!(
                "{name}: off ({key} is empty) until `steward jobs enable {name}`; a running `steward serve` takes it within 15 s\n"
            )
        }
        Some(JobsCommand::Silence { genre, undo }) => {
            silence(loaded, &*store, &genre, undo).await?
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
    // Each run of a recurring task is an occurrence of its own job (the tasks tick above only
    // looks for due ones).
    let runs = store
        .job_history(steward_jobs::jobs::tasks::TASK_RUNS, REPORT_ROWS)
        .await?;
    let c = counts(&runs, since);
    if c.done + c.failed + c.retrying > 0 {
        let _ = write!(
            out,
            "  recurring task runs: {} done, {} failed",
            c.done, c.failed
        );
        if c.retrying > 0 {
            let _ = write!(out, ", {} running or waiting to retry", c.retrying);
        }
        out.push('\n');
        if let Some(last_failure) = runs
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

/// `steward jobs run NAME`: the app built as `serve` builds it (Telegram can deliver, without
/// polling: a running `serve` answers the presses), the job run once.
async fn run_now(loaded: &LoadedConfig, name: &str) -> anyhow::Result<ExitCode> {
    job_key(&loaded.settings, name)?;
    let app = app::build(loaded, app::Overrides::default()).await?;
    let effective = app::effective(loaded, &*app.store).await?;
    let settings = &effective;
    let memory: std::sync::Arc<dyn steward_core::MemoryDesk> =
        std::sync::Arc::new(steward_core::MemoryService::new(app.memory.clone()));
    let telegram = crate::telegram_wiring::register_deliverer_only(&app, settings, memory)?;
    let tz: Tz = settings.timezone.parse().unwrap_or(Tz::UTC);
    let Some(record) = crate::jobs_wiring::run_once(&app, settings, name).await? else {
        anyhow::bail!("no job named {name:?}");
    };
    println!(
        "{name}: {} — {}",
        record.status.as_str(),
        terminal_safe(&record.outcome)
    );
    println!("  ran at {}", when(record.started_ms, tz));
    if !telegram {
        println!(
            "  (no Telegram bot configured: anything it said is in its conversation, shown when next opened)"
        );
    }
    app.steward.shutdown(loaded.settings.shutdown_grace).await;
    if let Some(mcp) = &app.mcp
        && !mcp
            .shutdown_and_wait(std::time::Duration::from_secs(5))
            .await
    {
        tracing::warn!("some MCP sessions did not end in time; exiting anyway");
    }
    Ok(match record.status {
        OccurrenceStatus::Failed | OccurrenceStatus::Retrying => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    })
}

/// `steward jobs silence GENRE [--undo]`: `proactive.silenced` with the genre added or taken out.
async fn silence(
    loaded: &LoadedConfig,
    store: &dyn steward_store::Store,
    genre: &str,
    undo: bool,
) -> anyhow::Result<String> {
    let genre = genre.trim().to_ascii_lowercase();
    if !steward_jobs::voice::genre::ALL.contains(&genre.as_str()) {
        anyhow::bail!(
            "no kind of message named {genre:?}; the kinds are: {}",
            steward_jobs::voice::genre::ALL.join(", ")
        );
    }
    let now = app::effective(loaded, store).await?;
    let mut silenced: Vec<String> = now
        .proactive
        .silenced
        .as_deref()
        .map(|s| {
            s.split(',')
                .map(|g| g.trim().to_owned())
                .filter(|g| !g.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let had = silenced.contains(&genre);
    if undo {
        silenced.retain(|g| *g != genre);
    } else if !had {
        silenced.push(genre.clone());
    }
    let value = silenced.join(",");
    crate::settings_desk::keep_runtime(loaded, store, "proactive.silenced", Some(&value)).await?;
    let shown = if value.is_empty() {
        "none".to_owned()
    } else {
        value
    };
    Ok(match (undo, had) {
        (false, true) => format!("{genre} was already silenced (silenced: {shown})\n"),
        (false, false) => format!(
            "{genre} is silenced (silenced: {shown}); a running `steward serve` takes it within 15 s\n"
        ),
        (true, false) => format!("{genre} was not silenced (silenced: {shown})\n"),
        (true, true) => format!(
            "{genre} may speak again (silenced: {shown}); a running `steward serve` takes it within 15 s\n"
        ),
    })
}
