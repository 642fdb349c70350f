//! The failed-sign-in limit: more than `MAX_FAILURES` failed sign-ins from one client within
//! `WINDOW` and the next attempt is refused (429) before its credential is looked at, until
//! the oldest of those failures leaves the window.
//!
//! Owns: the per-client failure record, in memory, and its bound. Does not own: who the client
//! is (`client.rs`: the TCP peer, or the trusted proxy's last hop; IPv6 by /64) or the clock
//! (injected; tests move a `ManualClock` instead of sleeping).
//!
//! Attempts in progress count as failures until they end, so a burst of concurrent guesses
//! cannot all pass the check before the first failure is recorded. At most `MAX_CLIENTS`
//! clients are tracked: when the table is full, clients without a failure in the window go
//! first, then the one whose latest failure is oldest. An attacker with more addresses than
//! that can push its own older records out, which the Argon2 cost (and its bounded
//! concurrency) still limits; the memory it can make the server hold cannot grow.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;

/// Failed sign-ins tolerated per client within the window.
pub(crate) const MAX_FAILURES: usize = 20;
/// The window, in milliseconds (15 minutes).
pub(crate) const WINDOW_MS: i64 = 15 * 60 * 1000;
/// Most clients tracked at once.
pub(crate) const MAX_CLIENTS: usize = 4096;

/// Whom a failure is counted against: an address (IPv6 reduced to its /64), or, for a request
/// without a known address, one bucket that all such requests share.
pub(crate) type ClientKey = Option<IpAddr>;

#[derive(Default)]
struct Record {
    /// Times (ms) of the failures still in the window, oldest first, at most `MAX_FAILURES`.
    failures: VecDeque<i64>,
    in_flight: usize,
}

impl Record {
    fn forget_before(&mut self, cutoff: i64) {
        while self.failures.front().is_some_and(|t| *t <= cutoff) {
            self.failures.pop_front();
        }
    }

    fn idle(&self) -> bool {
        self.failures.is_empty() && self.in_flight == 0
    }
}

pub(crate) struct SignInLimiter {
    clients: Mutex<HashMap<ClientKey, Record>>,
    max_clients: usize,
}

/// An attempt that passed the check. End it with `failed` or `succeeded`; dropped without
/// either (the request went away), it counts as neither.
pub(crate) struct Attempt<'a> {
    limiter: &'a SignInLimiter,
    key: ClientKey,
    open: bool,
}

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        if self.open {
            self.limiter.settle(self.key, None);
        }
    }
}

impl Attempt<'_> {
    /// The credential was wrong: one more failure at `now_ms`.
    pub(crate) fn failed(mut self, now_ms: i64) {
        self.open = false;
        self.limiter.settle(self.key, Some(Outcome::Failed(now_ms)));
    }

    /// The credential was right: the client's record is cleared.
    pub(crate) fn succeeded(mut self) {
        self.open = false;
        self.limiter.settle(self.key, Some(Outcome::Succeeded));
    }
}

enum Outcome {
    Failed(i64),
    Succeeded,
}

impl SignInLimiter {
    pub(crate) fn new() -> Self {
        Self::with_capacity(MAX_CLIENTS)
    }

    pub(crate) fn with_capacity(max_clients: usize) -> Self {
        Self {
            clients: Mutex::new(HashMap::new()),
            max_clients: max_clients.max(1),
        }
    }

