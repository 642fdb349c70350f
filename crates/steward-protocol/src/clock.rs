//! The clock port: where every production read of the wall-clock time comes from.
//!
//! Owns: the `Clock` trait, the real `SystemClock`, and `ManualClock`, a clock tests set and
//! move (so an expiry, a retention age or "now" in a tool's answer is tested without
//! sleeping). Does not own: monotonic time. Timeouts, latencies and idle limits use
//! `std::time::Instant` / tokio's timers, which a wall-clock jump must not disturb and which
//! nothing persists; a schedule or expiry that is stored (approvals, grants, facts, request
//! records) is wall-clock time and reads it here.
//!
//! The composition root (`steward/src/app.rs`) makes one `SystemClock` and hands the same
//! `Arc<dyn Clock>` to the store, memory, core, tools and server.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Wall-clock time, as Unix milliseconds (what the store keeps).
pub trait Clock: Send + Sync + fmt::Debug {
    /// Unix milliseconds now. A clock before 1970 reads 0: only a broken clock is, and a
    /// write stamped 0 is better than a failed one.
    fn now_ms(&self) -> i64;

    /// Unix seconds now (rounded down).
    fn now_secs(&self) -> i64 {
        self.now_ms().div_euclid(1000)
    }
}

/// The operating system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl SystemClock {
    /// A shared handle, as the ports take it.
    pub fn shared() -> Arc<dyn Clock> {
        Arc::new(SystemClock)
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

/// A clock that stands still until told otherwise: `set_ms` and `advance`. For tests (and
/// dry runs) that need "now" to be a given instant.
#[derive(Debug, Default)]
pub struct ManualClock {
    ms: AtomicI64,
}

impl ManualClock {
    /// A clock reading `ms` (Unix milliseconds).
    pub fn at_ms(ms: i64) -> Arc<ManualClock> {
        Arc::new(ManualClock {
            ms: AtomicI64::new(ms),
        })
    }

    /// A clock reading what the system clock reads now, then standing still: stored
    /// timestamps look ordinary, and only the test moves time.
    pub fn starting_now() -> Arc<ManualClock> {
        ManualClock::at_ms(SystemClock.now_ms())
    }

    pub fn set_ms(&self, ms: i64) {
        self.ms.store(ms, Ordering::SeqCst);
    }

    /// Moves the clock forward by `by` (saturating at `i64::MAX` milliseconds).
    pub fn advance(&self, by: Duration) {
        let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        // fetch_update never fails with a closure that always returns Some.
        let _ = self
            .ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |ms| {
                Some(ms.saturating_add(by))
            });
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.ms.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let clock = ManualClock::at_ms(1_000);
        assert_eq!(clock.now_ms(), 1_000);
        clock.advance(Duration::from_millis(2_500));
        assert_eq!(clock.now_ms(), 3_500);
        assert_eq!(clock.now_secs(), 3);
        clock.set_ms(-1);
        assert_eq!(clock.now_secs(), -1, "seconds round down, also before 1970");
        clock.set_ms(i64::MAX - 1);
        clock.advance(Duration::from_secs(1));
        assert_eq!(clock.now_ms(), i64::MAX, "advancing saturates");
    }

    #[test]
    fn the_system_clock_reads_the_system_time() {
        let before = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let read = SystemClock.now_ms();
        let after = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let read = u128::try_from(read).unwrap_or(0);
        assert!(before <= read && read <= after, "{before} {read} {after}");
        // Some time after 2024 (1.7e12 ms): not zero, not seconds.
        assert!(read > 1_700_000_000_000, "{read}");
    }
}
