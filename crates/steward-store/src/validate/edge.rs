//! Input limits for the edge records (`EdgeStore`), so every adapter refuses the same inputs:
//! the one rule of an `EdgeKey` and the fields of a sent message. Like the rest of `validate`,
//! messages name the field and the problem, never the text.

use super::approvals::{action_id, id};
use crate::edge_port::{MAX_EDGE_GENRE_LEN, MAX_EDGE_KEY_LEN};
use crate::{SentMessage, StoreError};

/// 1..=`MAX_EDGE_KEY_LEN` bytes, no control character (NUL, C0, DEL, C1): a platform id is
/// printable, and a control character in one is a parsing bug or an attack on a log.
pub(crate) fn edge_key(raw: &str) -> Result<(), StoreError> {
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

/// 1..=`MAX_EDGE_GENRE_LEN` bytes of `[a-z_]`: a fixed vocabulary named by code, never text.
pub(crate) fn genre(raw: &str) -> Result<(), StoreError> {
    let shaped = !raw.is_empty()
        && raw.len() <= MAX_EDGE_GENRE_LEN
        && raw.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    if shaped {
        Ok(())
    } else {
        Err(StoreError::InvalidInput(format!(
            "sent message genre must be 1..={MAX_EDGE_GENRE_LEN} bytes of a-z and _"
        )))
    }
}

/// A sent message as it is stored, or why it cannot be (its keys are valid by type).
pub(crate) fn sent(sent: &SentMessage) -> Result<(), StoreError> {
    id("sent message trace id", &sent.trace_id)?;
    genre(&sent.genre)?;
    if let Some(action) = &sent.action_id {
        action_id(action)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_key_bounds_are_inclusive() {
        assert!(edge_key("1").is_ok());
        assert!(edge_key("-1001234567890").is_ok());
        assert!(edge_key(&"9".repeat(MAX_EDGE_KEY_LEN)).is_ok());
        assert!(edge_key(&"9".repeat(MAX_EDGE_KEY_LEN + 1)).is_err());
        // 128 bytes of a 2-byte character is within; one more byte is not.
        assert!(edge_key(&"é".repeat(64)).is_ok());
        assert!(edge_key(&format!("{}x", "é".repeat(64))).is_err());
        assert!(edge_key("").is_err());
    }

    #[test]
    fn edge_key_refuses_every_kind_of_control_character() {
        for c in [
            '\0', '\n', '\r', '\t', '\u{1b}', '\u{7f}', '\u{85}', '\u{9f}',
        ] {
            let raw = format!("12{c}34");
            let err = edge_key(&raw).unwrap_err().to_string();
            assert!(err.contains("byte 2"), "{c:?}: {err}");
            assert!(!err.contains("12"), "echoes the key: {err}");
        }
        // Printable but unusual is fine: the key is opaque.
        assert!(edge_key("'; DROP TABLE edge_messages; --").is_ok());
        assert!(edge_key("чат 💬 \u{202e}").is_ok());
    }

    #[test]
    fn genre_is_lower_case_letters_and_underscores() {
        for good in ["chat", "approval", "daily_briefing", "_", &"a".repeat(32)] {
            assert!(genre(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "Chat",
            "chat1",
            "chat-x",
            "chät",
            " chat",
            &"a".repeat(33),
        ] {
            assert!(genre(bad).is_err(), "{bad:?}");
        }
    }
}
