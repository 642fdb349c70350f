//! The `EdgeStore` port: what a messaging surface (Telegram now, others later) keeps about its
//! own platform's ids, at the edge, so that nothing in core ever holds one: the inbound update
//! ids it already handled (dedup, also across restarts), which conversation each chat is bound
//! to, and the messages it sent (to find the turn behind a reaction or a button press, and the
//! messages showing an approval card when its state changes). Owns the storage semantics
//! (documented here, enforced by `contract`) and the one rule of an `EdgeKey` (a sent
//! message's other limits are `validate/edge.rs`'s); does not own what a platform id means,
//! how a surface talks to its platform, nor retention policy (the surface calls
//! `forget_updates_before` with its own horizon).
//!
//! Limits (every adapter refuses the rest with `InvalidInput`): an `EdgeKey` is 1..=128 bytes
//! without control characters (a type: invalid ones cannot reach a store); a sent message's
//! trace id 1..=128 bytes without NUL, its genre 1..=32 bytes of `[a-z_]`, its action id an
//! `ActionId`.

use crate::StoreError;
use std::fmt;
use std::sync::Arc;
use steward_protocol::{ConversationId, Surface};

/// Longest `EdgeKey`, in bytes.
pub const MAX_EDGE_KEY_LEN: usize = 128;
/// Longest sent-message genre, in bytes.
pub const MAX_EDGE_GENRE_LEN: usize = 32;
/// Most messages `card_messages` returns (the newest of them, oldest first).
pub const MAX_CARD_MESSAGES: usize = 20;

/// A platform id kept at the edge (a chat, message, update or user id; Telegram's are i64
/// printed in decimal): 1..=`MAX_EDGE_KEY_LEN` bytes, no control characters. Opaque to the
/// store: compared and stored byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EdgeKey(String);

