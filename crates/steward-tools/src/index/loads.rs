//! `Loads`: which on-demand tools each conversation has loaded, so their schemas keep being
//! sent on later calls and turns without another `load_tools` round trip.
//!
//! Kept in memory, not in the store: it is a cache of the model's choices; losing it on a
//! restart costs one extra round trip, while persisting it would cost a write per turn and a
//! schema migration. Bounded three ways: a tool unused for `keep` is dropped, a conversation
//! keeps at most `MAX_PER_CONVERSATION` tools (least recently used goes), and at most
//! `MAX_CONVERSATIONS` conversations are remembered (least recently active goes).
//!
//! Order: tools are listed in the order they were first loaded, so loading one more only
//! appends to the request's tool list (the bytes before it — and provider prompt caches —
//! stay the same). Does not own which names are loadable (the index filters on use).

use crate::source::lock;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use steward_protocol::ConversationId;

/// Loaded tools per conversation; the least recently used goes past this.
pub const MAX_PER_CONVERSATION: usize = 16;
/// Conversations remembered; the least recently active goes past this.
pub const MAX_CONVERSATIONS: usize = 512;
/// A loaded tool unused this long is dropped (its schema stops being sent).
pub const DEFAULT_KEEP: Duration = Duration::from_secs(2 * 60 * 60);

pub struct Loads {
    keep: Duration,
    state: Mutex<BTreeMap<ConversationId, Loaded>>,
}

struct Loaded {
    /// (name, last used), in the order first loaded.
    tools: Vec<(String, Instant)>,
    touched: Instant,
}

impl Default for Loads {
    fn default() -> Self {
        Loads::new(DEFAULT_KEEP)
    }
}

impl std::fmt::Debug for Loads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loads")
            .field("keep", &self.keep)
            .field("conversations", &lock(&self.state).len())
            .finish()
    }
}

impl Loads {
    /// `keep`: how long a loaded tool stays loaded without being used.
    pub fn new(keep: Duration) -> Loads {
        Loads {
            keep,
            state: Mutex::new(BTreeMap::new()),
        }
    }

    /// Mark tools as loaded (or used again) in a conversation. Callers pass only names
    /// that are on demand; anything else would just take a slot.
    pub fn mark(&self, conversation: &ConversationId, names: &[String]) {
        if names.is_empty() {
            return;
        }
        let now = Instant::now();
        let mut state = lock(&self.state);
        if !state.contains_key(conversation) && state.len() >= MAX_CONVERSATIONS {
            let oldest = state
                .iter()
                .min_by_key(|(_, l)| l.touched)
                .map(|(c, _)| c.clone());
            if let Some(oldest) = oldest {
                state.remove(&oldest);
            }
        }
        let loaded = state.entry(conversation.clone()).or_insert(Loaded {
            tools: Vec::new(),
            touched: now,
        });
        loaded.touched = now;
        for name in names {
            match loaded.tools.iter_mut().find(|(n, _)| n == name) {
                Some((_, used)) => *used = now,
                None => loaded.tools.push((name.clone(), now)),
            }
        }
        while loaded.tools.len() > MAX_PER_CONVERSATION {
            let lru = loaded
                .tools
                .iter()
                .enumerate()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(i, _)| i)
                .unwrap_or(0);
            loaded.tools.remove(lru);
        }
    }

    /// The conversation's loaded tools in first-loaded order, dropping those unused for
    /// longer than `keep`.
    pub fn loaded(&self, conversation: &ConversationId) -> Vec<String> {
        let mut state = lock(&self.state);
        let Some(loaded) = state.get_mut(conversation) else {
            return Vec::new();
        };
        let keep = self.keep;
        loaded.tools.retain(|(_, used)| used.elapsed() < keep);
        let names = loaded.tools.iter().map(|(n, _)| n.clone()).collect();
        if loaded.tools.is_empty() {
            state.remove(conversation);
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(s: &str) -> ConversationId {
        ConversationId::parse(s).unwrap()
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn keeps_first_loaded_order_and_ignores_repeats() {
        let loads = Loads::default();
        let c = conv("c1");
        loads.mark(&c, &names(&["b", "a"]));
        loads.mark(&c, &names(&["c", "a"]));
        assert_eq!(loads.loaded(&c), names(&["b", "a", "c"]));
        assert!(loads.loaded(&conv("other")).is_empty());
    }

    #[test]
    fn least_recently_used_goes_past_the_cap() {
        let loads = Loads::default();
        let c = conv("c1");
        let many: Vec<String> = (0..MAX_PER_CONVERSATION).map(|i| format!("t{i}")).collect();
        loads.mark(&c, &many);
        std::thread::sleep(Duration::from_millis(2));
        // t0 used again, so t1 is now the least recently used.
        loads.mark(&c, &names(&["t0"]));
        std::thread::sleep(Duration::from_millis(2));
        loads.mark(&c, &names(&["new"]));
        let now = loads.loaded(&c);
        assert_eq!(now.len(), MAX_PER_CONVERSATION);
        assert!(now.contains(&"t0".to_owned()) && now.contains(&"new".to_owned()));
        assert!(!now.contains(&"t1".to_owned()), "{now:?}");
    }

    #[test]
    fn unused_tools_expire() {
        let loads = Loads::new(Duration::ZERO);
        let c = conv("c1");
        loads.mark(&c, &names(&["a"]));
        assert!(loads.loaded(&c).is_empty());
    }

    #[test]
    fn conversations_are_bounded() {
        let loads = Loads::default();
        for i in 0..MAX_CONVERSATIONS + 5 {
            loads.mark(&conv(&format!("c{i}")), &names(&["a"]));
        }
        assert_eq!(lock(&loads.state).len(), MAX_CONVERSATIONS);
        // The newest survive.
        let last = conv(&format!("c{}", MAX_CONVERSATIONS + 4));
        assert_eq!(loads.loaded(&last), names(&["a"]));
    }
}
