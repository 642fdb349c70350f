//! `steward usage` through the real binary over a ledger written beforehand: per-day rows
//! with bars, the per-model lines, "no price" for an unpriced model and the footnote for
//! mixed days, escaped model names, and a refused `--days`.

use crate::support;

use std::path::Path;
use std::process::Output;
use steward_store::{UsagePurpose, UsageRecord, UsageStore};
use support::{TempDir, base_command};

fn usage(dir: &Path, args: &[&str]) -> Output {
    base_command(dir)
        .env("STEWARD_LOG", "warn")
        .env("STEWARD_TIMEZONE", "UTC")
        .arg("usage")
        .args(args)
        .output()
        .unwrap()
}

fn record(at_secs: i64, model: &str, tokens: (u64, u64), cost: Option<u64>) -> UsageRecord {
    UsageRecord {
        at_secs,
        conversation: None,
        turn_id: None,
        model: model.into(),
        purpose: UsagePurpose::Turn,
        genre: "cli".into(),
        input_tokens: tokens.0,
        output_tokens: tokens.1,
        cost_micro_usd: cost,
    }
}

/// The lines of the table: the row starting with `first`, split on whitespace.
fn row<'a>(text: &'a str, first: &str) -> Vec<&'a str> {
    text.lines()
        .find(|l| l.starts_with(first))
        .unwrap_or_else(|| panic!("no row {first:?} in\n{text}"))
        .split_whitespace()
        .collect()
}

#[tokio::test]
async fn usage_prints_days_with_bars_and_models() {
    let dir = TempDir::new("usage-cli");
    let store = steward_store::open(&steward_store::StoreConfig::sqlite_file(
        dir.path().join("steward.db"),
    ))
    .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let day = 86_400;
    for r in [
        record(now, "openai:gpt-4o", (1000, 500), Some(7_500)),
        record(now, "ollama:qwen3:8b", (400, 100), None),
        record(now - day, "openai:gpt-4o", (3000, 1500), Some(22_500)),
        // Older than the window.
        record(now - 5 * day, "openai:gpt-4o", (9, 9), Some(99_999_999)),
        record(now - day, "evil:\u{1b}[31mred\nx", (1, 1), None),
    ] {
        store.record_usage(&r).await.unwrap();
    }
    drop(store);
    let today = chrono_date(now);
    let yesterday = chrono_date(now - day);

    let out = usage(dir.path(), &["--days", "3"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("Model usage, last 3 days (UTC)"), "{text}");
    let t = row(&text, &today);
    assert_eq!(&t[..5], [today.as_str(), "2", "1400", "600", "$0.0075*"]);
    let y = row(&text, &yesterday);
    assert_eq!(&y[..5], [yesterday.as_str(), "2", "3001", "1501", "$0.02*"]);
    // Yesterday used more tokens: its bar is the full width, today's is shorter.
    let bar = |cells: &[&str]| cells.last().unwrap().chars().count();
    assert_eq!(bar(&y), 30, "{text}");
    assert!(bar(&t) < 30 && bar(&t) > 0, "{text}");
    let total = row(&text, "total");
    assert_eq!(total, ["total", "4", "4401", "2101", "$0.03*"]);
    // Per model, dearest first; a model without a price says so.
    let by_model = text.split("By model\n").nth(1).unwrap();
    let lines: Vec<&str> = by_model.lines().filter(|l| !l.is_empty()).collect();
    assert!(
        lines[0].starts_with("openai:gpt-4o") && lines[0].ends_with("$0.03"),
        "{text}"
    );
    assert!(lines[0].contains("2 calls"), "{text}");
    let qwen = lines
        .iter()
        .find(|l| l.starts_with("ollama:qwen3:8b"))
        .unwrap();
    assert!(
        qwen.contains("1 call ") && qwen.ends_with("no price"),
        "{qwen}"
    );
    // A stored name cannot drive the terminal or fake a line.
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("evil:\\u{1b}[31mred\\nx"), "{text}");
    assert!(text.contains("* 2 calls without a price"), "{text}");
    assert!(
        !text.contains("$100"),
        "the old record is outside the window"
    );
}

/// `YYYY-MM-DD` of a Unix time in UTC (civil-from-days, as the test needs no date crate).
fn chrono_date(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[test]
fn a_bad_window_is_refused_with_the_rule() {
    let dir = TempDir::new("usage-cli-bad");
    for bad in ["0", "abc", "367", "100000", "-5", "1.5", ""] {
        let out = usage(dir.path(), &[&format!("--days={bad}")]);
        assert_eq!(out.status.code(), Some(2), "--days {bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("days must be a whole number from 1 to 366"),
            "--days {bad:?}: {err}"
        );
    }
    // The default window is 30 days, and an empty ledger says so.
    let out = usage(dir.path(), &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.starts_with("Model usage, last 30 days (UTC)"),
        "{text}"
    );
    assert!(text.contains("No model calls in this period."), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("20")).count(), 30);
}
