//! Identifiers. A `ConversationId` is validated once at the edge so that nothing
//! downstream has to worry about hostile ids (path tricks, control characters, huge values).
//! A `Principal` is who acts, and only a surface's authentication step makes one.

use crate::PrincipalId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest accepted conversation id, in bytes.
pub const MAX_CONVERSATION_ID_LEN: usize = 128;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("conversation id is empty")]
    Empty,
    #[error("conversation id is longer than {MAX_CONVERSATION_ID_LEN} bytes")]
    TooLong,
    #[error("conversation id may contain only letters, digits and . _ : - (found {0:?})")]
    BadChar(char),
}

/// A conversation (thread). Surfaces map their own platform ids to one of these.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct ConversationId(String);

impl ConversationId {
    /// Validate and wrap an id: 1..=128 bytes of `[A-Za-z0-9._:-]`.
    pub fn parse(raw: &str) -> Result<Self, IdError> {
        if raw.is_empty() {
            return Err(IdError::Empty);
        }
        if raw.len() > MAX_CONVERSATION_ID_LEN {
            return Err(IdError::TooLong);
        }
        if let Some(c) = raw
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-')))
        {
            return Err(IdError::BadChar(c));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ConversationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ConversationId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        ConversationId::parse(&raw).map_err(serde::de::Error::custom)
    }
}

/// Which surface a message arrived on. Policy (later) maps effect × surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Surface {
    Cli,
    Http,
    OpenAiApi,
    Telegram,
    Web,
    System,
    /// A recurring task the owner scheduled, run by the scheduler while nobody watches: it may
    /// read, and a consequential step waits on a card for the owner (never auto-approved).
    Scheduler,
}

impl Surface {
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Cli => "cli",
            Surface::Http => "http",
            Surface::OpenAiApi => "openai_api",
            Surface::Telegram => "telegram",
            Surface::Web => "web",
            Surface::System => "system",
            Surface::Scheduler => "scheduler",
        }
    }
}

/// Who a message or a tool call acts for, as a surface authenticated them (the API token's
/// owner, the local user of the terminal, later a Telegram user on the allow-list).
///
/// One constructor, `authenticated`, for a surface's authentication step; the architecture
/// test (`steward/tests/architecture.rs`) holds its call sites to the surface modules, so
/// core, tools and memory can only pass on a principal they were given. There is no
/// `Deserialize` and no conversion from the `PrincipalId` a stored record holds, other than
/// through that constructor: reading a record back never yields someone to act for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Principal {
    id: PrincipalId,
}

impl Principal {
    /// The principal a surface authenticated as `id`. Call it only where a surface has just
    /// checked a credential (or, for the terminal, the local user) and mapped it to `id`.
    pub fn authenticated(id: PrincipalId) -> Principal {
        Principal { id }
    }

    /// The id to record (audit entries, actions, grants) and to key per-person data by.
    pub fn id(&self) -> &PrincipalId {
        &self.id
    }

    pub fn as_str(&self) -> &str {
        self.id.as_str()
    }
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_ids() {
        assert!(ConversationId::parse("tg:12345").is_ok());
        assert!(ConversationId::parse("a.b_c-d").is_ok());
    }

    #[test]
    fn refuses_hostile_ids() {
        assert_eq!(ConversationId::parse(""), Err(IdError::Empty));
        assert_eq!(
            ConversationId::parse(&"x".repeat(129)),
            Err(IdError::TooLong)
        );
        assert_eq!(ConversationId::parse("../etc"), Err(IdError::BadChar('/')));
        assert_eq!(
            ConversationId::parse("a\u{202e}b"),
            Err(IdError::BadChar('\u{202e}'))
        );
        assert!(serde_json::from_str::<ConversationId>("\"a b\"").is_err());
    }

    #[test]
    fn a_principal_is_written_as_its_id_and_names_it() {
        let id = PrincipalId::parse("tg:4242").unwrap();
        let principal = Principal::authenticated(id.clone());
        assert_eq!(principal.id(), &id);
        assert_eq!(principal.to_string(), "tg:4242");
        assert_eq!(serde_json::to_string(&principal).unwrap(), "\"tg:4242\"");
    }
}
