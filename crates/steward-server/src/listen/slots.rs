//! Connection slots: the global cap and the per-client-address cap, and which connection
//! gives way when a cap is reached.
//!
//! Owns: admission and displacement. Does not own: timeouts or serving (see `conn`), nor
//! knowing whether a connection authenticated (the auth layer marks it on the connection's
//! shared state).
//!
//! Rule: a newcomer is never refused while some connection under the same cap is only
//! waiting. At a cap, the oldest connection that never presented a valid token goes first
//! (whatever it is doing: it can only be reading headers, idle, or getting a 401 or
//! `/health`), then the oldest authenticated one that is idle between requests. Only when
//! every connection under the cap is an authenticated request in progress is the newcomer
//! refused. So a flood of pre-auth connections churns among itself and cannot keep the
//! owner out, and the per-address cap keeps one address from displacing everyone else's.

use super::conn::ConnShared;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Why a newcomer was turned away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Its address holds `max_connections_per_ip` authenticated requests in progress.
    PerIp,
    /// The server holds `max_connections` authenticated requests in progress.
    Full,
}

/// A client address as the per-address cap counts it: IPv4 (also when mapped into IPv6) as
/// is, IPv6 by its /64, which one host usually controls whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ClientKey(IpAddr);

impl ClientKey {
    pub(crate) fn of(ip: IpAddr) -> ClientKey {
        match ip.to_canonical() {
            IpAddr::V6(v6) => {
                let bits = u128::from(v6) & (u128::MAX << 64);
                ClientKey(IpAddr::V6(bits.into()))
            }
            v4 => ClientKey(v4),
        }
    }
}

struct Slot {
    key: ClientKey,
    conn: Arc<ConnShared>,
}

#[derive(Default)]
struct Inner {
    next_id: u64,
    /// By admission order: the first entry is the oldest.
    slots: BTreeMap<u64, Slot>,
    per_key: HashMap<ClientKey, usize>,
}

impl Inner {
    /// The connection that gives way among those `in_scope`, per the module's rule.
    fn victim(&self, in_scope: impl Fn(&Slot) -> bool) -> Option<u64> {
        let mut idle_authenticated = None;
        for (id, slot) in self.slots.iter().filter(|(_, s)| in_scope(s)) {
            if !slot.conn.is_authenticated() {
                return Some(*id);
            }
            if idle_authenticated.is_none() && !slot.conn.is_busy() {
                idle_authenticated = Some(*id);
            }
        }
        idle_authenticated
    }

    fn remove(&mut self, id: u64) -> Option<Slot> {
        let slot = self.slots.remove(&id)?;
        if let Some(n) = self.per_key.get_mut(&slot.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_key.remove(&slot.key);
            }
        }
        Some(slot)
    }

    /// Take `id` out and tell its task to close the connection.
    fn displace(&mut self, id: u64) {
        if let Some(slot) = self.remove(id) {
            slot.conn.kill();
        }
    }
}

/// The table of open connections.
pub(crate) struct Slots {
    max: usize,
    max_per_key: usize,
    inner: Mutex<Inner>,
}

