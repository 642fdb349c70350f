//! `ConversationTitle`: the name the owner gives a conversation (the read side's rename).
//!
//! Owns the rule: 1..=200 characters once trimmed, no control or bidi characters (a title is
//! shown in lists on every surface, where a newline or an RTL override would garble them).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct ConversationTitle(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TitleError {
    #[error("the title is empty")]
    Empty,
    #[error("the title is longer than {MAX_TITLE_CHARS} characters")]
    TooLong,
    #[error("the title contains a control character (newline, tab, direction override, ...)")]
    Control,
}

impl ConversationTitle {
    /// Validate and wrap a title; surrounding white space is dropped.
    pub fn parse(raw: &str) -> Result<Self, TitleError> {
        let t = raw.trim();
        if t.is_empty() {
            return Err(TitleError::Empty);
        }
        if t.chars().count() > MAX_TITLE_CHARS {
            return Err(TitleError::TooLong);
        }
        if t.chars()
            .any(|c| c.is_control() || crate::untrusted::is_bidi_control(c))
        {
            return Err(TitleError::Control);
        }
        Ok(Self(t.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ConversationTitle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ConversationTitle {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        ConversationTitle::parse(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_rule() {
        assert_eq!(
            ConversationTitle::parse("  Trip to Oslo ")
                .unwrap()
                .as_str(),
            "Trip to Oslo"
        );
        assert_eq!(
            ConversationTitle::parse("ü".repeat(200).as_str())
                .unwrap()
                .as_str()
                .chars()
                .count(),
            200
        );
        assert_eq!(
            ConversationTitle::parse(&"x".repeat(201)),
            Err(TitleError::TooLong)
        );
        assert_eq!(ConversationTitle::parse("   "), Err(TitleError::Empty));
        assert_eq!(ConversationTitle::parse("a\nb"), Err(TitleError::Control));
        assert_eq!(
            ConversationTitle::parse("a\u{202e}b"),
            Err(TitleError::Control)
        );
        assert_eq!(ConversationTitle::parse("a\0b"), Err(TitleError::Control));
        assert!(serde_json::from_str::<ConversationTitle>("\"\"").is_err());
    }
}
