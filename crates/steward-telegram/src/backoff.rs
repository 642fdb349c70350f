//! How long the poller waits after a failed call: a pure function of the failure, the
//! number of failures in a row and a jitter draw, so it is tested without sleeping.
//!
//! Owns: the schedule (exponential from `BASE`, capped at `CAP`, jittered; flood control's
//! `retry_after` honoured as given, capped at `RETRY_AFTER_CAP`). Does not own: sleeping or
//! drawing the jitter (`poller`).

use std::time::Duration;

use crate::error::FailureKind;

/// The first wait after a failure.
pub const BASE: Duration = Duration::from_secs(1);
/// No exponential wait is longer than this: a bot that was down comes back within a minute.
pub const CAP: Duration = Duration::from_secs(60);
/// A server-named wait longer than this is taken as this (a misbehaving proxy should not
/// silence the bot for a day).
pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(3600);

/// The wait before the next call, after `failures` failures in a row (1 for the first) of
/// kind `kind`; `jitter` is a draw from `[0, 1)`. Exponential waits are spread over their
/// upper half (`[d/2, d)`) so that many bots cut off together do not return together; a
/// `retry_after` is waited exactly, since waiting less earns another 429.
pub fn delay(kind: FailureKind, failures: u32, jitter: f64) -> Duration {
    match kind {
        FailureKind::RetryAfter(wait) => wait.min(RETRY_AFTER_CAP),
        FailureKind::Transient | FailureKind::Refused => {
            let exponent = failures.saturating_sub(1).min(16);
            let full = BASE.saturating_mul(1u32 << exponent).min(CAP);
            let jitter = if jitter.is_finite() {
                jitter.clamp(0.0, 1.0)
            } else {
                0.0
            };
            full.mul_f64(0.5 + 0.5 * jitter)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_waited_exactly_and_capped() {
        let kind = FailureKind::RetryAfter(Duration::from_secs(17));
        for (failures, jitter) in [(1, 0.0), (9, 0.99)] {
            assert_eq!(delay(kind, failures, jitter), Duration::from_secs(17));
        }
        let huge = FailureKind::RetryAfter(Duration::from_secs(86_400));
        assert_eq!(delay(huge, 1, 0.5), RETRY_AFTER_CAP);
    }

    #[test]
    fn transient_failures_double_up_to_the_cap_within_the_jitter_band() {
        let at = |n, j| delay(FailureKind::Transient, n, j);
        assert_eq!(at(1, 0.0), Duration::from_millis(500));
        assert_eq!(at(2, 0.0), Duration::from_secs(1));
        assert_eq!(at(3, 0.0), Duration::from_secs(2));
        assert!(at(3, 0.999) < Duration::from_secs(4) && at(3, 0.999) > Duration::from_secs(3));
        // Long outages stay at the cap, whatever the count.
        for n in [7, 8, 100, u32::MAX] {
            assert!(at(n, 0.999) < CAP && at(n, 0.0) == CAP / 2, "{n}");
        }
        assert_eq!(delay(FailureKind::Refused, 2, 0.0), Duration::from_secs(1));
    }

    #[test]
    fn a_broken_jitter_draw_cannot_stretch_or_zero_the_wait() {
        let at = |j| delay(FailureKind::Transient, 2, j);
        assert_eq!(at(f64::NAN), Duration::from_secs(1));
        assert_eq!(at(-5.0), Duration::from_secs(1));
        assert_eq!(at(7.0), Duration::from_secs(2));
        assert!(at(f64::INFINITY) > Duration::ZERO);
    }
}
