//! Schedules: when a job fires. A [`Schedule`] is parsed from the text a person or a
//! configuration writes (`off`, `every 15m`, `daily 07:30`, `weekly mon 08:00`,
//! `cron 0 9 * * 1-5`), printed back in the same shape, and asked for its next fire time from
//! the wall clock ([`Schedule::next_fire`]) or for the fire times of a span
//! ([`Schedule::fires_between`], the occurrences missed while the machine was down).
//!
//! Owns: the schedule type, its text form, fire-time arithmetic with its DST rules (see
//! `dst`), and the occurrence key. Does not own: sleeping, leases, storage of occurrences,
//! retries (the scheduler loop and steward-store), the user's time zone setting (callers pass
//! a `chrono_tz::Tz`).
//!
//! # The forms
//! - `""` or `off`: [`Schedule::Disabled`], never fires. Disabled is a schedule, not an error.
//! - `every <n><unit>`, unit `s`, `m`, `h` or `d`: [`Schedule::Every`]. From 1 minute to 7
//!   days. Seconds are accepted only as a whole number of minutes (`every 90s` is refused,
//!   `every 120s` is `every 2m`): a personal assistant has no job that must run more often
//!   than once a minute, and the scheduler's granularity is the minute.
//! - `daily HH:MM` (or `H:MM`): [`Schedule::Daily`], local time in the caller's zone.
//! - `weekly <day> HH:MM`, day `mon`..`sun` (also full names, any case): [`Schedule::Weekly`].
//! - `cron <5 fields>`: [`Schedule::Cron`], standard minute/hour/day-of-month/month/
//!   day-of-week cron with croner's `L`, `#`, `W`, `?`, ranges, steps, lists and names. A
//!   6-field form (seconds) is refused, and so are croner's non-standard `@nicknames` and
//!   `+` (AND) day-of-week modifier: one obvious way to write each schedule.
//!
//! Keywords are case-insensitive and runs of whitespace count as one. [`Display`] prints the
//! canonical form, so `parse(display(s)) == s`. Input over [`MAX_INPUT_BYTES`] is refused
//! before it is looked at.
//!
//! # The occurrence key
//! [`occurrence_key`] names one fire of one job as `<job>@<unix seconds>`, for example
//! `briefing@1764745200`. Fire times are computed from the wall clock alone, so two processes
//! (or one before and after a restart) computing the same fire get the same key: a store can
//! refuse the second run of an occurrence by that key.

mod cron;
mod dst;
mod error;
mod next;
mod parse;

use std::fmt;

use chrono::{DateTime, Utc, Weekday};

pub use cron::CronExpr;
pub use error::ScheduleError;

/// Schedule text longer than this is refused unread (the longest sane cron is far shorter).
pub const MAX_INPUT_BYTES: usize = 256;

/// When a job fires. Parse it with [`str::parse`]; print it with [`Display`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schedule {
    /// Never fires (`""` or `off`).
    Disabled,
    /// Every interval, at the multiples of it since the Unix epoch (UTC).
    Every(Interval),
    /// Every day at a local time.
    Daily(TimeOfDay),
    /// Every week on a weekday at a local time.
    Weekly(Weekday, TimeOfDay),
    /// A 5-field cron expression evaluated in the local time zone.
    Cron(CronExpr),
}

impl Schedule {
    /// Whether this schedule never fires.
    pub fn is_disabled(&self) -> bool {
        matches!(self, Schedule::Disabled)
    }
}

/// A whole number of minutes from [`Interval::MIN_MINUTES`] to [`Interval::MAX_MINUTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Interval {
    minutes: u32,
}

impl Interval {
    /// One minute: the scheduler's granularity.
    pub const MIN_MINUTES: u32 = 1;
    /// Seven days: anything rarer is a weekly or cron schedule.
    pub const MAX_MINUTES: u32 = 7 * 24 * 60;

    /// The interval of `minutes`, or `None` outside 1 minute..=7 days.
    pub fn from_minutes(minutes: u32) -> Option<Interval> {
        (Self::MIN_MINUTES..=Self::MAX_MINUTES)
            .contains(&minutes)
            .then_some(Interval { minutes })
    }

    /// The length in minutes.
    pub fn minutes(self) -> u32 {
        self.minutes
    }

    /// The length in seconds.
    pub fn seconds(self) -> i64 {
        i64::from(self.minutes) * 60
    }
}

impl fmt::Display for Interval {
    /// The largest unit that divides the interval: `1d`, `36h`, `90m`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.minutes;
        if m.is_multiple_of(24 * 60) {
            write!(f, "{}d", m / (24 * 60))
        } else if m.is_multiple_of(60) {
            write!(f, "{}h", m / 60)
        } else {
            write!(f, "{m}m")
        }
    }
}

/// A local wall-clock time to the minute (a schedule has no seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeOfDay {
    hour: u8,
    minute: u8,
}

impl TimeOfDay {
    /// `hour:minute`, or `None` unless hour < 24 and minute < 60.
    pub fn new(hour: u32, minute: u32) -> Option<TimeOfDay> {
        if hour >= 24 || minute >= 60 {
            return None;
        }
        Some(TimeOfDay {
            hour: u8::try_from(hour).ok()?,
            minute: u8::try_from(minute).ok()?,
        })
    }

    /// The hour, 0..=23.
    pub fn hour(self) -> u32 {
        u32::from(self.hour)
    }

    /// The minute, 0..=59.
    pub fn minute(self) -> u32 {
        u32::from(self.minute)
    }

    pub(crate) fn to_naive(self) -> chrono::NaiveTime {
        // hour < 24 and minute < 60 by construction, so this always exists; MIN is unreachable.
        chrono::NaiveTime::from_hms_opt(self.hour(), self.minute(), 0)
            .unwrap_or(chrono::NaiveTime::MIN)
    }
}

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

/// The three-letter lowercase name the text form uses for a weekday.
pub(crate) fn weekday_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "mon",
        Weekday::Tue => "tue",
        Weekday::Wed => "wed",
        Weekday::Thu => "thu",
        Weekday::Fri => "fri",
        Weekday::Sat => "sat",
        Weekday::Sun => "sun",
    }
}

impl fmt::Display for Schedule {
    /// The canonical text form; parsing it gives back an equal schedule.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Disabled => f.write_str("off"),
            Schedule::Every(interval) => write!(f, "every {interval}"),
            Schedule::Daily(time) => write!(f, "daily {time}"),
            Schedule::Weekly(day, time) => write!(f, "weekly {} {time}", weekday_name(*day)),
            Schedule::Cron(expr) => write!(f, "cron {expr}"),
        }
    }
}

impl serde::Serialize for Schedule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Schedule {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The key of one fire of one job: `<job>@<unix seconds of the fire>`, e.g.
/// `briefing@1764745200`.
///
/// Stable across restarts and processes because fire times come from the wall clock alone
/// (never "last fire + interval"). Sub-second parts are dropped (fire times are whole
/// seconds). A job name may itself hold `@`: the key's time is after the last `@`.
pub fn occurrence_key(job: &str, fire: DateTime<Utc>) -> String {
    format!("{job}@{}", fire.timestamp())
}
