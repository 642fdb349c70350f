//! `current_time` and `convert_time`, plus time-zone lookup shared with other builtins.
//! Owns: IANA zone parsing and DST gap/overlap reporting. Does not own the clock: `current_time`
//! reads the `Clock` it was built with (the app's; a test's `ManualClock`).

use super::quoted;
use crate::args::{opt_str_arg, str_arg};
use crate::{OutputTrust, Tool, ToolContext, ToolError};
use chrono::{DateTime, LocalResult, NaiveDateTime, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_protocol::{Clock, Effect};

const ZONE_HINT: &str = "use an IANA name like Europe/Paris or America/New_York";
const NAIVE_FORMATS: &[&str] = &[
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%dT%H:%M:%S",
];

/// Look up an IANA zone, forgiving letter case ("europe/paris") and the common UTC
/// spellings, since models are sloppy about both.
pub(crate) fn parse_zone(name: &str) -> Result<Tz, ToolError> {
    let name = name.trim();
    if let Ok(tz) = name.parse::<Tz>() {
        return Ok(tz);
    }
    if ["utc", "gmt", "z"]
        .iter()
        .any(|u| name.eq_ignore_ascii_case(u))
    {
        return Ok(Tz::UTC);
    }
    chrono_tz::TZ_VARIANTS
        .iter()
        .find(|tz| tz.name().eq_ignore_ascii_case(name))
        .copied()
        .ok_or_else(|| {
            ToolError::InvalidArguments(format!("unknown time zone {}; {ZONE_HINT}", quoted(name)))
        })
}

/// The zone from `explicit`, else the owner's default from the context, else UTC.
pub(crate) fn zone_or_default(explicit: Option<&str>, ctx: &ToolContext) -> Result<Tz, ToolError> {
    match (explicit, ctx.timezone.as_deref()) {
        (Some(name), _) => parse_zone(name),
        (None, Some(default)) => parse_zone(default).map_err(|_| {
            ToolError::Failed(format!(
                "the owner's default time zone {} is not valid; pass a time zone explicitly",
                quoted(default)
            ))
        }),
        (None, None) => Ok(Tz::UTC),
    }
}

/// "2026-03-08T03:30:00-04:00 (Sunday, America/New_York, EDT)"
pub(crate) fn describe(dt: &DateTime<Tz>) -> String {
    format!(
        "{} ({}, {}, {})",
        dt.to_rfc3339_opts(SecondsFormat::Secs, false),
        dt.format("%A"),
        dt.timezone().name(),
        dt.format("%Z")
    )
}

/// `current_time`: now, by `clock`, in a time zone.
pub struct CurrentTime {
    clock: Arc<dyn Clock>,
}

impl CurrentTime {
    pub fn new(clock: Arc<dyn Clock>) -> CurrentTime {
        CurrentTime { clock }
    }

    /// The clock's reading as a UTC date-time (a reading outside chrono's range, which no
    /// working clock gives, counts as the epoch).
    fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.clock.now_ms()).unwrap_or_default()
    }
}

/// The `current_time` answer for a given instant.
pub(crate) fn current_time_at(now: DateTime<Utc>, tz: Tz) -> String {
    format!(
        "{}, unix {}",
        describe(&now.with_timezone(&tz)),
        now.timestamp()
    )
}

#[async_trait::async_trait]
impl Tool for CurrentTime {
    fn name(&self) -> &str {
        "current_time"
    }
    fn description(&self) -> &str {
        "Current date, time and weekday in a time zone (default: the user's)."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"timezone": {"type": "string", "maxLength": 64, "description": "IANA name, e.g. Europe/Paris"}},
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let tz = zone_or_default(opt_str_arg(&args, "timezone"), ctx)?;
        Ok(current_time_at(self.now(), tz))
    }
}

pub struct ConvertTime;

enum Source {
    /// RFC 3339 input: the instant is fixed by its own offset.
    Instant(DateTime<Utc>),
    /// A wall-clock time to interpret in `from_timezone`.
    Local(NaiveDateTime),
}

fn parse_time(raw: &str) -> Result<Source, ToolError> {
    let raw = raw.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(raw) {
        return Ok(Source::Instant(dt.with_timezone(&Utc)));
    }
    NAIVE_FORMATS
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(raw, f).ok())
        .map(Source::Local)
        .ok_or_else(|| {
            ToolError::InvalidArguments(format!(
                "argument `time` {} must look like 2026-03-08 14:30 or 2026-03-08T14:30:00+01:00",
                quoted(raw)
            ))
        })
}

/// Convert `time` from `from` to `to`, reporting DST gaps (error) and overlaps (both
/// readings) in words the model can relay.
pub(crate) fn convert(raw_time: &str, from: Tz, to: Tz) -> Result<String, ToolError> {
    let local = match parse_time(raw_time)? {
        Source::Instant(instant) => {
            let source = instant.with_timezone(&from);
            return Ok(line(&source, to));
        }
        Source::Local(local) => local,
    };
    let shown = local.format("%Y-%m-%d %H:%M:%S");
    match from.from_local_datetime(&local) {
        LocalResult::Single(source) => Ok(line(&source, to)),
        LocalResult::None => Err(ToolError::InvalidArguments(format!(
            "{shown} does not exist in {}: clocks jump forward over it (daylight saving time \
             starts); pick a time outside the gap, e.g. one hour later",
            from.name()
        ))),
        LocalResult::Ambiguous(earlier, later) => Ok(format!(
            "{shown} is ambiguous in {}: clocks go back, so it happens twice.\n\
             earlier: {}\nlater: {}",
            from.name(),
            line(&earlier, to),
            line(&later, to)
        )),
    }
}

fn line(source: &DateTime<Tz>, to: Tz) -> String {
    format!(
        "{} = {}",
        describe(source),
        describe(&source.with_timezone(&to))
    )
}

#[async_trait::async_trait]
impl Tool for ConvertTime {
    fn name(&self) -> &str {
        "convert_time"
    }
    fn description(&self) -> &str {
        "Convert a date-time between IANA time zones; flags DST gaps and ambiguous times."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "time": {"type": "string", "maxLength": 40, "description": "YYYY-MM-DD HH:MM or RFC 3339"},
                "from_timezone": {"type": "string", "maxLength": 64, "description": "default: the user's"},
                "to_timezone": {"type": "string", "maxLength": 64}
            },
            "required": ["time", "to_timezone"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let from = zone_or_default(opt_str_arg(&args, "from_timezone"), ctx)?;
        let to = parse_zone(str_arg(&args, "to_timezone")?)?;
        convert(str_arg(&args, "time")?, from, to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_lookup_is_forgiving_but_strict_about_unknowns() {
        assert_eq!(parse_zone("Europe/Paris").ok(), Some(Tz::Europe__Paris));
        assert_eq!(parse_zone("europe/paris").ok(), Some(Tz::Europe__Paris));
        assert_eq!(parse_zone(" utc ").ok(), Some(Tz::UTC));
        let err = parse_zone("Mars/Olympus").unwrap_err().to_string();
        assert!(
            err.contains("Mars/Olympus") && err.contains("Europe/Paris"),
            "{err}"
        );
    }

    #[test]
    fn current_time_reports_offset_weekday_zone_and_unix() {
        let now = Utc.with_ymd_and_hms(2026, 7, 14, 10, 0, 0).unwrap();
        assert_eq!(
            current_time_at(now, Tz::Europe__Paris),
            "2026-07-14T12:00:00+02:00 (Tuesday, Europe/Paris, CEST), unix 1784023200"
        );
    }
}