impl Slots {
    pub(crate) fn new(max: usize, max_per_key: usize) -> Slots {
        Slots {
            max: max.max(1),
            max_per_key: max_per_key.max(1),
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // The table stays consistent at every step, so a panic elsewhere cannot corrupt it.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Make room for `conn` from `ip` (displacing others if a cap is reached) and record it;
    /// the id is for [`Slots::release`].
    pub(crate) fn admit(&self, ip: IpAddr, conn: Arc<ConnShared>) -> Result<u64, Refused> {
        let key = ClientKey::of(ip);
        let mut inner = self.lock();
        if inner.per_key.get(&key).copied().unwrap_or(0) >= self.max_per_key {
            let id = inner.victim(|s| s.key == key).ok_or(Refused::PerIp)?;
            tracing::debug!(client = %key.0, "per-address connection cap reached: displacing a waiting connection");
            inner.displace(id);
        }
        if inner.slots.len() >= self.max {
            let id = inner.victim(|_| true).ok_or(Refused::Full)?;
            tracing::debug!("connection cap reached: displacing a waiting connection");
            inner.displace(id);
        }
        let id = inner.next_id;
        inner.next_id += 1;
        inner.slots.insert(id, Slot { key, conn });
        *inner.per_key.entry(key).or_insert(0) += 1;
        Ok(id)
    }

    /// Free a slot whose connection ended (no-op if it was displaced already).
    pub(crate) fn release(&self, id: u64) {
        self.lock().remove(id);
    }

    /// Close one waiting connection to get a file descriptor back (accept ran out of them).
    pub(crate) fn shed_one(&self) -> bool {
        let mut inner = self.lock();
        match inner.victim(|_| true) {
            Some(id) => {
                inner.displace(id);
                true
            }
            None => false,
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn ip(last: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(10, 0, 0, last))
    }

    fn conn() -> Arc<ConnShared> {
        Arc::new(ConnShared::new())
    }

    #[test]
    fn at_the_global_cap_the_oldest_pre_auth_connection_gives_way() {
        let slots = Slots::new(3, 3);
        let owner = conn();
        owner.mark_authenticated();
        owner.begin();
        let (a, b) = (conn(), conn());
        slots.admit(ip(1), owner.clone()).unwrap();
        slots.admit(ip(2), a.clone()).unwrap();
        slots.admit(ip(3), b.clone()).unwrap();
        slots.admit(ip(4), conn()).unwrap();
        assert!(a.killed() && !b.killed() && !owner.killed());
        assert_eq!(slots.len(), 3);
    }

    #[test]
    fn idle_authenticated_connections_go_only_after_every_pre_auth_one() {
        let slots = Slots::new(2, 2);
        let idle_owner = conn();
        idle_owner.mark_authenticated();
        let stranger = conn();
        slots.admit(ip(1), idle_owner.clone()).unwrap();
        slots.admit(ip(2), stranger.clone()).unwrap();
        slots.admit(ip(3), conn()).unwrap();
        assert!(stranger.killed() && !idle_owner.killed());
    }

    #[test]
    fn busy_authenticated_connections_are_never_displaced() {
        let slots = Slots::new(2, 2);
        for n in 1..=2 {
            let c = conn();
            c.mark_authenticated();
            c.begin();
            slots.admit(ip(n), c).unwrap();
        }
        assert_eq!(slots.admit(ip(3), conn()), Err(Refused::Full));
        // One ends its request: it is idle now, so a newcomer may take its place.
        let idle = conn();
        idle.mark_authenticated();
        let slots = Slots::new(1, 1);
        slots.admit(ip(1), idle.clone()).unwrap();
        assert!(slots.admit(ip(2), conn()).is_ok());
        assert!(idle.killed());
    }

    #[test]
    fn the_per_address_cap_displaces_only_that_addresses_connections() {
        let slots = Slots::new(100, 2);
        let other = conn();
        slots.admit(ip(9), other.clone()).unwrap();
        let first = conn();
        slots.admit(ip(1), first.clone()).unwrap();
        slots.admit(ip(1), conn()).unwrap();
        slots.admit(ip(1), conn()).unwrap();
        assert!(first.killed() && !other.killed());
        assert_eq!(slots.len(), 3);
        let busy = Slots::new(100, 1);
        let c = conn();
        c.mark_authenticated();
        c.begin();
        busy.admit(ip(1), c).unwrap();
        assert_eq!(busy.admit(ip(1), conn()), Err(Refused::PerIp));
        assert!(busy.admit(ip(2), conn()).is_ok());
    }

    #[test]
    fn released_and_displaced_slots_are_freed_once() {
        let slots = Slots::new(1, 1);
        let id = slots.admit(ip(1), conn()).unwrap();
        slots.admit(ip(1), conn()).unwrap();
        slots.release(id); // already displaced: nothing else goes
        assert_eq!(slots.len(), 1);
        assert!(slots.shed_one());
        assert_eq!(slots.len(), 0);
        assert!(!slots.shed_one());
    }

    #[test]
    fn ipv6_clients_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2::1".parse::<Ipv6Addr>().unwrap().into();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse::<Ipv6Addr>().unwrap().into();
        let c: IpAddr = "2001:db8:1:3::1".parse::<Ipv6Addr>().unwrap().into();
        assert_eq!(ClientKey::of(a), ClientKey::of(b));
        assert_ne!(ClientKey::of(a), ClientKey::of(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse::<Ipv6Addr>().unwrap().into();
        assert_eq!(ClientKey::of(mapped), ClientKey::of(ip(1)));
    }
}
