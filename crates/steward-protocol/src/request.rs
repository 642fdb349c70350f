//! `RequestKey`: the name of one client request, so that a client's retry of it is the same
//! turn (never a second stored message, model call or tool run).
//!
//! Owns: the key's shape and its two replay rules. Does not own: deriving a key from a
//! transport's headers (the surface does, with core's helpers) or the records themselves
//! (steward-store's `TurnRequestStore`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A key is a digest the surface computed (hex, 16..=128 chars): raw client values
/// (idempotency keys, message text) never become store keys themselves.
const MIN_LEN: usize = 16;
const MAX_LEN: usize = 128;

/// When an earlier request with the same key counts as this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Replay {
    /// The client named the request (an `Idempotency-Key`): the same key is always the same
    /// request, for as long as Steward keeps the record (24 hours).
    Always,
    /// The client says this is a retry (e.g. `x-stainless-retry-count` > 0) and the key is
    /// derived from the conversation and content: the same request only if the earlier one
    /// is recent (minutes).
    IfRecent,
    /// A first attempt: record it under the key so a later retry finds it, but never treat
    /// an older record as this request (the owner may say "yes" twice on purpose).
    Never,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RequestKey {
    id: String,
    pub replay: Replay,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a request key is {MIN_LEN}..={MAX_LEN} lowercase hex characters")]
pub struct RequestKeyError;

impl RequestKey {
    pub fn new(id: &str, replay: Replay) -> Result<Self, RequestKeyError> {
        let ok = (MIN_LEN..=MAX_LEN).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !ok {
            return Err(RequestKeyError);
        }
        Ok(Self {
            id: id.to_owned(),
            replay,
        })
    }

    /// The key for a SHA-256 digest: always valid (64 hex digits).
    pub fn from_digest(digest: &[u8; 32], replay: Replay) -> Self {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut id = String::with_capacity(64);
        for b in digest {
            id.push(char::from(DIGITS[usize::from(b >> 4)]));
            id.push(char::from(DIGITS[usize::from(b & 15)]));
        }
        Self { id, replay }
    }

    pub fn id(&self) -> &str {
        &self.id
    }
}

impl fmt::Display for RequestKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hex_digests_of_sane_length() {
        assert!(RequestKey::new(&"a1".repeat(16), Replay::Always).is_ok());
        assert!(RequestKey::new("abc", Replay::Always).is_err());
        assert!(RequestKey::new(&"A1".repeat(16), Replay::Always).is_err());
        assert!(RequestKey::new(&"g1".repeat(16), Replay::Always).is_err());
        assert!(RequestKey::new(&"a".repeat(129), Replay::Always).is_err());
        let k = RequestKey::from_digest(&[0xab; 32], Replay::Never);
        assert_eq!(k.id(), "ab".repeat(32));
        assert_eq!(RequestKey::new(k.id(), Replay::Never).unwrap(), k);
    }
}
