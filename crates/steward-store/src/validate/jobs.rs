//! Input limits for the scheduler's records (`JobStore`), so every adapter refuses the same
//! inputs. Messages name the field and the problem, never the text.

use super::approvals::{bounded, id};
use super::genre::genre;
use super::text::storable_within;
use crate::{
    MAX_OCCURRENCE_KEY_LEN, MAX_OUTCOME_LEN, MAX_REMINDER_SHOWN_LEN, MAX_REMINDER_TEXT_LEN,
    ProactiveMessage, Reminder, StoreError,
};
use steward_protocol::JobName;

/// A job name, by its one rule (`steward_protocol::JobName`).
pub(crate) fn job_name(raw: &str) -> Result<(), StoreError> {
    JobName::parse(raw)
        .map(|_| ())
        .map_err(|e| StoreError::InvalidInput(e.to_string()))
}

/// An occurrence key or a lease owner: 1..=`MAX_OCCURRENCE_KEY_LEN` bytes, no control
/// characters.
pub(crate) fn key(what: &str, raw: &str) -> Result<(), StoreError> {
    bounded(what, raw, 1, MAX_OCCURRENCE_KEY_LEN)?;
    if raw.chars().any(char::is_control) {
        return Err(StoreError::InvalidInput(format!(
            "{what} has a control character"
        )));
    }
    Ok(())
}

pub(crate) fn occurrence(job: &str, occurrence: &str, owner: &str) -> Result<(), StoreError> {
    job_name(job)?;
    key("occurrence key", occurrence)?;
    key("lease owner", owner)
}

/// An outcome is a summary: shortened to `MAX_OUTCOME_LEN`, never refused.
pub(crate) fn outcome(raw: &str) -> String {
    storable_within(raw, MAX_OUTCOME_LEN).into_owned()
}

pub(crate) fn proactive(message: &ProactiveMessage) -> Result<(), StoreError> {
    genre(&message.genre)?;
    id("proactive message trace id", &message.trace_id)?;
    job_name(&message.job)?;
    key("occurrence key", &message.occurrence)
}

pub(crate) fn reminder(reminder: &Reminder) -> Result<(), StoreError> {
    id("reminder id", &reminder.id)?;
    bounded("reminder text", &reminder.text, 1, MAX_REMINDER_TEXT_LEN)?;
    if reminder.text.trim().is_empty() {
        return Err(StoreError::InvalidInput("reminder text is blank".into()));
    }
    bounded(
        "reminder shown time",
        &reminder.shown,
        1,
        MAX_REMINDER_SHOWN_LEN,
    )?;
    id("reminder trace id", &reminder.trace_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_names_are_a_small_vocabulary() {
        for good in ["briefing", "weekly-recap", "task_3", "a"] {
            assert!(job_name(good).is_ok(), "{good}");
        }
        for bad in ["", "Briefing", "a b", "x/y", "é", &"a".repeat(65)] {
            assert!(job_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn keys_refuse_control_characters_and_length() {
        assert!(key("k", "briefing@1764745200").is_ok());
        assert!(key("k", "a\nb").is_err());
        assert!(key("k", "").is_err());
        assert!(key("k", &"k".repeat(129)).is_err());
    }

    #[test]
    fn an_outcome_is_shortened_on_a_char_boundary() {
        let long = "é".repeat(MAX_OUTCOME_LEN);
        let kept = outcome(&long);
        assert!(kept.len() <= MAX_OUTCOME_LEN && !kept.is_empty());
    }
}
