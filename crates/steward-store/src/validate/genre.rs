//! The one rule for a genre — what kind of message a sent-message record or a score is
//! about (`chat`, `approval`, `briefing`, …) — shared by the edge records and the scores.

use crate::{MAX_EDGE_GENRE_LEN, StoreError};

/// 1..=`MAX_EDGE_GENRE_LEN` bytes of `[a-z_]`: a fixed vocabulary named by code, never text.
/// The one rule for a genre, on a sent message and on a score alike.
pub(crate) fn genre(raw: &str) -> Result<(), StoreError> {
    let shaped = !raw.is_empty()
        && raw.len() <= MAX_EDGE_GENRE_LEN
        && raw.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    if shaped {
        Ok(())
    } else {
        Err(StoreError::InvalidInput(format!(
            "genre must be 1..={MAX_EDGE_GENRE_LEN} bytes of a-z and _"
        )))
    }
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
