//! The usage roll-up: what the model calls of the last N days used and cost, per day in the
//! owner's time zone and per model, read from the store's ledger (`UsageStore`). One
//! function for every surface that shows it (`steward usage`, `GET /api/v1/status`).
//!
//! Owns: the window rule (`UsageDays`: 1..=366 days, today included), what a day is (a
//! calendar day in the `timezone` setting, across DST changes), and when a cost is "no price"
//! (`UsageTotals::cost_usd`). Does not own: recording (`turn/ledger.rs`), prices
//! (steward-llm), or drawing (the surfaces).
//!
//! The store sums the ledger per quarter hour and model (`USAGE_BUCKET_SECS`); every time
//! zone's midnight falls on a quarter hour, so summing buckets into local days is exact.

use chrono::{DateTime, Days, NaiveDate};
use chrono_tz::Tz;
use std::collections::BTreeMap;
use steward_store::{StoreError, USAGE_BUCKET_SECS, UsageBucket, UsageStore};

/// Most days a roll-up covers: a year, leap day included.
pub const MAX_USAGE_DAYS: u32 = 366;

/// How many days a roll-up covers, today included. One rule for every surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsageDays(u32);

/// A window refused by the rule; the text is the rule, never the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("days must be a whole number from 1 to 366")]
pub struct UsageDaysError;

impl UsageDays {
    /// What a surface shows when not asked for another window.
    pub const DEFAULT: UsageDays = UsageDays(30);

    pub fn new(days: u32) -> Result<UsageDays, UsageDaysError> {
        if (1..=MAX_USAGE_DAYS).contains(&days) {
            Ok(UsageDays(days))
        } else {
            Err(UsageDaysError)
        }
    }

    /// Decimal digits only (no sign, space or fraction), then [`UsageDays::new`].
    pub fn parse(text: &str) -> Result<UsageDays, UsageDaysError> {
        if text.is_empty() || text.len() > 3 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(UsageDaysError);
        }
        text.parse()
            .map_err(|_| UsageDaysError)
            .and_then(UsageDays::new)
    }

    pub fn get(self) -> u32 {
        self.0
    }
}

/// Sums over a set of model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageTotals {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Sum over the priced calls.
    pub cost_micro_usd: u64,
    /// Calls whose model had no price (not in `cost_micro_usd`).
    pub unpriced_calls: u64,
}

impl UsageTotals {
    fn add(&mut self, b: &UsageBucket) {
        self.calls = self.calls.saturating_add(b.calls);
        self.input_tokens = self.input_tokens.saturating_add(b.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(b.output_tokens);
        self.cost_micro_usd = self.cost_micro_usd.saturating_add(b.cost_micro_usd);
        self.unpriced_calls = self.unpriced_calls.saturating_add(b.unpriced_calls);
    }

    /// The cost of the priced calls in USD; None ("no price") when there were calls and
    /// none of them had a price, so an unpriced model never shows as $0. With no calls: 0.
    pub fn cost_usd(&self) -> Option<f64> {
        let none_priced = self.calls > 0 && self.unpriced_calls >= self.calls;
        (!none_priced).then(|| self.cost_micro_usd as f64 / 1_000_000.0)
    }
}

/// One calendar day in the owner's time zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayUsage {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub totals: UsageTotals,
}

/// One `"provider:model"` over the whole window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelUsage {
    pub model: String,
    pub totals: UsageTotals,
}

/// The roll-up of a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageReport {
    /// The IANA zone the days are in.
    pub timezone: String,
    /// Every day of the window, oldest first, today last, days without calls included.
    pub days: Vec<DayUsage>,
    /// Every model used in the window, dearest first (then most tokens, then by name).
    pub by_model: Vec<ModelUsage>,
    pub total: UsageTotals,
}