impl EdgeKey {
    /// The key, or `InvalidInput` (the message names the problem, never the text).
    pub fn parse(raw: &str) -> Result<EdgeKey, StoreError> {
        check(raw)?;
        Ok(EdgeKey(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// 1..=`MAX_EDGE_KEY_LEN` bytes, no control character (NUL, C0, DEL, C1): a platform id is
/// printable, and a control character in one is a parsing bug or an attack on a log.
fn check(raw: &str) -> Result<(), StoreError> {
    if raw.is_empty() {
        return Err(StoreError::InvalidInput("edge key is empty".into()));
    }
    if raw.len() > MAX_EDGE_KEY_LEN {
        return Err(StoreError::InvalidInput(format!(
            "edge key is {} bytes; the limit is {MAX_EDGE_KEY_LEN}",
            raw.len()
        )));
    }
    match raw.char_indices().find(|(_, c)| c.is_control()) {
        Some((at, _)) => Err(StoreError::InvalidInput(format!(
            "edge key has a control character at byte {at}"
        ))),
        None => Ok(()),
    }
}

impl fmt::Display for EdgeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One message a surface sent, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentMessage {
    pub surface: Surface,
    pub chat: EdgeKey,
    pub message: EdgeKey,
    /// The turn id / trace id that produced it.
    pub trace_id: String,
    /// What kind of message: "chat", "approval", "briefing", "reminder", ...
    pub genre: String,
    /// Set when the message shows an approval card.
    pub action_id: Option<String>,
    pub at_ms: i64,
}

#[async_trait::async_trait]
pub trait EdgeStore: Send + Sync {
    /// Claim an inbound update id once: true the first time, false for a duplicate, also
    /// across restarts (it is a row). Atomic: of concurrent claims of one key exactly one is
    /// true. Surfaces are separate namespaces.
    async fn claim_update(
        &self,
        surface: Surface,
        update: &EdgeKey,
        at_ms: i64,
    ) -> Result<bool, StoreError>;
    /// Forget the surface's claimed update ids claimed before `before_ms` (retention); returns
    /// how many went.
    async fn forget_updates_before(
        &self,
        surface: Surface,
        before_ms: i64,
    ) -> Result<u64, StoreError>;
    /// The conversation a platform chat is bound to now.
    async fn chat_conversation(
        &self,
        surface: Surface,
        chat: &EdgeKey,
    ) -> Result<Option<ConversationId>, StoreError>;
    /// Bind a chat to a conversation: from now on the chat's conversation (a /new command
    /// starts a new one). Earlier bindings are kept as history, so the conversation the chat
    /// left still finds it (`conversation_chat`). The conversation need not exist yet.
    async fn bind_chat(
        &self,
        surface: Surface,
        chat: &EdgeKey,
        conversation: &ConversationId,
        at_ms: i64,
    ) -> Result<(), StoreError>;
    /// The chat a conversation lives in on that surface (to deliver to it), if any: of every
    /// chat ever bound to it — also one that has since moved on to another conversation —
    /// the most recently bound (latest `at_ms`, then the later call).
    async fn conversation_chat(
        &self,
        surface: Surface,
        conversation: &ConversationId,
    ) -> Result<Option<EdgeKey>, StoreError>;
    /// The chat on that surface the owner was last active in — the one whose conversations
    /// (any ever bound to it, also one it has since left) hold the message appended last —
    /// with the conversation it is bound to now: where Steward speaks unasked when nothing
    /// captured a target (a briefing, a follow-up). None when no conversation bound on the
    /// surface holds a message.
    async fn most_active_chat(
        &self,
        surface: Surface,
    ) -> Result<Option<(EdgeKey, ConversationId)>, StoreError>;
    /// Record a message the surface sent; a second record of the same (surface, chat,
    /// message) replaces the first.
    async fn record_sent(&self, sent: &SentMessage) -> Result<(), StoreError>;
    /// Look a sent message up (a reaction or a button press names chat + message).
    async fn sent_message(
        &self,
        surface: Surface,
        chat: &EdgeKey,
        message: &EdgeKey,
    ) -> Result<Option<SentMessage>, StoreError>;
    /// The messages on that surface showing the approval card `action_id` (to edit them when
    /// its state changes), oldest first (by `at_ms`, then record order): the newest
    /// `MAX_CARD_MESSAGES` of them when there are more, since those are the ones a person sees.
    async fn card_messages(
        &self,
        surface: Surface,
        action_id: &str,
    ) -> Result<Vec<SentMessage>, StoreError>;
}

#[async_trait::async_trait]
impl<T: EdgeStore + ?Sized> EdgeStore for Arc<T> {
    async fn claim_update(
        &self,
        surface: Surface,
        update: &EdgeKey,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        (**self).claim_update(surface, update, at_ms).await
    }

    async fn forget_updates_before(
        &self,
        surface: Surface,
        before_ms: i64,
    ) -> Result<u64, StoreError> {
        (**self).forget_updates_before(surface, before_ms).await
    }

    async fn chat_conversation(
        &self,
        surface: Surface,
        chat: &EdgeKey,
    ) -> Result<Option<ConversationId>, StoreError> {
        (**self).chat_conversation(surface, chat).await
    }

    async fn bind_chat(
        &self,
        surface: Surface,
        chat: &EdgeKey,
        conversation: &ConversationId,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        (**self).bind_chat(surface, chat, conversation, at_ms).await
    }

    async fn conversation_chat(
        &self,
        surface: Surface,
        conversation: &ConversationId,
    ) -> Result<Option<EdgeKey>, StoreError> {
        (**self).conversation_chat(surface, conversation).await
    }

    async fn most_active_chat(
        &self,
        surface: Surface,
    ) -> Result<Option<(EdgeKey, ConversationId)>, StoreError> {
        (**self).most_active_chat(surface).await
    }

    async fn record_sent(&self, sent: &SentMessage) -> Result<(), StoreError> {
        (**self).record_sent(sent).await
    }

    async fn sent_message(
        &self,
        surface: Surface,
        chat: &EdgeKey,
        message: &EdgeKey,
    ) -> Result<Option<SentMessage>, StoreError> {
        (**self).sent_message(surface, chat, message).await
    }

    async fn card_messages(
        &self,
        surface: Surface,
        action_id: &str,
    ) -> Result<Vec<SentMessage>, StoreError> {
        (**self).card_messages(surface, action_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_key_bounds_are_inclusive() {
        assert!(check("1").is_ok());
        assert!(check("-1001234567890").is_ok());
        assert!(check(&"9".repeat(MAX_EDGE_KEY_LEN)).is_ok());
        assert!(check(&"9".repeat(MAX_EDGE_KEY_LEN + 1)).is_err());
        // 128 bytes of a 2-byte character is within; one more byte is not.
        assert!(check(&"é".repeat(64)).is_ok());
        assert!(check(&format!("{}x", "é".repeat(64))).is_err());
        assert!(check("").is_err());
    }

    #[test]
    fn edge_key_refuses_every_kind_of_control_character() {
        for c in [
            '\0', '\n', '\r', '\t', '\u{1b}', '\u{7f}', '\u{85}', '\u{9f}',
        ] {
            let raw = format!("12{c}34");
            let err = check(&raw).unwrap_err().to_string();
            assert!(err.contains("byte 2"), "{c:?}: {err}");
            assert!(!err.contains("12"), "echoes the key: {err}");
        }
        // Printable but unusual is fine: the key is opaque.
        assert!(check("'; DROP TABLE edge_messages; --").is_ok());
        assert!(check("чат 💬 \u{202e}").is_ok());
    }

    proptest::proptest! {
        /// Any text is a key exactly when the rule says so, and a key is its text.
        #[test]
        fn a_key_is_exactly_the_text_the_rule_allows(
            raw in proptest::prop_oneof![
                proptest::prelude::any::<String>(),
                "-?[0-9]{0,140}",
                "[0-9\u{0}-\u{1f}\u{7f}-\u{9f}]{1,4}",
            ]
        ) {
            let allowed = (1..=MAX_EDGE_KEY_LEN).contains(&raw.len())
                && !raw.chars().any(char::is_control);
            match EdgeKey::parse(&raw) {
                Ok(key) => {
                    proptest::prop_assert!(allowed);
                    proptest::prop_assert_eq!(key.as_str(), raw.as_str());
                }
                Err(StoreError::InvalidInput(_)) => proptest::prop_assert!(!allowed),
                Err(e) => proptest::prop_assert!(false, "unexpected error {e}"),
            }
        }
    }
}
