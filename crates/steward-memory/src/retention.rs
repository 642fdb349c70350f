//! Retention: scoped deletion of facts — those past their expiry, and those under an exact
//! key prefix not seen for a given time. Never a broad pattern: prefixes are plain key text
//! (`[a-z0-9_.]`, non-empty), matched exactly by the store.
//!
//! Owns: validating a plan and turning durations into cut-off times. Does not own: the
//! dry-run default (the CLI's) or the SQL (the store).

use crate::{Memory, MemoryError};
use std::time::Duration;
use steward_protocol::{Fact, FactKey};

/// What to sweep.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetentionPlan {
    /// Whose facts the prefixes apply to (required when `prefixes` is not empty).
    pub user: String,
    /// Delete facts whose `expires_at_ms` has passed (all users: expiry was set per fact).
    pub expired_facts: bool,
    /// (key prefix, unseen for): delete the user's facts under the prefix whose last_seen is
    /// older than now − unseen_for.
    pub prefixes: Vec<(String, Duration)>,
}

/// What was deleted, or with `dry_run` what would have been.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetentionReport {
    pub dry_run: bool,
    pub expired: Vec<Fact>,
    /// Per prefix of the plan, in plan order.
    pub by_prefix: Vec<(String, Vec<Fact>)>,
}

impl RetentionReport {
    pub fn total(&self) -> usize {
        self.expired.len() + self.by_prefix.iter().map(|(_, f)| f.len()).sum::<usize>()
    }
}

/// A prefix is plain key text: it follows the fact-key rule (`steward_protocol::FactKey`).
/// Anything else is refused before any deletion, so a typo like "*" or "" can never widen a
/// sweep.
pub fn check_prefix(prefix: &str) -> Result<(), MemoryError> {
    match FactKey::parse(prefix) {
        Ok(_) => Ok(()),
        Err(e) => Err(MemoryError::Invalid(format!(
            "retention prefix is not plain key text such as \"episode.\" ({e})"
        ))),
    }
}

/// now − `unseen_for`, saturating (a huge duration means "before any time").
pub(crate) fn cutoff(now_ms: i64, unseen_for: Duration) -> i64 {
    let ms = i64::try_from(unseen_for.as_millis()).unwrap_or(i64::MAX);
    now_ms.saturating_sub(ms)
}

impl Memory {
    /// Run `plan`; with `dry_run` nothing is deleted and the report says what would be.
    /// The whole plan is validated before anything is deleted.
    pub async fn retention(
        &self,
        plan: &RetentionPlan,
        dry_run: bool,
    ) -> Result<RetentionReport, MemoryError> {
        for (prefix, _) in &plan.prefixes {
            check_prefix(prefix)?;
        }
        if !plan.prefixes.is_empty() && plan.user.trim().is_empty() {
            return Err(MemoryError::Invalid(
                "retention by prefix needs the user whose facts to sweep".into(),
            ));
        }
        let now = self.now_ms();
        let mut report = RetentionReport {
            dry_run,
            ..RetentionReport::default()
        };
        if plan.expired_facts {
            report.expired = self.store.delete_expired_facts(now, dry_run).await?;
        }
        for (prefix, unseen_for) in &plan.prefixes {
            let facts = self
                .store
                .delete_facts_by_prefix(&plan.user, prefix, cutoff(now, *unseen_for), dry_run)
                .await?;
            report.by_prefix.push((prefix.clone(), facts));
        }
        tracing::info!(dry_run, deleted = report.total(), "memory retention");
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_plain_key_text() {
        assert!(check_prefix("episode.").is_ok());
        assert!(check_prefix("trip_2024").is_ok());
        for bad in ["", "*", "%", "episode*", "Episode.", " episode", "a b"] {
            assert!(
                matches!(check_prefix(bad), Err(MemoryError::Invalid(_))),
                "{bad:?} must be refused"
            );
        }
    }

    #[test]
    fn cutoff_saturates() {
        assert_eq!(cutoff(10_000, Duration::from_secs(3)), 7_000);
        assert_eq!(cutoff(10_000, Duration::MAX), 10_000 - i64::MAX);
        assert_eq!(cutoff(i64::MIN + 5, Duration::from_secs(1)), i64::MIN);
    }
}
