//! `steward jobs`, `steward jobs report` and `steward doctor` through the real binary over
//! scheduler records written beforehand: a job that failed for good after its retry budget is
//! counted and its error shown by the report, warned about by doctor with its error, and a
//! stale heartbeat is a warning too; an error text with terminal escapes is shown, not obeyed;
//! a job turned off with `steward jobs disable` shows off in doctor and in the list.

use crate::support;

use std::path::Path;
use std::process::Output;
use steward_protocol::Clock;
use steward_store::{Claim, JobStore, OccurrenceEnd};
use support::{TempDir, base_command};

fn steward(dir: &Path, args: &[&str]) -> Output {
    base_command(dir)
        .env("STEWARD_LOG", "warn")
        .env("STEWARD_TIMEZONE", "UTC")
        .args(args)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `attempts` failed attempts at `job`'s occurrence `key` (the last one final).
async fn fail(store: &dyn JobStore, job: &str, key: &str, at: i64, attempts: u32, why: &str) {
    for n in 1..=attempts {
        let now = at + i64::from(n) * 1000;
        let claim = store
            .claim_occurrence(job, key, at, "pid1", now, 60_000)
            .await
            .unwrap();
        assert_eq!(claim, Claim::Run { attempt: n });
        let end = if n == attempts {
            OccurrenceEnd::Failed
        } else {
            OccurrenceEnd::Retry { at_ms: now }
        };
        assert!(
            store
                .end_occurrence(job, key, "pid1", end, why, now)
                .await
                .unwrap()
        );
    }
}

#[tokio::test]
async fn a_job_that_failed_for_good_shows_in_the_report_and_in_doctor() {
    let dir = TempDir::new("jobs-cli");
    let now = steward_protocol::SystemClock.now_ms();
    {
        let store = steward_store::open(&steward_store::StoreConfig::sqlite_file(
            dir.path().join("steward.db"),
        ))
        .unwrap();
        let hour = 3_600_000;
        fail(
            &*store,
            "task-runs",
            "task-abc-at-1",
            now - hour,
            3,
            "the model is unreachable",
        )
        .await;
        fail(
            &*store,
            "backfill",
            "at-1",
            now - 2 * hour,
            3,
            "the embedder is unreachable \u{1b}[31mred",
        )
        .await;
        // A done run of another job, and its heartbeat gone stale an hour ago.
        let claim = store
            .claim_occurrence("retention", "at-2", now - hour, "pid1", now - hour, 60_000)
            .await
            .unwrap();
        assert_eq!(claim, Claim::Run { attempt: 1 });
        store
            .end_occurrence(
                "retention",
                "at-2",
                "pid1",
                OccurrenceEnd::Done,
                "3 row(s) pruned",
                now - hour,
            )
            .await
            .unwrap();
        store.beat("retention", "pid1", now - hour).await.unwrap();
        store.beat("backfill", "pid1", now).await.unwrap();
    }

    let report = steward(dir.path(), &["jobs", "report", "--days", "2"]);
    let shown = text(&report);
    assert!(report.status.success(), "{shown}");
    assert!(
        shown.contains("backfill: 0 done, 0 skipped, 1 failed"),
        "{shown}"
    );
    assert!(
        shown.contains("last failure: the embedder is unreachable"),
        "{shown}"
    );
    assert!(shown.contains("retention: 1 done"), "{shown}");
    assert!(
        shown.contains("recurring task runs: 0 done, 1 failed"),
        "{shown}"
    );
    assert!(
        shown.contains("last failure: the model is unreachable"),
        "{shown}"
    );
    assert!(
        !shown.contains('\u{1b}'),
        "an escape reached the terminal: {shown:?}"
    );

    let list = steward(dir.path(), &["jobs"]);
    let listed = text(&list);
    assert!(list.status.success(), "{listed}");
    assert!(
        listed.contains("failed — the embedder is unreachable"),
        "{listed}"
    );
    assert!(listed.contains("(3 attempts)"), "{listed}");
    assert!(listed.contains("STALE"), "{listed}");

    let doctor = text(&steward(dir.path(), &["doctor"]));
    assert!(
        doctor.contains("job backfill: its last occurrence failed after 3 attempt(s): the embedder is unreachable"),
        "{doctor}"
    );
    assert!(
        doctor.contains("job retention: heartbeat stale"),
        "{doctor}"
    );
    assert!(!doctor.contains('\u{1b}'), "{doctor:?}");

    // A job turned off from the terminal shows off in doctor and in the list.
    let off = steward(dir.path(), &["jobs", "disable", "briefing"]);
    assert!(off.status.success(), "{}", text(&off));
    let doctor = text(&steward(dir.path(), &["doctor"]));
    assert!(
        doctor.contains("job briefing: disabled (jobs.briefing is empty)"),
        "{doctor}"
    );
    let listed = text(&steward(dir.path(), &["jobs"]));
    assert!(
        listed.contains("briefing  (jobs.briefing = disabled)"),
        "{listed}"
    );

    // Refused input says what is wrong and changes nothing.
    let bad = steward(dir.path(), &["jobs", "report", "--days", "0"]);
    assert!(!bad.status.success());
    let bad = steward(dir.path(), &["jobs", "run", "no-such-job"]);
    assert!(!bad.status.success());
    assert!(text(&bad).contains("no job named"), "{}", text(&bad));
    let bad = steward(dir.path(), &["jobs", "disable", "briefing; rm -rf /"]);
    assert!(!bad.status.success());
}
