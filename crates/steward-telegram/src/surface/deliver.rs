//! Messages Steward sends unasked (a reminder, a briefing): core stores them and hands them
//! here for conversations bound to a Telegram chat.
//!
//! Owns: finding the chat and sending (HTML, split). Does not own: when to speak (the
//! scheduler) or storing the message (core's delivery port).

use std::sync::Arc;

use steward_core::{Deliver, DeliveryTarget};

use super::{Shared, chats, send};
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
    async fn deliver(&self, target: &DeliveryTarget, text: &str) -> Result<(), String> {
        let Some(chat) = chats::chat_of(&self.shared, &target.conversation).await else {
            return Err("this conversation has no Telegram chat".to_owned());
        };
        for part in format::telegram_messages(text) {
            if send::send_final(&self.shared, chat, &part, TextMode::Html, None)
                .await
                .is_none()
            {
                return Err("Telegram did not take the message; see the server log".to_owned());
            }
        }
        Ok(())
    }
}
