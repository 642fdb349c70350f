//! Reactions as feedback: 👍 or 👎 set on a message this surface sent becomes a
//! `user_feedback` score on the trace that produced it (looked up from the message's record,
//! which also keeps its genre). Other emoji, removed reactions and messages the surface did
//! not record are ignored.
//!
//! Owns: reading a reaction. Does not own: the score (core's `FeedbackDesk`).

use frankenstein::types::{MessageReactionUpdated, ReactionType};
use steward_protocol::{Principal, Surface};
use steward_store::EdgeKey;

use super::Shared;

pub use steward_core::FeedbackDesk;

/// 👍 → Some(true), 👎 → Some(false), anything else None. The newest of several wins.
pub(crate) fn verdict(reactions: &[ReactionType]) -> Option<bool> {
    reactions.iter().rev().find_map(|r| match r {
        ReactionType::Emoji(e) if e.emoji == "👍" => Some(true),
        ReactionType::Emoji(e) if e.emoji == "👎" => Some(false),
        _ => None,
    })
}

pub(crate) async fn on_reaction(
    shared: &Shared,
    chat: i64,
    principal: &Principal,
    reaction: &MessageReactionUpdated,
) {
    let Some(positive) = verdict(&reaction.new_reaction) else {
        return;
    };
    let (Ok(chat_key), Ok(message)) = (
        EdgeKey::parse(&chat.to_string()),
        EdgeKey::parse(&reaction.message_id.to_string()),
    ) else {
        return;
    };
    let sent = match shared
        .deps
        .edge
        .sent_message(Surface::Telegram, &chat_key, &message)
        .await
    {
        Ok(Some(sent)) => sent,
        Ok(None) => {
            tracing::info!("reaction on a telegram message with no recorded turn ignored");
            return;
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not read a reacted telegram message");
            return;
        }
    };
    if let Err(e) = shared
        .deps
        .feedback
        .record_feedback(
            &sent.trace_id,
            positive,
            &sent.genre,
            principal,
            Surface::Telegram,
        )
        .await
    {
        tracing::warn!(error = %e, "could not record a telegram reaction");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frankenstein::types::ReactionTypeEmoji;

    fn emoji(e: &str) -> ReactionType {
        ReactionType::Emoji(ReactionTypeEmoji {
            emoji: e.to_owned(),
        })
    }

    #[test]
    fn thumbs_decide_and_the_newest_wins() {
        assert_eq!(verdict(&[emoji("👍")]), Some(true));
        assert_eq!(verdict(&[emoji("👎")]), Some(false));
        assert_eq!(verdict(&[emoji("👍"), emoji("👎")]), Some(false));
        assert_eq!(
            verdict(&[emoji("🔥"), emoji("👍"), emoji("🎉")]),
            Some(true)
        );
        assert_eq!(verdict(&[emoji("🔥")]), None);
        assert_eq!(verdict(&[]), None, "a removed reaction scores nothing");
    }
}
