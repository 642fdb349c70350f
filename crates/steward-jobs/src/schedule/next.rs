//! Fire times: [`Schedule::next_fire`] and [`Schedule::fires_between`]. Owns the arithmetic
//! of `every` (epoch-anchored), `daily` and `weekly` (local dates through `dst.rs`). Does not
//! own cron evaluation (`cron.rs`) or the DST rule (`dst.rs`).
//!
//! Stateless: each answer comes from the clock and the schedule alone, never from the last
//! fire, so a restart or a second process computes the same times.

use chrono::{DateTime, Datelike, Days, TimeZone, Utc, Weekday};
use chrono_tz::Tz;

use super::dst::resolve_local;
use super::{Interval, Schedule, TimeOfDay};

impl Schedule {
    /// The first fire time strictly after `after`, in `tz` for local-time schedules; `None`
    /// when disabled (or, for a cron, past the year 5000).
    ///
    /// `every` fires at the multiples of its interval since 1970-01-01T00:00Z, whatever the
    /// zone (so `every 1h` fires on the UTC hour, by the real clock through DST). `daily`,
    /// `weekly` and cron follow the DST rules of `dst.rs` and `cron.rs`.
    pub fn next_fire(&self, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
        match self {
            Schedule::Disabled => None,
            Schedule::Every(interval) => next_every(*interval, after),
            Schedule::Daily(time) => next_local(after, tz, *time, None),
            Schedule::Weekly(day, time) => next_local(after, tz, *time, Some(*day)),
            Schedule::Cron(expr) => expr.next_after(after, tz),
        }
    }

    /// The fire times in `(from, to]`, in order, at most `limit` of them: the occurrences
    /// missed while the machine was down, when `from` is the last time it looked.
    pub fn fires_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        tz: Tz,
        limit: usize,
    ) -> Vec<DateTime<Utc>> {
        let mut fires = Vec::new();
        let mut cursor = from;
        while fires.len() < limit {
            match self.next_fire(cursor, tz) {
                Some(fire) if fire <= to => {
                    fires.push(fire);
                    cursor = fire;
                }
                _ => break,
            }
        }
        fires
    }
}

/// The next multiple of the interval (in seconds since the epoch) strictly after `after`.
fn next_every(interval: Interval, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let step = interval.seconds();
    // Flooring drops `after`'s fraction of a second, so the next multiple is always later.
    let next = after
        .timestamp()
        .div_euclid(step)
        .checked_add(1)?
        .checked_mul(step)?;
    Utc.timestamp_opt(next, 0).single()
}

/// The first `time` (on `weekday`, if given) whose instant is after `after`. Local dates are
/// tried in order from the day before `after`'s local date: the instants of a local time on
/// successive dates never go backwards, so the first one after `after` is the answer. The
/// day before covers a gap that moved yesterday's time past `after`; eight days ahead covers
/// a week and a skipped date.
fn next_local(
    after: DateTime<Utc>,
    tz: Tz,
    time: TimeOfDay,
    weekday: Option<Weekday>,
) -> Option<DateTime<Utc>> {
    let today = after.with_timezone(&tz).date_naive();
    let first = today.checked_sub_days(Days::new(1))?;
    first
        .iter_days()
        .take(10)
        .filter(|date| weekday.is_none_or(|day| date.weekday() == day))
        .filter_map(|date| resolve_local(date.and_time(time.to_naive()), tz))
        .find(|fire| *fire > after)
}
