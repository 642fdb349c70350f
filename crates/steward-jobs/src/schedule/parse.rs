//! Text to [`Schedule`]: the `FromStr` of the forms `mod.rs` documents. Owns the grammar of
//! `off`, `every`, `daily` and `weekly`, and the size limit. Does not own the cron grammar
//! (`cron.rs`, through croner) or the canonical printing (`Display` in `mod.rs`).

use std::str::FromStr;

use chrono::Weekday;

use super::error::quote;
use super::{CronExpr, Interval, MAX_INPUT_BYTES, Schedule, ScheduleError, TimeOfDay};

impl FromStr for Schedule {
    type Err = ScheduleError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.len() > MAX_INPUT_BYTES {
            return Err(ScheduleError::TooLong {
                len: text.len(),
                max: MAX_INPUT_BYTES,
            });
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some((keyword, args)) = words.split_first() else {
            return Ok(Schedule::Disabled);
        };
        match keyword.to_ascii_lowercase().as_str() {
            "off" if args.is_empty() => Ok(Schedule::Disabled),
            "off" => Err(arity("off", "nothing", text)),
            "every" => match args {
                [interval] => parse_interval(interval).map(Schedule::Every),
                _ => Err(arity("every", "one interval like 15m", text)),
            },
            "daily" => match args {
                [time] => parse_time(time).map(Schedule::Daily),
                _ => Err(arity("daily", "one time like 07:30", text)),
            },
            "weekly" => match args {
                [day, time] => Ok(Schedule::Weekly(parse_weekday(day)?, parse_time(time)?)),
                _ => Err(arity("weekly", "a weekday and a time like mon 08:00", text)),
            },
            "cron" => CronExpr::from_fields(args).map(Schedule::Cron),
            _ => Err(ScheduleError::UnknownForm { input: quote(text) }),
        }
    }
}

fn arity(form: &'static str, expected: &'static str, text: &str) -> ScheduleError {
    ScheduleError::WrongArity {
        form,
        expected,
        input: quote(text.trim()),
    }
}

/// `<digits><unit>`, unit s/m/h/d (any case), as whole minutes in range.
fn parse_interval(word: &str) -> Result<Interval, ScheduleError> {
    let bad = |reason| ScheduleError::BadInterval {
        input: quote(word),
        reason,
    };
    let split = word
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| bad("no unit"))?;
    let (digits, unit) = word.split_at(split);
    if digits.is_empty() {
        return Err(bad("no number"));
    }
    // Ten digits already exceed seven days in any unit; refusing longer keeps u64 safe.
    if digits.len() > 10 {
        return Err(bad("too large"));
    }
    let n: u64 = digits.parse().map_err(|_| bad("not a number"))?;
    let seconds_per_unit: u64 = match unit.to_ascii_lowercase().as_str() {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(bad("unknown unit")),
    };
    let seconds = n * seconds_per_unit;
    if !seconds.is_multiple_of(60) {
        return Err(bad("seconds must make whole minutes"));
    }
    let minutes = u32::try_from(seconds / 60).map_err(|_| bad("too large"))?;
    if minutes < Interval::MIN_MINUTES {
        return Err(bad("shorter than 1 minute"));
    }
    Interval::from_minutes(minutes).ok_or_else(|| bad("longer than 7 days"))
}

/// `HH:MM` or `H:MM`, ASCII digits only.
fn parse_time(word: &str) -> Result<TimeOfDay, ScheduleError> {
    let bad = |reason| ScheduleError::BadTime {
        input: quote(word),
        reason,
    };
    let (hour, minute) = word.split_once(':').ok_or_else(|| bad("no colon"))?;
    let digits = |s: &str, max_len: usize| {
        !s.is_empty() && s.len() <= max_len && s.bytes().all(|b| b.is_ascii_digit())
    };
    if !digits(hour, 2) || minute.len() != 2 || !digits(minute, 2) {
        return Err(bad("not HH:MM"));
    }
    let hour: u32 = hour.parse().map_err(|_| bad("not HH:MM"))?;
    let minute: u32 = minute.parse().map_err(|_| bad("not HH:MM"))?;
    if hour > 23 {
        return Err(bad("hour past 23"));
    }
    TimeOfDay::new(hour, minute).ok_or_else(|| bad("minute past 59"))
}

/// `mon`..`sun` or the full English name, any case.
fn parse_weekday(word: &str) -> Result<Weekday, ScheduleError> {
    let day = match word.to_ascii_lowercase().as_str() {
        "mon" | "monday" => Weekday::Mon,
        "tue" | "tuesday" => Weekday::Tue,
        "wed" | "wednesday" => Weekday::Wed,
        "thu" | "thursday" => Weekday::Thu,
        "fri" | "friday" => Weekday::Fri,
        "sat" | "saturday" => Weekday::Sat,
        "sun" | "sunday" => Weekday::Sun,
        _ => return Err(ScheduleError::BadWeekday { input: quote(word) }),
    };
    Ok(day)
}
