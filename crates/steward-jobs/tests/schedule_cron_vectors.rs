//! Cron next-fire times against an independent implementation: Python's croniter (pinned in
//! scripts/py-test-clients.sh), for a table of expressions from several start instants, in
//! UTC and in Europe/Berlin. Where the two legitimately differ, the difference is asserted
//! both ways (croniter says one thing, we the standard's) with the reason.
//!
//! Needs the Python test clients: `scripts/py-test-clients.sh` and `STEWARD_TEST_PY_DIR`
//! (default `target/py-clients`). Missing, the test fails with how to install them.

use std::path::PathBuf;
use std::process::Command;

use crate::schedule_support::{rfc, schedule, utc, zone};

/// The venv's python, or a failure saying how to install it. Never a skip.
fn croniter_python() -> PathBuf {
    let dir = std::env::var_os("STEWARD_TEST_PY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/py-clients")
        });
    let python = dir.join("bin/python");
    assert!(
        python.is_file() && dir.join(".installed").is_file(),
        "the Python test clients (with croniter) are not installed in {} — run scripts/py-test-clients.sh (scripts/test does) and set STEWARD_TEST_PY_DIR",
        dir.display()
    );
    python
}

/// For each `[expr, zone, start]` on stdin (JSON), croniter's next `COUNT` fires after
/// `start` in `zone`, as RFC 3339 UTC strings (JSON on stdout).
const CRONITER_SCRIPT: &str = r#"
import datetime, json, sys
import pytz
from croniter import croniter
COUNT = int(sys.argv[1])
out = []
for expr, tz, start in json.load(sys.stdin):
    at = datetime.datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(pytz.timezone(tz))
    it = croniter(expr, at)
    out.append([it.get_next(datetime.datetime).astimezone(pytz.utc).strftime("%Y-%m-%dT%H:%M:%SZ") for _ in range(COUNT)])
json.dump(out, sys.stdout)
"#;

const COUNT: usize = 4;

/// croniter's answers for `cases`, one list of `COUNT` fires each.
fn croniter_fires(cases: &[(String, String, String)]) -> Vec<Vec<String>> {
    use std::io::Write;
    let mut child = Command::new(croniter_python())
        .args(["-c", CRONITER_SCRIPT, &COUNT.to_string()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the venv's python");
    let input = serde_json::to_vec(cases).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "croniter script failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fires: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(fires.len(), cases.len(), "one answer per case");
    fires
}

/// Our next `COUNT` fires of `expr` after `start` in `tz`, chained through `next_fire`.
fn our_fires(expr: &str, tz: &str, start: &str) -> Vec<String> {
    let s = schedule(&format!("cron {expr}"));
    let mut at = utc(start);
    (0..COUNT)
        .map(|_| {
            at = s
                .next_fire(at, zone(tz))
                .unwrap_or_else(|| panic!("{expr} has a next fire after {at}"));
            rfc(at)
        })
        .collect()
}

const EXPRESSIONS: &[&str] = &[
    "0 9 * * 1-5",          // weekdays at nine
    "*/15 * * * *",         // steps
    "0 8,12,18 * * *",      // a list of hours
    "30 6 * * mon,wed,fri", // day names
    "0 0 L * *",            // the last day of the month
    "0 10 * * 5#2",         // the second Friday
    "0 9 15W * *",          // the weekday nearest the 15th
    "0 12 1 jan-mar *",     // month names, a range
    "15 14 1 * *",          // the first of the month
    "5 4 * * sun",          // Sundays
    "0 0 1 */3 *",          // every third month
    "23 0-20/2 * * *",      // a stepped range
    "0 0 * * 7",            // 7 is Sunday
    "0 9 1,15 * 1",         // both day fields restricted: either matches (Vixie's OR)
    "0 0 29 2 *",           // leap day: 2028
    "59 23 31 12 *",        // the year's last minute
];

const STARTS: &[&str] = &[
    "2026-01-15T10:20:00Z",
    "2026-02-27T23:59:30Z",
    "2026-06-30T12:00:00Z",
    "2026-12-31T22:59:00Z",
];

#[test]
fn cron_next_fires_match_croniter_in_utc_and_berlin() {
    let mut cases = Vec::new();
    for expr in EXPRESSIONS {
        for tz in ["UTC", "Europe/Berlin"] {
            for start in STARTS {
                cases.push((expr.to_string(), tz.to_string(), start.to_string()));
            }
        }
    }
    let theirs = croniter_fires(&cases);
    let mut mismatches = Vec::new();
    for ((expr, tz, start), want) in cases.iter().zip(&theirs) {
        let ours = our_fires(expr, tz, start);
        if &ours != want {
            mismatches.push(format!(
                "{expr:?} in {tz} after {start}: ours {ours:?}, croniter {want:?}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn where_croniter_differs_we_follow_vixie_cron() {
    let cases = [
        // A fixed-time job in Berlin's repeated hour (25 October 2026): croniter fires 02:30
        // twice (00:30Z CEST and 01:30Z CET); Vixie cron runs a fixed-time job once, at the
        // first occurrence, and so do we.
        (
            "30 2 * * *",
            "Europe/Berlin",
            "2026-10-24T12:00:00Z",
            [
                "2026-10-25T00:30:00Z", // 02:30 CEST
                "2026-10-26T01:30:00Z", // Mon 02:30 CET
                "2026-10-27T01:30:00Z",
                "2026-10-28T01:30:00Z",
            ],
        ),
        // `*/2` in the day of month: Vixie counts a field starting with `*` as unrestricted,
        // so both must match (odd days that are Mondays: 9 and 23 February, 9 and 23 March
        // 2026); croniter (and croner alone) take it as restricted and fire on either.
        (
            "0 0 */2 * 1",
            "UTC",
            "2026-02-01T00:00:00Z",
            [
                "2026-02-09T00:00:00Z",
                "2026-02-23T00:00:00Z",
                "2026-03-09T00:00:00Z",
                "2026-03-23T00:00:00Z",
            ],
        ),
    ];
    let input: Vec<(String, String, String)> = cases
        .iter()
        .map(|(e, tz, s, _)| (e.to_string(), tz.to_string(), s.to_string()))
        .collect();
    let theirs = croniter_fires(&input);
    for ((expr, tz, start, want), croniter) in cases.iter().zip(theirs) {
        let ours = our_fires(expr, tz, start);
        assert_eq!(ours, want, "{expr} in {tz}");
        assert_ne!(
            croniter, ours,
            "croniter no longer differs for {expr}: update the docs"
        );
    }
}

#[test]
fn the_gap_of_a_fixed_time_job_agrees_with_croniter() {
    // 02:30 on Berlin's spring-forward day: both run it at the gap's end, 03:00 CEST = 01:00Z.
    let input = vec![(
        "30 2 * * *".to_string(),
        "Europe/Berlin".to_string(),
        "2026-03-28T12:00:00Z".to_string(),
    )];
    let theirs = croniter_fires(&input);
    let ours = our_fires("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z");
    assert_eq!(ours[0], "2026-03-29T01:00:00Z");
    assert_eq!(theirs[0], ours);
}
