//! Placing what a phrase named on the calendar of a time zone: the day and time it means
//! from now, local time turned into an instant (a DST gap moved past, a repeated hour taken
//! at its first occurrence), and the text the confirmation shows.
//!
//! Owns: that arithmetic and the shown format. Does not own: the words (`grammar`).

use chrono::{
    DateTime, Datelike, Days, LocalResult, Months, NaiveDate, NaiveDateTime, NaiveTime, TimeZone,
    Timelike, Utc,
};
use chrono_tz::Tz;

use super::grammar::{Day, Parsed, TimeOfDay, Unit};
use super::{Resolved, Unresolved};

/// A day named without a time is at this hour.
const DEFAULT_HOUR: u32 = 9;
/// "tonight" without a time.
const TONIGHT_HOUR: u32 = 20;
/// The furthest ahead a phrase may reach.
const MAX_AHEAD_DAYS: i64 = 5 * 366;

fn hm(hour: u32, minute: u32) -> NaiveTime {
    NaiveTime::from_hms_opt(hour, minute, 0).unwrap_or(NaiveTime::MIN)
}

fn no_such_date() -> Unresolved {
    Unresolved::NotUnderstood {
        hint: "there is no such date".to_owned(),
    }
}

/// The instant a local date and time is in `tz`: a time in a DST gap moves to the first
/// minute after it; a repeated time is its first occurrence.
fn instant(tz: Tz, local: NaiveDateTime) -> Option<DateTime<Utc>> {
    let mut at = local;
    for _ in 0..=240 {
        match tz.from_local_datetime(&at) {
            LocalResult::Single(t) => return Some(t.with_timezone(&Utc)),
            LocalResult::Ambiguous(first, _) => return Some(first.with_timezone(&Utc)),
            LocalResult::None => at += chrono::Duration::minutes(1),
        }
    }
    None
}

/// "Friday 11 December 2026 at 09:00 (Europe/Berlin)".
pub(super) fn shown(at: DateTime<Utc>, tz: Tz) -> String {
    let local = at.with_timezone(&tz);
    format!("{} ({})", local.format("%A %-d %B %Y at %H:%M"), tz.name())
}

fn add(date: NaiveDate, n: u32, unit: Unit) -> Option<NaiveDate> {
    match unit {
        Unit::Days => date.checked_add_days(Days::new(u64::from(n))),
        Unit::Weeks => date.checked_add_days(Days::new(u64::from(n) * 7)),
        // chrono clamps to the month's last day.
        Unit::Months => date.checked_add_months(Months::new(n)),
        Unit::Minutes | Unit::Hours => Some(date),
    }
}

/// The clock time named (or the default), and whether it is the end-of-day midnight.
fn clock(time: Option<TimeOfDay>, default: NaiveTime, pm_if_small: bool) -> (NaiveTime, bool) {
    match time {
        Some(TimeOfDay::Midnight) => (NaiveTime::MIN, true),
        Some(TimeOfDay::At { hour, minute }) if pm_if_small && hour < 12 => {
            (hm(hour + 12, minute), false)
        }
        Some(TimeOfDay::At { hour, minute }) => (hm(hour, minute), false),
        None => (default, false),
    }
}

fn at_local(
    tz: Tz,
    date: NaiveDate,
    time: NaiveTime,
    end_of_day: bool,
) -> Result<DateTime<Utc>, Unresolved> {
    let date = if end_of_day {
        date.checked_add_days(Days::new(1))
            .ok_or_else(no_such_date)?
    } else {
        date
    };
    instant(tz, date.and_time(time)).ok_or_else(no_such_date)
}

fn finish(at: DateTime<Utc>, now: DateTime<Utc>, tz: Tz) -> Result<Resolved, Unresolved> {
    if at <= now {
        return Err(Unresolved::InThePast {
            shown: shown(at, tz),
        });
    }
    if at - now > chrono::Duration::days(MAX_AHEAD_DAYS) {
        return Err(Unresolved::TooFar);
    }
    Ok(Resolved {
        at,
        shown: shown(at, tz),
    })
}

pub(super) fn place(p: &Parsed, now: DateTime<Utc>, tz: Tz) -> Result<Resolved, Unresolved> {
    let local_now = now.with_timezone(&tz).naive_local();
    let today = local_now.date();
    let nine = hm(DEFAULT_HOUR, 0);
    if let Some((n, unit @ (Unit::Minutes | Unit::Hours))) = p.relative {
        let minutes = i64::from(n) * if unit == Unit::Hours { 60 } else { 1 };
        return finish(now + chrono::Duration::minutes(minutes), now, tz);
    }
    let at = match (p.relative, p.day) {
        (Some((n, unit)), _) => {
            let date = add(today, n, unit).ok_or(Unresolved::TooFar)?;
            // The local time of day kept (to the minute), or the one given.
            let keep = hm(local_now.hour(), local_now.minute());
            let (time, end) = clock(p.time, keep, false);
            at_local(tz, date, time, end)?
        }
        (None, None) => {
            // Only a time: its next occurrence.
            let (time, end) = clock(p.time, nine, false);
            let first = at_local(tz, today, time, end)?;
            if first > now {
                first
            } else {
                at_local(
                    tz,
                    today
                        .checked_add_days(Days::new(1))
                        .ok_or_else(no_such_date)?,
                    time,
                    end,
                )?
            }
        }
        (None, Some(Day::Today)) => {
            let (time, end) = clock(p.time, nine, false);
            at_local(tz, today, time, end)?
        }
        (None, Some(Day::Tonight)) => {
            let (time, end) = clock(p.time, hm(TONIGHT_HOUR, 0), true);
            at_local(tz, today, time, end)?
        }
        (None, Some(Day::Plus(n))) => {
            let (time, end) = clock(p.time, nine, false);
            let date = today
                .checked_add_days(Days::new(u64::from(n)))
                .ok_or_else(no_such_date)?;
            at_local(tz, date, time, end)?
        }
        (None, Some(Day::Weekday { day, this })) => {
            let ahead =
                (7 + day.num_days_from_monday() - today.weekday().num_days_from_monday()) % 7;
            let ahead = if ahead == 0 && !this { 7 } else { ahead };
            let (time, end) = clock(p.time, nine, false);
            let date = today
                .checked_add_days(Days::new(u64::from(ahead)))
                .ok_or_else(no_such_date)?;
            at_local(tz, date, time, end)?
        }
        (None, Some(Day::Date { month, day, year })) => {
            let (time, end) = clock(p.time, nine, false);
            match year {
                Some(y) => {
                    let date = NaiveDate::from_ymd_opt(y, month, day).ok_or_else(no_such_date)?;
                    at_local(tz, date, time, end)?
                }
                None => {
                    // This year's, else the next year that has it (29 February).
                    let mut found = None;
                    for y in today.year()..=today.year() + 8 {
                        if let Some(date) = NaiveDate::from_ymd_opt(y, month, day) {
                            let at = at_local(tz, date, time, end)?;
                            if at > now {
                                found = Some(at);
                                break;
                            }
                        }
                    }
                    found.ok_or_else(no_such_date)?
                }
            }
        }
    };
    finish(at, now, tz)
}
