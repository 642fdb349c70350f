//! One admitted update in: claimed once (an update id seen before — a redelivered webhook, a
//! poll after a restart — does nothing), then routed by kind.
//!
//! Owns: the claim and the routing. Does not own: what each kind does (`commands`, `turn`,
//! `media` for photos, voice notes and files, `cards`, `reactions`).

use std::sync::Arc;

use frankenstein::types::{MaybeInaccessibleMessage, Message};
use frankenstein::updates::UpdateContent;
use steward_protocol::Surface;
use steward_store::EdgeKey;

use super::{MAX_INBOUND_BYTES, Shared, cards, commands, media, reactions, send, turn};
use crate::allowlist::{Admitted, ChatKind};

pub(crate) async fn handle(shared: &Arc<Shared>, update: Admitted) {
    let deps = &shared.deps;
    let Ok(key) = EdgeKey::parse(&update.update_id.to_string()) else {
        return;
    };
    match deps
        .edge
        .claim_update(Surface::Telegram, &key, deps.clock.now_ms())
        .await
    {
        Ok(true) => {}
        Ok(false) => {
            tracing::info!(
                update_id = update.update_id,
                "telegram update seen before; skipped"
            );
            return;
        }
        Err(e) => {
            // Without the claim a redelivery could run twice: drop it, say so in the log.
            tracing::warn!(error = %e, update_id = update.update_id, "could not claim a telegram update; skipped");
            return;
        }
    }
    let principal = deps.auth.principal(&update);
    let chat = update.chat_id;
    let kind = update.chat;
    match update.update.content {
        UpdateContent::Message(message) => {
            on_message(shared, chat, kind, principal, &message).await
        }
        UpdateContent::EditedMessage(_) => {
            send::notice(
                shared,
                chat,
                "Edits are not answered again: send the changed text as a new message.",
            )
            .await;
        }
        UpdateContent::CallbackQuery(query) => {
            let message = match &query.message {
                Some(MaybeInaccessibleMessage::Message(m)) => Some(i64::from(m.message_id)),
                Some(MaybeInaccessibleMessage::InaccessibleMessage(m)) => {
                    Some(i64::from(m.message_id))
                }
                None => None,
            };
            let shared = shared.clone();
            // A confirm runs the action and its follow-up turn: never hold the next update.
            tokio::spawn(async move {
                cards::on_press(&shared, chat, kind, message, principal, &query).await;
            });
        }
        UpdateContent::MessageReaction(r) => {
            reactions::on_reaction(shared, chat, &principal, &r).await;
        }
        _ => {}
    }
}

async fn on_message(
    shared: &Arc<Shared>,
    chat: i64,
    kind: ChatKind,
    principal: steward_protocol::Principal,
    message: &Message,
) {
    let text = message
        .text
        .as_deref()
        .or(message.caption.as_deref())
        .unwrap_or("");
    if let Some(media) = media::Media::of(message) {
        media::on_media(shared, chat, kind, principal, message, media).await;
        return;
    }
    if text.trim().is_empty() {
        return;
    }
    if text.len() > MAX_INBOUND_BYTES {
        send::notice(
            shared,
            chat,
            "That message is too long for me: send it in parts.",
        )
        .await;
        return;
    }
    if let Some(command) = commands::parse(text) {
        commands::run(shared, chat, kind, principal, command).await;
        return;
    }
    turn::start(
        shared,
        chat,
        kind,
        principal,
        text.to_owned(),
        Vec::new(),
        turn::AnswerAs::Text,
    )
    .await;
}
