//! The words of a time phrase, read into what they name (`Parsed`): an optional relative
//! amount, day and time of day. No calendar here: `calendar` places it.
//!
//! Owns: the vocabulary and its combinations. Does not own: what "tomorrow" is in a zone.

use chrono::{NaiveDate, Weekday};

use super::{HINT, Unresolved};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Minutes,
    Hours,
    Days,
    Weeks,
    Months,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Day {
    Today,
    Tonight,
    /// Today + n days.
    Plus(u32),
    /// The next such weekday after today; `this` allows today.
    Weekday {
        day: Weekday,
        this: bool,
    },
    /// Day and month, with a year when one was given.
    Date {
        month: u32,
        day: u32,
        year: Option<i32>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimeOfDay {
    At {
        hour: u32,
        minute: u32,
    },
    /// 00:00 at the end of the day.
    Midnight,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Parsed {
    pub relative: Option<(u32, Unit)>,
    pub day: Option<Day>,
    pub time: Option<TimeOfDay>,
}

fn not_understood() -> Unresolved {
    Unresolved::NotUnderstood {
        hint: HINT.to_owned(),
    }
}

fn ask(question: impl Into<String>) -> Unresolved {
    Unresolved::Ambiguous {
        question: question.into(),
    }
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" | "mon" => Weekday::Mon,
        "tuesday" | "tue" | "tues" => Weekday::Tue,
        "wednesday" | "wed" => Weekday::Wed,
        "thursday" | "thu" | "thur" | "thurs" => Weekday::Thu,
        "friday" | "fri" => Weekday::Fri,
        "saturday" | "sat" => Weekday::Sat,
        "sunday" | "sun" => Weekday::Sun,
        _ => return None,
    })
}

fn month(word: &str) -> Option<u32> {
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    // The full name, or a prefix of at least three letters ("dec", "sept").
    NAMES
        .iter()
        .position(|m| *m == word || (word.len() >= 3 && m.starts_with(word)))
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// `12`, `12th`, `1st`, `2nd`, `3rd` as a day of the month.
fn ordinal(word: &str) -> Option<u32> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| word.strip_suffix(s))
        .unwrap_or(word);
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A four-digit year.
fn year(word: Option<&&str>) -> Option<i32> {
    word.filter(|y| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|y| y.parse().ok())
}

fn unit(word: &str) -> Option<Unit> {
    Some(match word {
        "minute" | "minutes" | "min" | "mins" | "m" => Unit::Minutes,
        "hour" | "hours" | "h" | "hr" | "hrs" => Unit::Hours,
        "day" | "days" | "d" => Unit::Days,
        "week" | "weeks" | "wk" | "wks" | "w" => Unit::Weeks,
        "month" | "months" => Unit::Months,
        _ => return None,
    })
}

fn number(word: &str) -> Option<u32> {
    match word {
        "a" | "an" | "one" => Some(1),
        "two" => Some(2),
        "three" => Some(3),
        _ if !word.is_empty() && word.len() <= 4 && word.bytes().all(|b| b.is_ascii_digit()) => {
            word.parse().ok()
        }
        _ => None,
    }
}

/// A clock time: `17:00`, `9`, `9am`, `9:30pm`, `noon`, `midnight`; `meridiem` is the word
/// after it when that is `am` / `pm`.
fn clock_time(word: &str, meridiem: Option<&str>) -> Option<(TimeOfDay, bool)> {
    match word {
        "noon" | "midday" => {
            return Some((
                TimeOfDay::At {
                    hour: 12,
                    minute: 0,
                },
                false,
            ));
        }
        "midnight" => return Some((TimeOfDay::Midnight, false)),
        _ => {}
    }
    let (body, suffix) = if let Some(b) = word.strip_suffix("am") {
        (b, Some("am"))
    } else if let Some(b) = word.strip_suffix("pm") {
        (b, Some("pm"))
    } else {
        (word, None)
    };
    let (suffix, used_next) = match (suffix, meridiem) {
        (Some(s), _) => (Some(s), false),
        (None, Some(m @ ("am" | "pm"))) => (Some(m), true),
        _ => (None, false),
    };
    let (h, m) = match body.split_once([':', '.']) {
        Some((h, m)) if m.len() == 2 => (h, m),
        Some(_) => return None,
        None => (body, "00"),
    };
    if h.is_empty()
        || h.len() > 2
        || !h.bytes().all(|b| b.is_ascii_digit())
        || !m.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let (mut hour, minute): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    if minute > 59 {
        return None;
    }
    match suffix {
        Some(s) => {
            if !(1..=12).contains(&hour) {
                return None;
            }
            hour %= 12;
            if s == "pm" {
                hour += 12;
            }
        }
        None if hour > 23 => return None,
        None => {}
    }
    Some((TimeOfDay::At { hour, minute }, used_next))
}

/// `2026-12-24`, or `d/m` / `m/d` (asked back when both could be the month).
fn numeric_date(word: &str) -> Result<Option<Day>, Unresolved> {
    if let Ok(d) = NaiveDate::parse_from_str(word, "%Y-%m-%d") {
        use chrono::Datelike;
        return Ok(Some(Day::Date {
            month: d.month(),
            day: d.day(),
            year: Some(d.year()),
        }));
    }
    let Some((a, b)) = word.split_once(['/', '.']) else {
        return Ok(None);
    };
    let (Some(a), Some(b)) = (number(a), number(b)) else {
        return Ok(None);
    };
    match (a, b) {
        (a, b) if a <= 12 && b <= 12 && a != b && a > 0 && b > 0 => Err(ask(format!(
            "“{word}” could be {} or {}: which one?",
            name_of(a, b),
            name_of(b, a)
        ))),
        (d, m) if (1..=31).contains(&d) && (1..=12).contains(&m) => Ok(Some(Day::Date {
            month: m,
            day: d,
            year: None,
        })),
        (m, d) if (1..=31).contains(&d) && (1..=12).contains(&m) => Ok(Some(Day::Date {
            month: m,
            day: d,
            year: None,
        })),
        _ => Err(not_understood()),
    }
}

fn name_of(day: u32, month: u32) -> String {
    const NAMES: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let m = usize::try_from(month).unwrap_or(1).clamp(1, 12) - 1;
    format!("{day} {}", NAMES[m])
}

const VAGUE: &[&str] = &[
    "soon",
    "later",
    "sometime",
    "someday",
    "or",
    "eventually",
    "around",
    "about",
    "ish",
    "-ish",
    "maybe",
];

/// The words of `phrase`, read.
pub(super) fn parse(phrase: &str) -> Result<Parsed, Unresolved> {
    let cleaned: String = phrase
        .to_lowercase()
        .chars()
        .map(|c| {
            if c == ',' || c == '!' || c == '?' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let words: Vec<&str> = cleaned
        .split_whitespace()
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return Err(not_understood());
    }
    if let Some(v) = words.iter().find(|w| VAGUE.contains(w)) {
        return Err(ask(format!("“{v}” is not a time: when exactly?")));
    }
    let mut p = Parsed::default();
    let mut i = 0;
    let set_day = |p: &mut Parsed, d: Day| -> Result<(), Unresolved> {
        if p.day.is_some()
            || p.relative
                .is_some_and(|(_, u)| !matches!(u, Unit::Minutes | Unit::Hours))
        {
            return Err(ask("two days are named: which one?"));
        }
        p.day = Some(d);
        Ok(())
    };
    while i < words.len() {
        let w = words[i];
        let next = words.get(i + 1).copied();
        match w {
            "at" | "on" | "by" | "the" | "of" => i += 1,
            "in" => {
                if p.relative.is_some() {
                    return Err(not_understood());
                }
                let (n, u, used) = match (
                    next.and_then(number),
                    words.get(i + 2).copied().and_then(unit),
                ) {
                    (Some(n), Some(u)) => (n, u, 3),
                    _ => {
                        // "in 20min", "in 2h"
                        let joined = next.unwrap_or("");
                        let split = joined
                            .find(|c: char| !c.is_ascii_digit())
                            .unwrap_or(joined.len());
                        match (number(&joined[..split]), unit(&joined[split..])) {
                            (Some(n), Some(u)) if split > 0 => (n, u, 2),
                            _ => return Err(not_understood()),
                        }
                    }
                };
                if n == 0 {
                    return Err(not_understood());
                }
                if p.day.is_some() && !matches!(u, Unit::Minutes | Unit::Hours) {
                    return Err(ask("two days are named: which one?"));
                }
                p.relative = Some((n, u));
                i += used;
            }
            "today" => {
                set_day(&mut p, Day::Today)?;
                i += 1;
            }
            "tonight" => {
                set_day(&mut p, Day::Tonight)?;
                i += 1;
            }
            "tomorrow" | "tmrw" => {
                set_day(&mut p, Day::Plus(1))?;
                i += 1;
            }
            "day" if next == Some("after") && words.get(i + 2) == Some(&"tomorrow") => {
                set_day(&mut p, Day::Plus(2))?;
                i += 3;
            }
            "next" | "this" | "coming" => {
                let Some(day) = next.and_then(weekday) else {
                    return Err(ask(format!(
                        "“{w} {}” is not a day: which day exactly?",
                        next.unwrap_or("")
                    )));
                };
                set_day(
                    &mut p,
                    Day::Weekday {
                        day,
                        this: w == "this",
                    },
                )?;
                i += 2;
            }
            _ if weekday(w).is_some() => {
                if let Some(day) = weekday(w) {
                    set_day(&mut p, Day::Weekday { day, this: false })?;
                }
                i += 1;
            }
            _ if month(w).is_some() => {
                // "march 12", "march 12th 2027"
                let m = month(w).unwrap_or(1);
                let d = next.and_then(ordinal).ok_or_else(not_understood)?;
                let y = year(words.get(i + 2));
                set_day(
                    &mut p,
                    Day::Date {
                        month: m,
                        day: d,
                        year: y,
                    },
                )?;
                i += if y.is_some() { 3 } else { 2 };
            }
            _ if ordinal(w).is_some()
                && (next.and_then(month).is_some()
                    || (next == Some("of")
                        && words.get(i + 2).copied().and_then(month).is_some())) =>
            {
                // "12 march", "12th of march", "24 december 2026"
                let d = ordinal(w).unwrap_or(0);
                let at = if next == Some("of") { i + 2 } else { i + 1 };
                let m = words.get(at).copied().and_then(month).unwrap_or(1);
                let y = year(words.get(at + 1));
                set_day(
                    &mut p,
                    Day::Date {
                        month: m,
                        day: d,
                        year: y,
                    },
                )?;
                i = at + if y.is_some() { 2 } else { 1 };
            }
            _ => {
                if let Some(day) = numeric_date(w)? {
                    set_day(&mut p, day)?;
                    i += 1;
                    continue;
                }
                let Some((time, used_next)) = clock_time(w, next) else {
                    return Err(not_understood());
                };
                if p.time.is_some() {
                    return Err(ask("two times are named: which one?"));
                }
                p.time = Some(time);
                i += if used_next { 2 } else { 1 };
            }
        }
    }
    if p.relative
        .is_some_and(|(_, u)| matches!(u, Unit::Minutes | Unit::Hours))
        && (p.day.is_some() || p.time.is_some())
    {
        return Err(ask(
            "a number of minutes or hours and a clock time are both named: which one?",
        ));
    }
    if p == Parsed::default() {
        return Err(not_understood());
    }
    Ok(p)
}
