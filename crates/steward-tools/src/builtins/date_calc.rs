//! `date_calc`: the weekday of a date, the days between two dates, or the date N days
//! later. Calendar dates only (proleptic Gregorian); no time zones or clock.

use super::quoted;
use crate::args::str_arg;
use crate::{OutputTrust, Tool, ToolContext, ToolError};
use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value, json};
use steward_protocol::Effect;

/// About 2,700 years either way: ample for a personal assistant, far from chrono's limits.
const MAX_ADD_DAYS: i64 = 1_000_000;

pub struct DateCalc;

fn parse_date(name: &str, raw: &str) -> Result<NaiveDate, ToolError> {
    NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d").map_err(|_| {
        ToolError::InvalidArguments(format!(
            "argument `{name}` {} must be a real date written YYYY-MM-DD",
            quoted(raw)
        ))
    })
}

/// "2026-03-08 (Sunday)"
fn show(d: NaiveDate) -> String {
    format!("{} ({})", d.format("%Y-%m-%d"), d.format("%A"))
}

pub(crate) fn weekday_of(start: NaiveDate) -> String {
    format!(
        "{} is a {}, day {} of {}, ISO week {}",
        start.format("%Y-%m-%d"),
        start.format("%A"),
        start.ordinal(),
        start.year(),
        start.iso_week().week()
    )
}

pub(crate) fn days_between(start: NaiveDate, end: NaiveDate) -> String {
    let days = (end - start).num_days();
    let (weeks, rest) = (days.abs() / 7, days.abs() % 7);
    let note = if days < 0 {
        "; end is before start"
    } else {
        ""
    };
    format!(
        "{} to {}: {days} days ({weeks} weeks and {rest} days{note})",
        show(start),
        show(end)
    )
}

pub(crate) fn add_days(start: NaiveDate, days: i64) -> Result<String, ToolError> {
    let result = start
        .checked_add_signed(Duration::days(days))
        .ok_or_else(|| ToolError::InvalidArguments("the resulting date is out of range".into()))?;
    Ok(format!("{} + {days} days = {}", show(start), show(result)))
}

#[async_trait::async_trait]
impl Tool for DateCalc {
    fn name(&self) -> &str {
        "date_calc"
    }
    fn description(&self) -> &str {
        "Weekday of a date; with end: days between dates; with add_days: the date N days later."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "start": {"type": "string", "maxLength": 10, "description": "YYYY-MM-DD"},
                "end": {"type": "string", "maxLength": 10, "description": "YYYY-MM-DD"},
                "add_days": {"type": "integer", "minimum": -MAX_ADD_DAYS, "maximum": MAX_ADD_DAYS}
            },
            "required": ["start"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        if args.get("end").is_some() && args.get("add_days").is_some() {
            return Err(ToolError::InvalidArguments(
                "give either `end` or `add_days`, not both".into(),
            ));
        }
        Ok(())
    }
    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        self.validate(&args)?;
        let start = parse_date("start", str_arg(&args, "start")?)?;
        if let Some(end) = args.get("end").and_then(Value::as_str) {
            return Ok(days_between(start, parse_date("end", end)?));
        }
        match args.get("add_days").and_then(Value::as_f64) {
            // The schema allows 3.0 as an integer, so read it as f64; the range check
            // keeps the cast exact.
            Some(n) if n.fract() == 0.0 && n.abs() <= MAX_ADD_DAYS as f64 => {
                add_days(start, n as i64)
            }
            Some(_) => Err(ToolError::InvalidArguments(format!(
                "argument `add_days` must be an integer between -{MAX_ADD_DAYS} and {MAX_ADD_DAYS}"
            ))),
            None => Ok(weekday_of(start)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn computes_spans_offsets_and_weekdays() {
        assert_eq!(
            days_between(d("2026-01-01"), d("2026-03-08")),
            "2026-01-01 (Thursday) to 2026-03-08 (Sunday): 66 days (9 weeks and 3 days)"
        );
        // 2024 is a leap year: Feb 29 exists.
        assert_eq!(
            days_between(d("2024-03-01"), d("2024-02-28")),
            "2024-03-01 (Friday) to 2024-02-28 (Wednesday): -2 days (0 weeks and 2 days; end is before start)"
        );
        assert_eq!(
            add_days(d("2026-12-25"), 10).unwrap(),
            "2026-12-25 (Friday) + 10 days = 2027-01-04 (Monday)"
        );
        assert_eq!(
            weekday_of(d("2026-03-08")),
            "2026-03-08 is a Sunday, day 67 of 2026, ISO week 10"
        );
    }

    #[test]
    fn refuses_impossible_dates() {
        assert!(parse_date("start", "2026-02-30").is_err());
        assert!(parse_date("start", "08/03/2026").is_err());
        assert!(add_days(NaiveDate::MAX, 1).is_err());
    }
}
