//! Chat ↔ conversation, at the edge: each Telegram chat is bound to one Steward conversation
//! at a time (`/new` binds a fresh one); the conversation id is random and holds no Telegram
//! id, so core never sees one.
//!
//! Owns: the binding rule and new conversation ids. Does not own: storage (`EdgeStore`).

use steward_protocol::{ConversationId, Surface};
use steward_store::EdgeKey;

use super::Shared;

fn chat_key(chat: i64) -> Result<EdgeKey, ()> {
    EdgeKey::parse(&chat.to_string()).map_err(|_| ())
}

/// The conversation `chat` is bound to, binding a new one the first time.
pub(crate) async fn conversation_for(shared: &Shared, chat: i64) -> Result<ConversationId, ()> {
    let key = chat_key(chat)?;
    match shared
        .deps
        .edge
        .chat_conversation(Surface::Telegram, &key)
        .await
    {
        Ok(Some(c)) => Ok(c),
        Ok(None) => new_conversation(shared, chat).await,
        Err(e) => {
            tracing::warn!(error = %e, "could not read a telegram chat's conversation");
            Err(())
        }
    }
}

/// Bind `chat` to a new conversation (the old one stays, with its history).
pub(crate) async fn new_conversation(shared: &Shared, chat: i64) -> Result<ConversationId, ()> {
    let key = chat_key(chat)?;
    let id = ConversationId::parse(&format!("tg-{:016x}", fastrand::u64(..))).map_err(|_| ())?;
    let now = shared.deps.clock.now_ms();
    if let Err(e) = shared
        .deps
        .edge
        .bind_chat(Surface::Telegram, &key, &id, now)
        .await
    {
        tracing::warn!(error = %e, "could not bind a telegram chat to a conversation");
        return Err(());
    }
    Ok(id)
}

/// The chat `conversation` is bound to on Telegram, if any.
pub(crate) async fn chat_of(shared: &Shared, conversation: &ConversationId) -> Option<i64> {
    match shared
        .deps
        .edge
        .conversation_chat(Surface::Telegram, conversation)
        .await
    {
        Ok(found) => found.and_then(|k| k.as_str().parse().ok()),
        Err(e) => {
            tracing::warn!(error = %e, "could not read a conversation's telegram chat");
            None
        }
    }
}