    /// Start an attempt from `key` at `now_ms`, or the whole seconds to wait (≥ 1) when the
    /// client is over its limit.
    pub(crate) fn begin(&self, key: ClientKey, now_ms: i64) -> Result<Attempt<'_>, u64> {
        let mut clients = self.lock();
        let cutoff = now_ms.saturating_sub(WINDOW_MS);
        if !clients.contains_key(&key) && clients.len() >= self.max_clients {
            make_room(&mut clients, cutoff, self.max_clients);
            if clients.len() >= self.max_clients {
                // Every tracked client has an attempt running: wait for one to end.
                return Err(1);
            }
        }
        let record = clients.entry(key).or_default();
        record.forget_before(cutoff);
        if record.failures.len() + record.in_flight >= MAX_FAILURES {
            return Err(retry_after(record, now_ms));
        }
        record.in_flight += 1;
        Ok(Attempt {
            limiter: self,
            key,
            open: true,
        })
    }

    fn settle(&self, key: ClientKey, outcome: Option<Outcome>) {
        let mut clients = self.lock();
        let Some(record) = clients.get_mut(&key) else {
            return;
        };
        record.in_flight = record.in_flight.saturating_sub(1);
        match outcome {
            Some(Outcome::Failed(at)) => {
                record.failures.push_back(at);
                while record.failures.len() > MAX_FAILURES {
                    record.failures.pop_front();
                }
            }
            Some(Outcome::Succeeded) => record.failures.clear(),
            None => {}
        }
        if record.idle() {
            clients.remove(&key);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ClientKey, Record>> {
        // A panic while holding it cannot leave a record half-written in a way that matters
        // (counts only), so a poisoned lock is used as it is.
        self.clients
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.lock().len()
    }
}

/// Seconds until the client may try again: when its oldest counted failure leaves the window
/// (or 1 s when attempts in progress hold it at the limit).
fn retry_after(record: &Record, now_ms: i64) -> u64 {
    if record.failures.len() < MAX_FAILURES {
        return 1;
    }
    let oldest = record.failures.front().copied().unwrap_or(now_ms);
    let wait_ms = oldest.saturating_add(WINDOW_MS).saturating_sub(now_ms);
    // Whole seconds, rounded up (`wait_ms` is at least 1 here, never negative).
    let wait_ms = u64::try_from(wait_ms).unwrap_or(1);
    wait_ms.div_ceil(1000).max(1)
}

/// Drops clients with nothing in the window; if that left the table full, the one whose
/// latest failure is oldest (never one with an attempt running).
fn make_room(clients: &mut HashMap<ClientKey, Record>, cutoff: i64, max_clients: usize) {
    clients.retain(|_, r| {
        r.forget_before(cutoff);
        !r.idle()
    });
    if clients.len() < max_clients {
        return;
    }
    let stalest = clients
        .iter()
        .filter(|(_, r)| r.in_flight == 0)
        .min_by_key(|(_, r)| r.failures.back().copied().unwrap_or(i64::MIN))
        .map(|(k, _)| *k);
    if let Some(key) = stalest {
        clients.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ip(n: u8) -> ClientKey {
        Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, n)))
    }

    fn fail(l: &SignInLimiter, key: ClientKey, now: i64) {
        l.begin(key, now).unwrap().failed(now);
    }

    #[test]
    fn the_21st_attempt_is_refused_until_the_oldest_failure_leaves_the_window() {
        let l = SignInLimiter::new();
        for i in 0..20 {
            fail(&l, ip(1), 1_000 + i);
        }
        let wait = l.begin(ip(1), 2_000).err().unwrap();
        assert_eq!(
            wait, 899,
            "the oldest failure (t=1000) leaves at 901 000 ms: 899 s after 2 000"
        );
        assert!(
            l.begin(ip(2), 2_000).is_ok(),
            "another client is not held back"
        );
        assert!(l.begin(ip(1), 1_000 + WINDOW_MS - 1).is_err());
        assert!(
            l.begin(ip(1), 1_000 + WINDOW_MS).is_ok(),
            "one failure left the window"
        );
    }

    #[test]
    fn attempts_in_progress_count_until_they_end() {
        let l = SignInLimiter::new();
        let running: Vec<_> = (0..20).map(|_| l.begin(ip(1), 0).unwrap()).collect();
        assert_eq!(l.begin(ip(1), 0).err(), Some(1));
        drop(running);
        assert!(
            l.begin(ip(1), 0).is_ok(),
            "dropped attempts count as nothing"
        );
        assert_eq!(l.tracked(), 0, "an idle client is forgotten");
    }

    #[test]
    fn success_clears_the_record() {
        let l = SignInLimiter::new();
        for i in 0..19 {
            fail(&l, ip(1), i);
        }
        l.begin(ip(1), 100).unwrap().succeeded();
        for i in 0..20 {
            fail(&l, ip(1), 200 + i);
        }
        assert!(l.begin(ip(1), 300).is_err());
    }

    #[test]
    fn the_table_never_grows_past_its_bound() {
        let l = SignInLimiter::with_capacity(8);
        for n in 0..=200u8 {
            fail(&l, ip(n), i64::from(n));
            assert!(l.tracked() <= 8);
        }
        // The newest clients are the ones still counted.
        for _ in 0..19 {
            fail(&l, ip(200), 300);
        }
        assert!(l.begin(ip(200), 301).is_err());
    }

    #[test]
    fn a_full_table_of_running_attempts_refuses_newcomers() {
        let l = SignInLimiter::with_capacity(2);
        let _a = l.begin(ip(1), 0).unwrap();
        let _b = l.begin(ip(2), 0).unwrap();
        assert_eq!(l.begin(ip(3), 0).err(), Some(1));
    }
}
