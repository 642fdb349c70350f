//! Validated values that more than one surface accepts: fact keys, tags, tool names, the
//! opaque ids of actions, grants and turns, the recorded id of a principal, job names, the ids
//! of scheduled reminders and tasks. Each has exactly one rule, here; HTTP, the tools,
//! the MCP server, the CLI and the store's write checks all call its `parse`, so they refuse
//! the same input with the same words.
//!
//! Owns: the rules and their limits. Does not own: where a value comes from (a path, a JSON
//! argument, a command line) or what a caller does with a refusal. Errors name the rule,
//! never the refused text: a fact key or tag typed by mistake may be a secret.
//!
//! Stored rows written under an older, looser rule (tags of 33..=64 bytes or with non-ASCII
//! letters from reflection, notes with more than `MAX_TAGS` tags) still load: only new writes
//! and lookups by value are checked.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest fact key, in bytes (keys are ASCII, so also in characters).
pub const MAX_FACT_KEY_LEN: usize = 64;
/// Longest tag, in bytes (tags are ASCII).
pub const MAX_TAG_LEN: usize = 32;
/// Most tags on one note or read-later item, or in one filter.
pub const MAX_TAGS: usize = 10;
/// Longest tool name, in bytes (OpenAI's function-name limit, the strictest provider's).
pub const MAX_TOOL_NAME_LEN: usize = 64;
/// Longest action, grant or turn id, in bytes.
pub const MAX_OPAQUE_ID_LEN: usize = 128;
/// Longest principal id, in bytes.
pub const MAX_PRINCIPAL_ID_LEN: usize = 128;
/// Longest job name, in bytes.
pub const MAX_JOB_NAME_LEN: usize = 64;
/// Longest id of a scheduled reminder or task, in bytes (the store's id limit).
pub const MAX_SCHEDULED_ID_LEN: usize = 128;

/// Which value a `ValueError` is about; its `Display` is the value's name in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    FactKey,
    Tag,
    ToolName,
    ActionId,
    GrantId,
    TurnId,
    PrincipalId,
    JobName,
    ScheduledId,
}

impl ValueKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ValueKind::FactKey => "fact key",
            ValueKind::Tag => "tag",
            ValueKind::ToolName => "tool name",
            ValueKind::ActionId => "action id",
            ValueKind::GrantId => "grant id",
            ValueKind::TurnId => "turn id",
            ValueKind::PrincipalId => "principal id",
            ValueKind::JobName => "job name",
            ValueKind::ScheduledId => "reminder or task id",
        }
    }

    /// The rule, as a person reads it.
    pub fn rule(self) -> &'static str {
        match self {
            ValueKind::FactKey => "1 to 64 of a-z, 0-9, _ and .",
            ValueKind::Tag => "1 to 32 of a-z, 0-9, _ and -",
            ValueKind::ToolName => "1 to 64 of a-z, 0-9 and _",
            ValueKind::ActionId | ValueKind::GrantId | ValueKind::TurnId => {
                "1 to 128 letters, digits or -"
            }
            ValueKind::PrincipalId => "1 to 128 letters, digits, ., _, :, @ or -",
            ValueKind::JobName => "1 to 64 of a-z, 0-9, _ and -",
            ValueKind::ScheduledId => "1 to 128 letters, digits, _ or -",
        }
    }

    fn max_len(self) -> usize {
        match self {
            ValueKind::FactKey => MAX_FACT_KEY_LEN,
            ValueKind::Tag => MAX_TAG_LEN,
            ValueKind::ToolName => MAX_TOOL_NAME_LEN,
            ValueKind::ActionId | ValueKind::GrantId | ValueKind::TurnId => MAX_OPAQUE_ID_LEN,
            ValueKind::PrincipalId => MAX_PRINCIPAL_ID_LEN,
            ValueKind::JobName => MAX_JOB_NAME_LEN,
            ValueKind::ScheduledId => MAX_SCHEDULED_ID_LEN,
        }
    }

    fn allows(self, b: u8) -> bool {
        match self {
            ValueKind::FactKey => {
                b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.".contains(&b)
            }
            // A job name has a tag's characters (it is a config key's last part), longer.
            ValueKind::Tag | ValueKind::JobName => {
                b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-".contains(&b)
            }
            ValueKind::ToolName => b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_',
            ValueKind::ActionId | ValueKind::GrantId | ValueKind::TurnId => {
                b.is_ascii_alphanumeric() || b == b'-'
            }
            // Room for a surface's namespaced ids: `tg:12345`, `web:ann`, `ann@example.org`.
            ValueKind::PrincipalId => b.is_ascii_alphanumeric() || b"._:@-".contains(&b),
            // Steward makes them as 32 hex digits; room for `_` beside the opaque ids' `-`.
            ValueKind::ScheduledId => b.is_ascii_alphanumeric() || b"_-".contains(&b),
        }
    }

    /// `raw` against this value's rule.
    fn check(self, raw: &str) -> Result<(), ValueError> {
        let problem = if raw.is_empty() {
            Problem::Empty
        } else if raw.len() > self.max_len() {
            Problem::TooLong
        } else if !raw.bytes().all(|b| self.allows(b)) {
            Problem::BadChar
        } else {
            return Ok(());
        };
        Err(ValueError::Invalid {
            kind: self,
            problem,
        })
    }
}

