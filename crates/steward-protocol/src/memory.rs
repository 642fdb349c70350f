//! What Steward remembers: facts with source trust, notes, and where each came from.
//! Provenance travels with the text so the quality gate can refuse anything that
//! originated in tool output or fetched content.

use crate::ConversationId;
use serde::{Deserialize, Serialize};

/// Who stated a fact. Only the user overwrites a `User` fact; extraction and reflection
/// never do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FactSource {
    User,
    Extracted,
    Reflection,
}

impl FactSource {
    pub fn as_str(self) -> &'static str {
        match self {
            FactSource::User => "user",
            FactSource::Extracted => "extracted",
            FactSource::Reflection => "reflection",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "user" => FactSource::User,
            "extracted" => FactSource::Extracted,
            "reflection" => FactSource::Reflection,
            _ => return None,
        })
    }
}

/// Where a piece of text originated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "origin", rename_all = "snake_case")]
pub enum Provenance {
    /// Typed by the user (a message, the CLI, the API).
    User {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conversation: Option<ConversationId>,
    },
    /// Written by the assistant itself.
    Assistant {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conversation: Option<ConversationId>,
    },
    /// Came out of a tool (including MCP servers).
    ToolOutput { tool: String },
    /// Fetched from the web or another outside source.
    Fetched { url: String },
    /// Produced by the nightly reflection.
    Reflection,
    /// Written by the assistant (a memory tool or extraction) in a turn whose context held
    /// untrusted content from `sources` (tool names such as "fetch_url"). Quarantined: kept
    /// out of every other conversation's context block and recall until the owner confirms
    /// it (which rewrites the provenance to `Assistant`).
    Tainted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conversation: Option<ConversationId>,
        #[serde(default)]
        sources: Vec<String>,
    },
}

impl Provenance {
    /// Text from tools or fetched pages is untrusted: it may never become a fact.
    pub fn is_untrusted(&self) -> bool {
        matches!(
            self,
            Provenance::ToolOutput { .. } | Provenance::Fetched { .. }
        )
    }

    /// Hidden from `viewer`: tainted text that has not been confirmed is visible only in the
    /// conversation it was written in (`viewer` None = outside any conversation: hidden).
    pub fn is_quarantined_for(&self, viewer: Option<&ConversationId>) -> bool {
        match self {
            Provenance::Tainted { conversation, .. } => {
                conversation.is_none() || conversation.as_ref() != viewer
            }
            _ => false,
        }
    }

    /// The untrusted sources behind this text, when it is tainted.
    pub fn taint_sources(&self) -> Option<&[String]> {
        match self {
            Provenance::Tainted { sources, .. } => Some(sources),
            _ => None,
        }
    }
}

/// Which quarantined (tainted, unconfirmed) memory a read may see. Defaults to hiding all
/// of it, so a reader that does not say never sees planted text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Quarantine {
    #[default]
    Hide,
    /// Show only what was written in this conversation.
    ShowFrom(ConversationId),
    /// The owner's own browsing (CLI, API listings): show everything, marked.
    ShowAll,
}

impl Quarantine {
    pub fn hides(&self, p: &Provenance) -> bool {
        match self {
            Quarantine::Hide => p.is_quarantined_for(None),
            Quarantine::ShowFrom(c) => p.is_quarantined_for(Some(c)),
            Quarantine::ShowAll => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Fact {
    pub id: i64,
    /// The user (principal) the fact belongs to.
    pub user: String,
    pub key: String,
    pub value: String,
    pub source: FactSource,
    /// 0.0..=1.0
    pub confidence: f32,
    pub first_seen_ms: i64,
    pub last_seen_ms: i64,
    pub expires_at_ms: Option<i64>,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Note {
    pub id: i64,
    pub user: String,
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub provenance: Provenance,
}

/// The kinds of remembered things recall can search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    Fact,
    Note,
    Learning,
    ReadLater,
    Intention,
}

impl MemoryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryKind::Fact => "fact",
            MemoryKind::Note => "note",
            MemoryKind::Learning => "learning",
            MemoryKind::ReadLater => "read_later",
            MemoryKind::Intention => "intention",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "fact" => MemoryKind::Fact,
            "note" => MemoryKind::Note,
            "learning" => MemoryKind::Learning,
            "read_later" => MemoryKind::ReadLater,
            "intention" => MemoryKind::Intention,
            _ => return None,
        })
    }
}

/// A pointer to one remembered row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MemoryRef {
    pub kind: MemoryKind,
    pub id: i64,
}
