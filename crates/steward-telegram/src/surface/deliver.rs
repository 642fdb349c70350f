//! Messages Steward sends unasked (a reminder, a briefing): core stores them and hands them
//! here for conversations bound to a Telegram chat. Each message sent is recorded with the
//! proactive message's trace id and genre, so a 👍/👎 on it scores the job run that wrote it.
//!
//! Owns: finding the chat, sending (HTML, split, then the message's cards) and recording. Does not own: when to speak (the
//! scheduler) or storing the message (core's delivery port).

use std::sync::Arc;

use steward_core::{Deliver, DeliveryTarget, Proactive};

use super::{Shared, card_view, chats, send};
use crate::calls::TextMode;
use crate::format;

pub struct TelegramDeliver {
    shared: Arc<Shared>,
}

impl TelegramDeliver {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }
}

#[async_trait::async_trait]
impl Deliver for TelegramDeliver {
    async fn deliver(&self, target: &DeliveryTarget, message: &Proactive) -> Result<(), String> {
        let Some(chat) = chats::chat_of(&self.shared, &target.conversation).await else {
            return Err("this conversation has no Telegram chat".to_owned());
        };
        for part in format::telegram_messages(&message.text) {
            let Some(id) = send::send_final(&self.shared, chat, &part, TextMode::Html, None).await
            else {
                return Err("Telegram did not take the message; see the server log".to_owned());
            };
            send::record(
                &self.shared,
                chat,
                id,
                &message.trace_id,
                &message.genre,
                None,
            )
            .await;
        }
        // A card the message is about (a scheduled task's step waiting for the owner) goes
        // under it with its buttons, recorded like any card so a press is checked the same way.
        for action_id in &message.cards {
            card_view::post(&self.shared, chat, action_id, &message.trace_id).await;
        }
        Ok(())
    }
}
