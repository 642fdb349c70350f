//! Who may talk to the bot: numeric Telegram user ids, and whether groups are served.
//!
//! Owns: `AllowedUsers` (the `telegram.allowed_users` rule: comma-separated positive
//! integers), `Allowlist::admit` (an update in, `Admitted` or `Dropped` out). The rule is
//! closed by default: **an empty allowlist lets nobody in**; groups only when enabled, and
//! then only allowlisted senders; channels, anonymous senders and update kinds the bot does
//! not handle never. `Dropped::log` is how a drop is logged. Does not own: what an admitted sender
//! becomes inside Steward (a principal, made by the surface's authentication step).

use std::collections::BTreeSet;

use frankenstein::types::{Chat, ChatType, MaybeInaccessibleMessage};
use frankenstein::updates::{Update, UpdateContent};

/// Most ids one allowlist holds: it names people, not a directory.
pub const MAX_ALLOWED_USERS: usize = 1000;

/// The allowlisted Telegram user ids (`telegram.allowed_users`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedUsers(BTreeSet<u64>);

/// Why an allowlist text was refused; never quotes the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Telegram user ids are positive integers separated by commas, e.g. `123456789, 987654321` \
     (at most 1000)"
)]
pub struct BadAllowedUsers;

impl AllowedUsers {
    /// The rule's words, for config errors and docs.
    pub const RULE: &str = "Telegram user ids (positive integers) separated by commas, e.g. `123456789, 987654321`; at most 1000";

    /// `"1, 2,3"` → {1, 2, 3}. An empty item, a sign, zero, a non-digit, an id past `i64`
    /// (Telegram's ids are signed 64-bit) or more than `MAX_ALLOWED_USERS` ids is refused.
    pub fn parse(raw: &str) -> Result<Self, BadAllowedUsers> {
        let mut ids = BTreeSet::new();
        for item in raw.split(',') {
            let item = item.trim();
            if item.is_empty() || !item.bytes().all(|b| b.is_ascii_digit()) {
                return Err(BadAllowedUsers);
            }
            let id: u64 = item.parse().map_err(|_| BadAllowedUsers)?;
            if id == 0 || i64::try_from(id).is_err() {
                return Err(BadAllowedUsers);
            }
            ids.insert(id);
        }
        if ids.len() > MAX_ALLOWED_USERS {
            return Err(BadAllowedUsers);
        }
        Ok(Self(ids))
    }

    pub fn contains(&self, id: u64) -> bool {
        self.0.contains(&id)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Where an admitted update was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatKind {
    Private,
    /// A group or supergroup (only with `telegram.allow_groups`).
    Group,
}

/// Which of the polled update kinds it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateKind {
    Message,
    EditedMessage,
    CallbackQuery,
    MessageReaction,
}

/// An update from an allowlisted sender. Platform ids stay in this crate's types: the
/// surface maps them to Steward's ids at the edge. `Debug` would show the content: do not
/// log it.
#[derive(Debug, Clone, PartialEq)]
pub struct Admitted {
    pub update_id: u32,
    pub kind: UpdateKind,
    pub sender: u64,
    pub chat_id: i64,
    pub chat: ChatKind,
    pub update: Update,
}

/// Why an update was dropped (logged without content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// The sender is not on the allowlist (or the allowlist is empty).
    NotAllowlisted,
    /// A group or supergroup while `telegram.allow_groups` is off.
    GroupsDisabled,
    /// A channel post or a chat kind the bot does not serve.
    Channel,
    /// No user behind it (an anonymous admin, a message on behalf of a chat).
    NoSender,
    /// An update kind the bot does not handle (inline queries, polls, …).
    Unhandled,
}

/// A dropped update: what may be logged about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    pub update_id: u32,
    pub reason: DropReason,
    /// The sender's id when there was one: the owner reads it in the log to allowlist
    /// themselves.
    pub sender: Option<u64>,
}

impl Dropped {
    /// The drop in the log, at info: the sender's id and the reason, never the content.
    pub(crate) fn log(&self) {
        tracing::info!(
            update_id = self.update_id,
            reason = ?self.reason,
            sender = self.sender,
            "telegram update dropped"
        );
    }
}

/// The allowlist and the group switch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowlist {
    pub users: AllowedUsers,
    pub allow_groups: bool,
}

impl Allowlist {
    pub fn admit(&self, update: Update) -> Result<Admitted, Dropped> {
        let update_id = update.update_id;
        let drop = |reason, sender| Dropped {
            update_id,
            reason,
            sender,
        };
        let (kind, sender, chat): (UpdateKind, Option<u64>, Option<&Chat>) = match &update.content {
            UpdateContent::Message(m) => (
                UpdateKind::Message,
                m.from.as_ref().map(|u| u.id),
                Some(&m.chat),
            ),
            UpdateContent::EditedMessage(m) => (
                UpdateKind::EditedMessage,
                m.from.as_ref().map(|u| u.id),
                Some(&m.chat),
            ),
            UpdateContent::CallbackQuery(q) => (
                UpdateKind::CallbackQuery,
                Some(q.from.id),
                q.message.as_ref().map(|m| match m {
                    MaybeInaccessibleMessage::Message(m) => &m.chat,
                    MaybeInaccessibleMessage::InaccessibleMessage(m) => &m.chat,
                }),
            ),
            UpdateContent::MessageReaction(r) => (
                UpdateKind::MessageReaction,
                r.user.as_ref().map(|u| u.id),
                Some(&r.chat),
            ),
            UpdateContent::ChannelPost(_) | UpdateContent::EditedChannelPost(_) => {
                return Err(drop(DropReason::Channel, None));
            }
            _ => return Err(drop(DropReason::Unhandled, None)),
        };
        let Some(sender) = sender else {
            return Err(drop(DropReason::NoSender, None));
        };
        // A button under an inline-mode message has no chat: not a conversation of ours.
        let Some(chat) = chat else {
            return Err(drop(DropReason::Unhandled, Some(sender)));
        };
        let chat_kind = match chat.type_field {
            ChatType::Private => ChatKind::Private,
            ChatType::Group | ChatType::Supergroup => ChatKind::Group,
            ChatType::Channel => return Err(drop(DropReason::Channel, Some(sender))),
        };
        if chat_kind == ChatKind::Group && !self.allow_groups {
            return Err(drop(DropReason::GroupsDisabled, Some(sender)));
        }
        if !self.users.contains(sender) {
            return Err(drop(DropReason::NotAllowlisted, Some(sender)));
        }
        Ok(Admitted {
            update_id,
            kind,
            sender,
            chat_id: chat.id,
            chat: chat_kind,
            update,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlists_parse_positive_ids_only() {
        let list = AllowedUsers::parse(" 12, 7,12 ").unwrap();
        assert!(list.contains(12) && list.contains(7) && !list.contains(1));
        for bad in [
            "",
            " ",
            "1,,2",
            "1,",
            "0",
            "-5",
            "+5",
            "1.5",
            "12a",
            "9223372036854775808",
            "99999999999999999999999",
            "1;2",
        ] {
            assert_eq!(AllowedUsers::parse(bad), Err(BadAllowedUsers), "{bad:?}");
        }
        assert!(AllowedUsers::parse("9223372036854775807").is_ok());
        let many: Vec<String> = (1..=1001).map(|n| n.to_string()).collect();
        assert!(AllowedUsers::parse(&many.join(",")).is_err());
        assert!(AllowedUsers::parse(&many[..1000].join(",")).is_ok());
    }
}