/// The last `days` days up to `now_secs`, in `timezone` (an IANA name; None or a name
/// chrono-tz does not know: UTC, which the configuration's own rule makes unreachable).
pub async fn usage_report(
    store: &dyn UsageStore,
    now_secs: i64,
    timezone: Option<&str>,
    days: UsageDays,
) -> Result<UsageReport, StoreError> {
    let tz: Tz = timezone.and_then(|t| t.parse().ok()).unwrap_or(Tz::UTC);
    let day =
        |secs: i64| DateTime::from_timestamp(secs, 0).map(|t| t.with_timezone(&tz).date_naive());
    let today = day(now_secs).unwrap_or_default();
    let first = today
        .checked_sub_days(Days::new(u64::from(days.get() - 1)))
        .unwrap_or(today);
    // Generous on both sides (a local day is at most 26 hours away from UTC's); what falls
    // outside [first, today] is dropped below.
    let span = i64::from(days.get() + 2) * 86_400;
    let since = now_secs.saturating_sub(span).max(0);
    let since = since - since % USAGE_BUCKET_SECS;
    let until = now_secs.saturating_add(2 * 86_400);
    let buckets = store.usage_buckets(since, until).await?;
    Ok(roll_up(&buckets, tz, first, today, day))
}

fn roll_up(
    buckets: &[UsageBucket],
    tz: Tz,
    first: NaiveDate,
    today: NaiveDate,
    day: impl Fn(i64) -> Option<NaiveDate>,
) -> UsageReport {
    let mut per_day: BTreeMap<NaiveDate, UsageTotals> = BTreeMap::new();
    let mut per_model: BTreeMap<&str, UsageTotals> = BTreeMap::new();
    let mut total = UsageTotals::default();
    for b in buckets {
        let Some(date) = day(b.start_secs).filter(|d| (first..=today).contains(d)) else {
            continue;
        };
        per_day.entry(date).or_default().add(b);
        per_model.entry(&b.model).or_default().add(b);
        total.add(b);
    }
    let days = first
        .iter_days()
        .take_while(|d| *d <= today)
        .map(|d| DayUsage {
            date: d.format("%Y-%m-%d").to_string(),
            totals: per_day.get(&d).copied().unwrap_or_default(),
        })
        .collect();
    let mut by_model: Vec<ModelUsage> = per_model
        .into_iter()
        .map(|(model, totals)| ModelUsage {
            model: model.to_owned(),
            totals,
        })
        .collect();
    by_model.sort_by(|a, b| {
        let tokens = |m: &ModelUsage| m.totals.input_tokens.saturating_add(m.totals.output_tokens);
        b.totals
            .cost_micro_usd
            .cmp(&a.totals.cost_micro_usd)
            .then(tokens(b).cmp(&tokens(a)))
            .then(a.model.cmp(&b.model))
    });
    UsageReport {
        timezone: tz.name().to_owned(),
        days,
        by_model,
        total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_rule() {
        assert_eq!(UsageDays::parse("1").map(UsageDays::get), Ok(1));
        assert_eq!(UsageDays::parse("366").map(UsageDays::get), Ok(366));
        assert_eq!(UsageDays::parse("030").map(UsageDays::get), Ok(30));
        for bad in [
            "", "0", "367", "100000", "-1", "+5", " 5", "5 ", "1.5", "abc", "٣",
        ] {
            assert_eq!(UsageDays::parse(bad), Err(UsageDaysError), "{bad:?}");
        }
        assert_eq!(UsageDays::new(0), Err(UsageDaysError));
        assert_eq!(UsageDays::DEFAULT.get(), 30);
        assert!(!UsageDaysError.to_string().contains("abc"));
    }

    #[test]
    fn no_price_is_not_zero() {
        let none = UsageTotals::default();
        assert_eq!(none.cost_usd(), Some(0.0));
        let unpriced = UsageTotals {
            calls: 2,
            unpriced_calls: 2,
            ..UsageTotals::default()
        };
        assert_eq!(unpriced.cost_usd(), None);
        let mixed = UsageTotals {
            calls: 3,
            unpriced_calls: 2,
            cost_micro_usd: 1_500,
            ..UsageTotals::default()
        };
        assert_eq!(mixed.cost_usd(), Some(0.0015));
    }
}
