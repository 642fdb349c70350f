//! `steward doctor`'s jobs check: each scheduled job's heartbeat and last result, read from
//! the database. A job that has run before but whose heartbeat is older than a few minutes
//! means no `steward serve` is running its loop (or it is stuck): a warning with the fix. A
//! job whose last occurrence failed for good is a warning too, with its error.
//!
//! Owns: that check's words. Does not own: the records (steward-store), the job list
//! (`jobs_cmd::jobs`).

use std::io;
use std::path::Path;

use steward_store::{JobStore, OccurrenceStatus};

use super::Report;
use crate::config::LoadedConfig;
use crate::jobs_cmd::{STALE_HEARTBEAT_MS, jobs};
use crate::memory_cmd::terminal_safe;

pub(super) async fn check(r: &mut Report<'_>, cfg: &LoadedConfig, dir: &Path) -> io::Result<()> {
    let path = dir.join("steward.db");
    let Ok(store) = steward_store::open(&steward_store::StoreConfig::sqlite_file(&path)) else {
        // The database check has said why.
        return Ok(());
    };
    // The schedules in force: with the values set in the app or by `steward jobs` (a job
    // disabled there shows disabled here).
    let settings = match crate::app::effective(cfg, &*store).await {
        Ok(s) => s,
        Err(_) => cfg.settings.clone(),
    };
    let s = &settings;
    let store: std::sync::Arc<dyn JobStore> = store;
    let beats = store.heartbeats().await.unwrap_or_default();
    let now = crate::app::clock().now_ms();
    for (name, key, schedule) in jobs(s) {
        if schedule.is_empty() {
            r.ok(&format!("job {name}: disabled ({key} is empty)"))?;
            continue;
        }
        match beats.iter().find(|b| b.job == name) {
            None => r.ok(&format!("job {name}: {schedule}, not run yet (steward serve runs it)"))?,
            Some(b) if now - b.at_ms > STALE_HEARTBEAT_MS => r.warn(
                &format!(
                    "job {name}: heartbeat stale ({} min old): no running Steward is looking after it",
                    (now - b.at_ms) / 60_000
                ),
                &["start `steward serve` (or restart it if it is running: `steward jobs` shows the last result)"],
            )?,
            Some(_) => r.ok(&format!("job {name}: {schedule}, running"))?,
        }
        if let Ok(history) = store.job_history(name, 1).await
            && let Some(last) = history.first()
            && last.status == OccurrenceStatus::Failed
        {
            r.warn(
                &format!(
                    "job {name}: its last occurrence failed after {} attempt(s): {}",
                    last.attempts,
                    terminal_safe(&last.outcome)
                ),
                &["see `steward jobs report` and the server log"],
            )?;
        }
    }
    Ok(())
}
