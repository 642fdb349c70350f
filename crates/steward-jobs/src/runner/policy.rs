//! The rules a job runs under: what happens to occurrences missed while Steward was down
//! (or the machine slept), how often a failure is retried and how long apart, how long an
//! attempt may take, how long a lease lasts. Pure values with defaults a person would pick.
//!
//! Owns: those rules and the pure decision of which due fire times run and which are
//! skipped (`plan`). Does not own: the loop that applies them (`mod.rs`).

use std::time::Duration;

/// What to do with occurrences that came due while nothing ran them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissedPolicy {
    /// Skip them (recorded as skipped): a 07:30 briefing is not sent at 11:00.
    Skip,
    /// Run the latest one once, skip the others: upkeep that must happen eventually.
    RunOnce,
}

/// How a job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPolicy {
    pub missed: MissedPolicy,
    /// An occurrence at most this late still counts as on time (a scheduler busy for a
    /// moment, a restart in the same minute).
    pub grace: Duration,
    /// Attempts per occurrence, the first included; then it is failed for good.
    pub max_attempts: u32,
    /// Wait before the second attempt; doubled for each one after, up to `max_backoff`.
    pub backoff: Duration,
    pub max_backoff: Duration,
    /// One attempt's time limit.
    pub timeout: Duration,
    /// How long a claim holds the occurrence; renewed at a third of it while running.
    pub lease: Duration,
}

impl Default for RunPolicy {
    fn default() -> RunPolicy {
        RunPolicy {
            missed: MissedPolicy::Skip,
            grace: Duration::from_secs(10 * 60),
            max_attempts: 3,
            backoff: Duration::from_secs(60),
            max_backoff: Duration::from_secs(30 * 60),
            timeout: Duration::from_secs(5 * 60),
            lease: Duration::from_secs(2 * 60),
        }
    }
}

impl RunPolicy {
    /// The wait after failed attempt `attempt` (1-based), or None when it was the last.
    pub fn retry_after(&self, attempt: u32) -> Option<Duration> {
        if attempt >= self.max_attempts {
            return None;
        }
        let doublings = attempt.saturating_sub(1).min(20);
        let wait = self.backoff.saturating_mul(1u32 << doublings);
        Some(wait.min(self.max_backoff))
    }
}

/// Which of the fire times due now run, and which are recorded as skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub run: Option<i64>,
    pub skip: Vec<i64>,
}

/// `due`: fire times not yet handled, ascending, all ≤ `now_ms`.
pub fn plan(due: &[i64], now_ms: i64, policy: &RunPolicy) -> Plan {
    let Some((&latest, earlier)) = due.split_last() else {
        return Plan {
            run: None,
            skip: Vec::new(),
        };
    };
    let grace = i64::try_from(policy.grace.as_millis()).unwrap_or(i64::MAX);
    let on_time = now_ms.saturating_sub(latest) <= grace;
    let mut skip = earlier.to_vec();
    let run = if on_time || policy.missed == MissedPolicy::RunOnce {
        Some(latest)
    } else {
        skip.push(latest);
        None
    };
    Plan { run, skip }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap_and_stops_at_the_budget() {
        let p = RunPolicy {
            max_attempts: 5,
            backoff: Duration::from_secs(60),
            max_backoff: Duration::from_secs(150),
            ..RunPolicy::default()
        };
        let waits: Vec<Option<u64>> = (1..=5)
            .map(|a| p.retry_after(a).map(|d| d.as_secs()))
            .collect();
        assert_eq!(waits, [Some(60), Some(120), Some(150), Some(150), None]);
    }

    #[test]
    fn missed_occurrences_skip_or_run_the_latest_once() {
        let skip = RunPolicy::default();
        let grace = 10 * 60 * 1000;
        // On time: the latest runs, earlier ones are skipped.
        assert_eq!(
            plan(&[1, 2, 100], 100 + grace, &skip),
            Plan {
                run: Some(100),
                skip: vec![1, 2]
            }
        );
        // Late: nothing runs under Skip.
        assert_eq!(
            plan(&[1, 100], 101 + grace, &skip),
            Plan {
                run: None,
                skip: vec![1, 100]
            }
        );
        let once = RunPolicy {
            missed: MissedPolicy::RunOnce,
            ..skip
        };
        assert_eq!(
            plan(&[1, 100], 101 + grace, &once),
            Plan {
                run: Some(100),
                skip: vec![1]
            }
        );
        assert_eq!(
            plan(&[], 5, &once),
            Plan {
                run: None,
                skip: vec![]
            }
        );
    }
}
