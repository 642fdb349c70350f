//! The error of parsing a schedule: what was wrong and what shape was expected. Owns the
//! messages and the rule that they quote at most [`QUOTE_CHARS`] characters of the input
//! (escaped), so a hostile or huge string never ends up whole in a log. Does not own parsing.

/// At most this many characters of the input are quoted back in an error.
pub const QUOTE_CHARS: usize = 64;

/// Why a schedule's text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// Longer than [`super::MAX_INPUT_BYTES`].
    #[error("schedule is {len} bytes long; at most {max} are accepted")]
    TooLong { len: usize, max: usize },
    /// Not one of the forms.
    #[error(
        "unrecognized schedule {input}; expected \"off\", \"every <n><m|h|d>\", \"daily HH:MM\", \
         \"weekly <mon..sun> HH:MM\" or \"cron <minute> <hour> <day-of-month> <month> <day-of-week>\""
    )]
    UnknownForm { input: String },
    /// `every` with a bad interval.
    #[error(
        "bad interval {input}: {reason}; expected \"every <n><unit>\" with unit s, m, h or d, \
         from 1 minute to 7 days (seconds only as whole minutes), e.g. \"every 15m\""
    )]
    BadInterval { input: String, reason: &'static str },
    /// `daily`/`weekly` with a bad time of day.
    #[error(
        "bad time of day {input}: {reason}; expected HH:MM from 00:00 to 23:59, e.g. \"07:30\""
    )]
    BadTime { input: String, reason: &'static str },
    /// `weekly` with a bad weekday.
    #[error("bad weekday {input}; expected one of mon, tue, wed, thu, fri, sat, sun")]
    BadWeekday { input: String },
    /// A form with missing or extra words.
    #[error("{form} takes {expected}, got {input}")]
    WrongArity {
        form: &'static str,
        expected: &'static str,
        input: String,
    },
    /// A cron expression without exactly five fields.
    #[error(
        "cron needs exactly 5 fields (minute hour day-of-month month day-of-week), got {count}{hint}"
    )]
    CronFieldCount { count: usize, hint: &'static str },
    /// A cron expression that croner refused, or that uses a form this crate refuses.
    #[error("bad cron expression {input}: {reason}")]
    BadCron { input: String, reason: String },
}

/// `text` quoted and escaped, cut to [`QUOTE_CHARS`] characters (with `…` when cut).
pub(crate) fn quote(text: &str) -> String {
    let mut cut: String = text.chars().take(QUOTE_CHARS).collect();
    let truncated = cut.len() < text.len();
    cut = format!("{cut:?}");
    if truncated {
        cut.push('…');
    }
    cut
}
