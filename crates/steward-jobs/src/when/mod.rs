//! Time phrases a person says for a reminder — "in 2 days at 9", "tomorrow", "next Friday",
//! "at 17:00" — resolved in code in their time zone, never by the model; a phrase that could
//! mean two things is asked back (`Unresolved::Ambiguous`) instead of guessed.
//!
//! The rules (each one a test in `tests/when_phrases.rs`):
//! - A time without a day is its next occurrence: today if still ahead, else tomorrow.
//! - A day without a time is at 09:00; "tonight" is 20:00, and "tonight at 8" is 20:00.
//! - "at 9" is 09:00 (a 24-hour reading); "9pm", "9:30 am", "noon" (12:00) and "midnight"
//!   (00:00 at the end of the day named, or of today) are read as said.
//! - A weekday ("friday", "on friday", "next friday") is the next such day after today; "this
//!   friday" is today when today is Friday and the time is still ahead.
//! - "in N minutes/hours" is that much real time; "in N days/weeks/months" keeps the local
//!   time of day (now's, or the one given), across DST; a month later clamps to the month's
//!   last day (31 January + 1 month = 28 or 29 February, which the shown time makes visible).
//! - A date without a year is its next occurrence; `2026-12-24` and `24 december 2026` are
//!   taken as written. `05/06` (both ≤ 12) is asked back; `25/12` and `12/25` are not.
//! - A local time in a DST gap is moved to the first minute after the gap (and shown so); a
//!   repeated local time is its first occurrence.
//! - A fully given time already past is refused (`InThePast`) with the time it named; more
//!   than five years ahead is `TooFar`. Vague words ("soon", "later", "sometime", "next
//!   week", "or") are asked back. Input over `MAX_PHRASE_BYTES` is refused.
//!
//! Owns: the grammar and those rules. Does not own: storing or delivering reminders.

mod calendar;
mod grammar;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

/// Longest phrase taken, in bytes.
pub const MAX_PHRASE_BYTES: usize = 200;

/// A phrase read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub at: DateTime<Utc>,
    /// How the confirmation says it: "Friday 11 December 2026 at 09:00 (Europe/Berlin)".
    pub shown: String,
}

/// Why a phrase gave no time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unresolved {
    #[error("{question}")]
    Ambiguous { question: String },
    #[error("that time has passed ({shown})")]
    InThePast { shown: String },
    #[error("that is more than five years away")]
    TooFar,
    #[error("the time was not understood; {hint}")]
    NotUnderstood { hint: String },
    #[error("the phrase is longer than {MAX_PHRASE_BYTES} bytes")]
    TooLong,
}

pub(crate) const HINT: &str = "say it like \"in 20 minutes\", \"tomorrow at 9\", \"next friday at 17:30\", \"on 24 december\" or \"2026-12-24 18:00\"";

/// `phrase` read at `now` in `tz`.
pub fn resolve(phrase: &str, now: DateTime<Utc>, tz: Tz) -> Result<Resolved, Unresolved> {
    if phrase.len() > MAX_PHRASE_BYTES {
        return Err(Unresolved::TooLong);
    }
    let parsed = grammar::parse(phrase)?;
    calendar::place(&parsed, now, tz)
}
