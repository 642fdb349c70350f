//! `steward usage [--days N]`: tokens and cost per day in the owner's time zone, with a bar
//! per day, then per model, from the usage ledger. Opens only the store: no model, no MCP.
//!
//! Owns: the command's layout and how money is written. Does not own the roll-up
//! (steward-core's `usage`, the same one `GET /api/v1/status` shows) or the prices.

use crate::app;
use crate::config::LoadedConfig;
use crate::memory_cmd::terminal_safe;
use crate::words::count;
use std::fmt::Write as _;
use std::process::ExitCode;
use steward_core::usage::{UsageDays, UsageDaysError, UsageReport, UsageTotals, usage_report};

/// Widest bar, in characters.
const BAR_WIDTH: usize = 30;
/// A bar's last character by eighths of a cell (one to seven).
const EIGHTHS: [char; 7] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// clap's reading of `--days` (UsageDays' one rule).
pub fn parse_days(text: &str) -> Result<UsageDays, UsageDaysError> {
    UsageDays::parse(text)
}

pub async fn run(loaded: &LoadedConfig, days: UsageDays) -> anyhow::Result<ExitCode> {
    let settings = &loaded.settings;
    app::init_file_logging(&app::terminal_log_filter(loaded), &app::log_path(settings));
    let clock = app::clock();
    let store = app::open_store(settings, clock.clone())?;
    let report = usage_report(&*store, clock.now_secs(), Some(&settings.timezone), days).await?;
    print!("{}", render(&report));
    Ok(ExitCode::SUCCESS)
}

/// Micro-USD as a person reads it: cents from a cent up, else four decimals, `<$0.0001`
/// for less (never `$0.00` for a cost that is not zero).
pub fn usd(micro: u64) -> String {
    match micro {
        0 => "$0.00".to_owned(),
        m if m >= 10_000 => {
            let cents = m.saturating_add(5_000) / 10_000;
            format!("${}.{:02}", cents / 100, cents % 100)
        }
        m if m < 50 => "<$0.0001".to_owned(),
        m => format!("$0.{:04}", (m + 50) / 100),
    }
}

/// The cost column: `no price` when no call had one, a `*` when some had none.
fn cost(t: &UsageTotals) -> String {
    match t.cost_usd() {
        None => "no price".to_owned(),
        Some(_) if t.unpriced_calls > 0 => format!("{}*", usd(t.cost_micro_usd)),
        Some(_) => usd(t.cost_micro_usd),
    }
}

fn tokens(t: &UsageTotals) -> u64 {
    t.input_tokens.saturating_add(t.output_tokens)
}

/// A bar `value / max` of `BAR_WIDTH` cells, in eighths; a non-zero value shows at least one.
fn bar(value: u64, max: u64) -> String {
    if value == 0 || max == 0 {
        return String::new();
    }
    let eighths = (u128::from(value) * (BAR_WIDTH as u128 * 8) / u128::from(max)).max(1);
    let eighths = usize::try_from(eighths).unwrap_or(BAR_WIDTH * 8);
    let mut out = "█".repeat(eighths / 8);
    if eighths % 8 > 0 {
        out.push(EIGHTHS[eighths % 8 - 1]);
    }
    out
}

/// "1 call", "2 calls" (`words::count`, the binary's one spelling of counts).
fn plural(n: u64, one: &str) -> String {
    count(
        usize::try_from(n).unwrap_or(usize::MAX),
        one,
        &format!("{one}s"),
    )
}

/// The whole listing.
pub fn render(report: &UsageReport) -> String {
    let mut out = String::new();
    let days = report.days.len() as u64;
    let _ = writeln!(
        out,
        "Model usage, last {} ({}); bars: tokens per day\n",
        plural(days, "day"),
        report.timezone
    );
    let _ = writeln!(
        out,
        "{:<10}  {:>6}  {:>12}  {:>12}  {:>10}",
        "date", "calls", "input", "output", "cost"
    );
    let max = report
        .days
        .iter()
        .map(|d| tokens(&d.totals))
        .max()
        .unwrap_or(0);
    for d in &report.days {
        let t = &d.totals;
        let line = format!(
            "{:<10}  {:>6}  {:>12}  {:>12}  {:>10}  {}",
            d.date,
            t.calls,
            t.input_tokens,
            t.output_tokens,
            cost(t),
            bar(tokens(t), max)
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let t = &report.total;
    let _ = writeln!(
        out,
        "{:<10}  {:>6}  {:>12}  {:>12}  {:>10}",
        "total",
        t.calls,
        t.input_tokens,
        t.output_tokens,
        cost(t)
    );
    if t.calls == 0 {
        out.push_str("\nNo model calls in this period.\n");
        return out;
    }
    out.push_str("\nBy model\n");
    // Model names are stored text: shown escaped, so none can drive the terminal.
    let names: Vec<String> = report
        .by_model
        .iter()
        .map(|m| terminal_safe(&m.model))
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (m, name) in report.by_model.iter().zip(&names) {
        let t = &m.totals;
        let _ = writeln!(
            out,
            "{:<width$}  {:>10}  {:>12} in  {:>12} out  {:>10}",
            name,
            plural(t.calls, "call"),
            t.input_tokens,
            t.output_tokens,
            cost(t)
        );
    }
    if t.unpriced_calls > 0 {
        let _ = writeln!(
            out,
            "\n* {} without a price, not in the cost: set one with [prices] in steward.toml \
             (`steward config docs` lists the built-in prices).",
            plural(t.unpriced_calls, "call")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_never_shown_as_zero_when_it_is_not() {
        assert_eq!(usd(0), "$0.00");
        assert_eq!(usd(1), "<$0.0001");
        assert_eq!(usd(49), "<$0.0001");
        assert_eq!(usd(50), "$0.0001");
        assert_eq!(usd(1_050), "$0.0011");
        assert_eq!(usd(9_999), "$0.0100");
        assert_eq!(usd(10_000), "$0.01");
        assert_eq!(usd(1_234_567), "$1.23");
        assert_eq!(usd(1_235_000), "$1.24");
        assert_eq!(usd(u64::MAX), "$18446744073709.55");
    }

    #[test]
    fn bars_scale_to_the_largest_day_in_eighths() {
        assert_eq!(bar(0, 100), "");
        assert_eq!(bar(100, 100), "█".repeat(BAR_WIDTH));
        assert_eq!(bar(50, 100), "█".repeat(BAR_WIDTH / 2));
        // 1/240 of the widest day is one eighth of a cell; less still shows one.
        assert_eq!(bar(1, 240), "▏");
        assert_eq!(bar(1, 1_000_000), "▏");
        // 3/16 of 240 eighths = 45: five cells and five eighths.
        assert_eq!(bar(3, 16), format!("{}▋", "█".repeat(5)));
        assert_eq!(bar(u64::MAX, u64::MAX), "█".repeat(BAR_WIDTH));
    }
}
