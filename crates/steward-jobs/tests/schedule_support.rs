//! Helpers of the schedule tests: instants from RFC 3339 text and back, and a zone by name.
//! Owns nothing of the crate.

use chrono::{DateTime, SecondsFormat, Utc};
use chrono_tz::Tz;
use steward_jobs::schedule::Schedule;

/// The instant of an RFC 3339 string.
pub fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap_or_else(|e| panic!("bad instant {text:?} in a test: {e}"))
        .with_timezone(&Utc)
}

/// `at` as `2026-03-29T01:00:00Z`.
pub fn rfc(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A zone by its IANA name.
pub fn zone(name: &str) -> Tz {
    name.parse()
        .unwrap_or_else(|e| panic!("bad zone {name:?}: {e}"))
}

/// A schedule that must parse.
pub fn schedule(text: &str) -> Schedule {
    text.parse()
        .unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
}

/// The fires of `text` in `(from, to]` in zone `tz`, as RFC 3339 UTC strings (at most 100).
pub fn fires(text: &str, tz: &str, from: &str, to: &str) -> Vec<String> {
    schedule(text)
        .fires_between(utc(from), utc(to), zone(tz), 100)
        .into_iter()
        .map(rfc)
        .collect()
}
