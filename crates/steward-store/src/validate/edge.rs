//! Input limits for the edge records (`EdgeStore`), so every adapter refuses the same inputs:
//! the fields of a sent message (an `EdgeKey`'s one rule is its type's, in `edge_port.rs`). Like the rest of `validate`,
//! messages name the field and the problem, never the text.

use super::approvals::{action_id, id};
use crate::{MAX_EDGE_GENRE_LEN, SentMessage, StoreError};

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
