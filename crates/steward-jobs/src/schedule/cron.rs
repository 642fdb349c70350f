//! Cron expressions: the 5-field grammar (checked here, evaluated by croner) and their next
//! fire in a time zone. Owns which croner forms are accepted, the fixed-time/wildcard
//! classification and how each kind meets DST. Does not own the DST rule itself (`dst.rs`).
//!
//! # DST
//! As Vixie cron and cronie classify: a cron whose minute or hour field starts with `*`
//! (`*/15 * * * *`, `0 * * * *`) is a wildcard job; any other is a fixed-time job
//! (`30 2 * * *`, `0,30 9 * * 1-5`, `0 9-17 * * *`).
//! - A wildcard job fires at every instant whose local wall clock matches: the minutes of a
//!   gap do not exist and are not fired, and the repeated hour is fired twice, so
//!   `*/15 * * * *` fires every 15 real minutes through both transitions. This is croner's
//!   own behaviour for it (checked by the tests), so croner evaluates these in the zone.
//! - A fixed-time job follows `dst.rs`: once in a gap (at the gap's end), once in a repeated
//!   hour (the first occurrence). croner does this only when minute and hour are single
//!   values; for lists and ranges (`30 2,14 * * *`) it treats the job as wildcard. So here
//!   croner only says which wall-clock times match (on naive local time) and `dst.rs` turns
//!   them into instants.
//!
//! # Day of month and day of week
//! Vixie cron's rule: when both fields are restricted, a day matching either fires (OR,
//! croner's default); when either field starts with `*` (`*`, `*/2`), both must match (AND).
//! croner alone treats only an exact `*` as unrestricted, so `0 0 */2 * 1` would be "odd days
//! OR Mondays" there (and in croniter); here it is Vixie's "Mondays that are odd days" (croner's
//! AND mode is switched on for it). See the cron vector tests.

use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

use super::ScheduleError;
use super::dst::{MAX_JUMP, resolve_local};
use super::error::{QUOTE_CHARS, quote};

/// A validated 5-field cron expression. Equal when the canonical text (lowercase fields
/// separated by one space) is equal.
#[derive(Debug, Clone)]
pub struct CronExpr {
    text: String,
    // Boxed: croner's pattern is some 300 bytes, the other schedules a few.
    cron: Box<Cron>,
    fixed_time: bool,
}

impl PartialEq for CronExpr {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for CronExpr {}

impl fmt::Display for CronExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// More local times than a fixed-time cron can match between the look-back start and the
/// answer (a minute each over `MAX_JUMP` and a day): past it the search gives up.
const MAX_FIXED_STEPS: usize = 4 * 24 * 60;

impl CronExpr {
    /// The canonical text: five lowercase fields, one space apart.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether DST treats this as a fixed-time job (minute and hour not starting with `*`).
    pub fn is_fixed_time(&self) -> bool {
        self.fixed_time
    }

    /// The expression of five whitespace-separated `fields`.
    pub(crate) fn from_fields(fields: &[&str]) -> Result<CronExpr, ScheduleError> {
        let text = fields.join(" ").to_ascii_lowercase();
        let bad = |reason: &str| ScheduleError::BadCron {
            input: quote(&text),
            reason: reason.chars().take(2 * QUOTE_CHARS).collect(),
        };
        if fields.len() != 5 {
            let hint = match fields.len() {
                6 => "; a seconds field is not accepted (schedules work to the minute)",
                7 => "; seconds and year fields are not accepted",
                _ => "",
            };
            return Err(ScheduleError::CronFieldCount {
                count: fields.len(),
                hint,
            });
        }
        if !text.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
            return Err(bad(
                "only ASCII digits, names and * , - / ? L W # are allowed",
            ));
        }
        if text.contains('@') {
            return Err(bad(
                "@nicknames are not accepted; write 5 fields or use daily/weekly",
            ));
        }
        if text.contains('+') {
            return Err(bad(
                "croner's '+' (day-of-month AND day-of-week) is not standard cron",
            ));
        }
        let (dom, dow) = (fields[2], fields[4]);
        let stepped_star = |field: &str| field.starts_with('*') && field != "*";
        let cron = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            .dom_and_dow(stepped_star(dom) || stepped_star(dow))
            .build()
            .parse(&text)
            .map_err(|e| bad(&e.to_string()))?;
        // A pattern like `0 0 31 2 *` parses but never matches: refuse it now rather than
        // leave a job that silently never runs.
        let probe = NaiveDate::from_ymd_opt(2000, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .ok_or_else(|| bad("internal: no probe date"))?;
        if cron.find_next_occurrence(&probe, false).is_err() {
            return Err(bad("it never matches a real date"));
        }
        let fixed_time = !fields[0].starts_with('*') && !fields[1].starts_with('*');
        Ok(CronExpr {
            text,
            cron: Box::new(cron),
            fixed_time,
        })
    }

    /// The first fire strictly after `after` in `tz` (see the module's DST rules).
    pub(crate) fn next_after(&self, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
        if self.fixed_time {
            self.next_fixed(after, tz)
        } else {
            self.next_wildcard(after, tz)
        }
    }

    /// Wildcard: croner in the zone fires every instant whose wall clock matches.
    fn next_wildcard(&self, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
        let mut from = after.with_timezone(&tz);
        // croner answers strictly after `from` to the second; the loop only guards against
        // an answer at `after` itself when `after` carries a fraction of a second.
        for _ in 0..2 {
            let next = self.cron.find_next_occurrence(&from, false).ok()?;
            let next_utc = next.with_timezone(&Utc);
            if next_utc > after {
                return Some(next_utc);
            }
            from = next;
        }
        None
    }

    /// Fixed-time: walk the matching local times in order, from far enough back that none
    /// resolving after `after` is missed (a gap can move a local time earlier than `after`'s
    /// wall clock to an instant after it), and take the first that resolves after `after`.
    fn next_fixed(&self, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
        let local_after = after.with_timezone(&tz).naive_local();
        let mut local: NaiveDateTime = local_after.checked_sub_signed(MAX_JUMP)?;
        for _ in 0..MAX_FIXED_STEPS {
            local = self.cron.find_next_occurrence(&local, false).ok()?;
            let fire = resolve_local(local, tz)?;
            if fire > after {
                return Some(fire);
            }
        }
        None
    }
}
