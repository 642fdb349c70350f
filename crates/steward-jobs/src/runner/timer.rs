//! Waiting for a wall-clock time: the scheduler never sleeps "an interval", it waits until
//! the injected clock reads a given instant. `WallTimer` re-reads the clock at least every
//! `MAX_NAP`, so a clock that jumps (NTP, a suspended laptop waking) is noticed within that
//! and the next fire is computed again. `ManualTimer` is for tests and dry runs: waits end
//! when the test moves its `ManualClock` past them, so no test sleeps.
//!
//! Owns: the `Timer` port and its two implementations. Does not own: what is waited for.

use std::sync::Arc;
use std::time::Duration;
use steward_protocol::{Clock, ManualClock};
use tokio::sync::Notify;

/// Longest real sleep between two reads of the clock.
pub const MAX_NAP: Duration = Duration::from_secs(30);

/// Waiting until the clock reads an instant.
#[async_trait::async_trait]
pub trait Timer: Send + Sync + 'static {
    /// Returns once the clock reads `at_ms` or later.
    async fn sleep_until(&self, at_ms: i64);
    /// The clock the waits are measured on.
    fn now_ms(&self) -> i64;
}

/// The production timer: naps on tokio's timer, at most `MAX_NAP` at a time.
#[derive(Debug, Clone)]
pub struct WallTimer {
    clock: Arc<dyn Clock>,
}

impl WallTimer {
    pub fn new(clock: Arc<dyn Clock>) -> WallTimer {
        WallTimer { clock }
    }
}

#[async_trait::async_trait]
impl Timer for WallTimer {
    async fn sleep_until(&self, at_ms: i64) {
        loop {
            let left = at_ms.saturating_sub(self.clock.now_ms());
            if left <= 0 {
                return;
            }
            let nap = Duration::from_millis(u64::try_from(left).unwrap_or(u64::MAX)).min(MAX_NAP);
            tokio::time::sleep(nap).await;
        }
    }

    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}

/// A timer over a `ManualClock`: `advance` and `set_ms` move the clock and wake every wait
/// that is then due.
#[derive(Debug)]
pub struct ManualTimer {
    clock: Arc<ManualClock>,
    moved: Notify,
}

impl ManualTimer {
    pub fn new(clock: Arc<ManualClock>) -> Arc<ManualTimer> {
        Arc::new(ManualTimer {
            clock,
            moved: Notify::new(),
        })
    }

    pub fn advance(&self, by: Duration) {
        self.clock.advance(by);
        self.moved.notify_waiters();
    }

    pub fn set_ms(&self, ms: i64) {
        self.clock.set_ms(ms);
        self.moved.notify_waiters();
    }
}

#[async_trait::async_trait]
impl Timer for ManualTimer {
    async fn sleep_until(&self, at_ms: i64) {
        loop {
            // Registered before the clock is read, so a move between the two is not missed.
            let moved = self.moved.notified();
            if self.clock.now_ms() >= at_ms {
                return;
            }
            moved.await;
        }
    }

    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}