impl fmt::Display for ValueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What is wrong with a refused value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Problem {
    Empty,
    TooLong,
    BadChar,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Problem::Empty => "it is empty",
            Problem::TooLong => "it is too long",
            Problem::BadChar => "it has a character not allowed",
        })
    }
}

/// A refused value. The message names the value and its rule, never the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("invalid {kind}: {} ({problem})", kind.rule())]
    Invalid { kind: ValueKind, problem: Problem },
    #[error("at most {MAX_TAGS} tags are allowed")]
    TooManyTags,
}

impl ValueError {
    /// The message every surface shows for any refused `kind`, whatever the problem: for
    /// callers and tests that match on wording.
    pub fn rule_message(kind: ValueKind) -> String {
        format!("invalid {kind}: {}", kind.rule())
    }
}

/// One newtype per value: `parse`, `as_str`, `Display`, and serde that re-checks on the way in.
macro_rules! value {
    ($(#[$doc:meta])* $name:ident, $kind:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Wrap `raw` if it follows the rule (see the type's doc); no trimming or case
            /// folding.
            pub fn parse(raw: &str) -> Result<Self, ValueError> {
                $kind.check(raw)?;
                Ok(Self(raw.to_owned()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(d)?;
                $name::parse(&raw).map_err(serde::de::Error::custom)
            }
        }
    };
}

impl TurnId {
    /// A turn id from 128 bits (a fresh UUID's): 32 lowercase hex digits, always valid.
    pub fn from_u128(bits: u128) -> Self {
        Self(format!("{bits:032x}"))
    }
}

value!(
    /// A fact's key: 1..=64 bytes of `[a-z0-9_.]` (`home.city`). Also the shape of a
    /// retention prefix, so no sweep pattern can be wider than a key.
    FactKey,
    ValueKind::FactKey
);
value!(
    /// A note's or read-later item's tag: 1..=32 bytes of `[a-z0-9_-]`. People type tags in
    /// any case and with spaces around them: `Tag::normalise` folds that first.
    Tag,
    ValueKind::Tag
);
value!(
    /// A tool's registry name: 1..=64 bytes of `[a-z0-9_]` (MCP tools as `server__tool`).
    ToolName,
    ValueKind::ToolName
);
value!(
    /// A pending action's id (a UUID when Steward makes it): 1..=128 of `[A-Za-z0-9-]`.
    ActionId,
    ValueKind::ActionId
);
value!(
    /// A grant's id (a UUID when Steward makes it): 1..=128 of `[A-Za-z0-9-]`.
    GrantId,
    ValueKind::GrantId
);
value!(
    /// A turn's id (32 hex digits when Steward makes it): 1..=128 of `[A-Za-z0-9-]`.
    TurnId,
    ValueKind::TurnId
);

value!(
    /// Whom a stored record names (an action's creator, an audit entry's decider, a grant's
    /// maker): 1..=128 of `[A-Za-z0-9._:@-]`. A record only: it cannot act. The principal a
    /// turn or a call acts for is an `ids::Principal`, which only a surface's authentication
    /// makes, so reading a record back is never a way to forge one.
    PrincipalId,
    ValueKind::PrincipalId
);

value!(
    /// A scheduled job's name (`briefing`, `weekly-recap`, `task-3f2a…`): 1..=64 bytes of
    /// `[a-z0-9_-]`. Also the last part of its `jobs.NAME.*` configuration keys.
    JobName,
    ValueKind::JobName
);

value!(
    /// A scheduled reminder's or recurring task's id, as a caller names one to cancel it (32
    /// hex digits when Steward makes it): 1..=128 of `[A-Za-z0-9_-]`. The store keeps any id
    /// of up to 128 bytes; lookups by a caller's id go through this rule, so a path's `../` or
    /// a control byte never reaches it.
    ScheduledId,
    ValueKind::ScheduledId
);

impl PrincipalId {
    /// The id Steward records for its own acts (an action expiring, the sweep). No surface
    /// authenticates anyone under it (`steward`'s configuration refuses it as the owner).
    pub const SYSTEM: &'static str = "system";

    pub fn system() -> PrincipalId {
        PrincipalId(Self::SYSTEM.to_owned())
    }
}

impl Tag {
    /// A tag as a person or model typed it: trimmed and lowercased, then the rule.
    pub fn normalise(raw: &str) -> Result<Self, ValueError> {
        Self::parse(&raw.trim().to_lowercase())
    }

    /// A set of tags as typed: each through `normalise`, duplicates dropped (first kept), at
    /// most `MAX_TAGS` distinct ones.
    pub fn normalise_all<S: AsRef<str>>(
        raw: impl IntoIterator<Item = S>,
    ) -> Result<Vec<Tag>, ValueError> {
        let mut out: Vec<Tag> = Vec::new();
        for item in raw {
            let tag = Self::normalise(item.as_ref())?;
            if !out.contains(&tag) {
                if out.len() == MAX_TAGS {
                    return Err(ValueError::TooManyTags);
                }
                out.push(tag);
            }
        }
        Ok(out)
    }

    /// As `normalise_all`, as plain strings (what the store's rows hold).
    pub fn normalise_strings<S: AsRef<str>>(
        raw: impl IntoIterator<Item = S>,
    ) -> Result<Vec<String>, ValueError> {
        Ok(Self::normalise_all(raw)?
            .into_iter()
            .map(Tag::into_string)
            .collect())
    }
}

#[cfg(test)]
#[path = "values_tests.rs"]
mod tests;
