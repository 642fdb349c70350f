//! The Bot API calls the surface makes, as small functions over `BotApi::request`: send and
//! edit a text (plain or HTML, with or without an inline keyboard), stream a draft, show
//! "typing…", answer a button press. Parameters are the Bot API's JSON objects (the reference's
//! field names); answers are read for the one field the surface needs (`message_id`).
//!
//! Owns: those calls and the keyboard's JSON. Does not own: when to call them (`surface`), or
//! retrying (`send_final` in `surface::reply` retries what must arrive).

use frankenstein::AsyncTelegramApi;
use frankenstein::response::MethodResponse;
use serde_json::{Value, json};

use crate::client::BotApi;
use crate::error::TelegramError;

/// How Telegram parses a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextMode {
    /// No entities: shown exactly as sent (cards, drafts, errors).
    Plain,
    /// Telegram's HTML subset (`format::render_html`'s output).
    Html,
}

/// What `getWebhookInfo` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookInfo {
    /// Empty when no webhook is set.
    pub url: String,
    pub last_error: Option<String>,
    pub pending: u64,
}

/// One button row after another; each button a label and its callback data (≤ 64 bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keyboard {
    pub rows: Vec<Vec<(String, String)>>,
}

impl Keyboard {
    fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|row| {
                Value::Array(
                    row.iter()
                        .map(|(text, data)| json!({"text": text, "callback_data": data}))
                        .collect(),
                )
            })
            .collect();
        json!({ "inline_keyboard": rows })
    }
}

fn text_params(chat: i64, text: &str, mode: TextMode) -> Value {
    let mut params = json!({
        "chat_id": chat,
        "text": text,
        // Link previews would fetch a model-chosen URL on the owner's phone.
        "link_preview_options": {"is_disabled": true},
    });
    if mode == TextMode::Html {
        params["parse_mode"] = json!("HTML");
    }
    params
}

impl BotApi {
    async fn call(&self, method: &str, params: Value) -> Result<Value, TelegramError> {
        let answer: MethodResponse<Value> = self.request(method, Some(params)).await?;
        Ok(answer.result)
    }

    /// `sendMessage`; the new message's id.
    pub async fn send_text(
        &self,
        chat: i64,
        text: &str,
        mode: TextMode,
        keyboard: Option<&Keyboard>,
    ) -> Result<i64, TelegramError> {
        let mut params = text_params(chat, text, mode);
        if let Some(k) = keyboard {
            params["reply_markup"] = k.to_json();
        }
        let sent = self.call("sendMessage", params).await?;
        sent.get("message_id")
            .and_then(Value::as_i64)
            .ok_or_else(|| TelegramError::Decode {
                method: "sendMessage".to_owned(),
                reason: "no message_id in the answer".to_owned(),
            })
    }

    /// `editMessageText`; `keyboard: None` removes any buttons.
    pub async fn edit_text(
        &self,
        chat: i64,
        message: i64,
        text: &str,
        mode: TextMode,
        keyboard: Option<&Keyboard>,
    ) -> Result<(), TelegramError> {
        let mut params = text_params(chat, text, mode);
        params["message_id"] = json!(message);
        params["reply_markup"] =
            keyboard.map_or_else(|| Keyboard::default().to_json(), Keyboard::to_json);
        self.call("editMessageText", params).await.map(drop)
    }

    /// `editMessageReplyMarkup`: attach (or with `None` remove) a message's buttons.
    pub async fn set_keyboard(
        &self,
        chat: i64,
        message: i64,
        keyboard: Option<&Keyboard>,
    ) -> Result<(), TelegramError> {
        let markup = keyboard.map_or_else(|| Keyboard::default().to_json(), Keyboard::to_json);
        let params = json!({"chat_id": chat, "message_id": message, "reply_markup": markup});
        self.call("editMessageReplyMarkup", params).await.map(drop)
    }

    /// `sendMessageDraft` (private chats): the partial answer, animated in place; `draft_id`
    /// non-zero and the same for one answer.
    pub async fn send_draft(
        &self,
        chat: i64,
        draft_id: i32,
        text: &str,
    ) -> Result<(), TelegramError> {
        let params = json!({"chat_id": chat, "draft_id": draft_id, "text": text});
        self.call("sendMessageDraft", params).await.map(drop)
    }

    /// `sendChatAction` typing: shown for about five seconds.
    pub async fn typing(&self, chat: i64) -> Result<(), TelegramError> {
        let params = json!({"chat_id": chat, "action": "typing"});
        self.call("sendChatAction", params).await.map(drop)
    }

    /// `getMe`: the bot's `@username` (the token works).
    pub async fn bot_username(&self) -> Result<String, TelegramError> {
        let me = self.call("getMe", json!({})).await?;
        Ok(me
            .get("username")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned())
    }

    /// `getWebhookInfo`: the webhook URL set (empty: none) and its last delivery error.
    pub async fn webhook_info(&self) -> Result<WebhookInfo, TelegramError> {
        let info = self.call("getWebhookInfo", json!({})).await?;
        let text = |k: &str| info.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        Ok(WebhookInfo {
            url: text("url"),
            last_error: Some(text("last_error_message")).filter(|e| !e.is_empty()),
            pending: info
                .get("pending_update_count")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        })
    }

    /// `setWebhook` with the secret Telegram sends back in `X-Telegram-Bot-Api-Secret-Token`
    /// and the same update kinds long polling asks for.
    pub async fn set_webhook(&self, url: &str, secret: &str) -> Result<(), TelegramError> {
        let params = json!({
            "url": url,
            "secret_token": secret,
            "allowed_updates": crate::poller::ALLOWED_UPDATES,
        });
        self.call("setWebhook", params).await.map(drop)
    }

    /// `deleteWebhook` (pending updates kept): `getUpdates` is refused while one is set.
    pub async fn delete_webhook(&self) -> Result<(), TelegramError> {
        self.call("deleteWebhook", json!({"drop_pending_updates": false}))
            .await
            .map(drop)
    }

    /// `answerCallbackQuery`: stops the button's spinner, with a short notice.
    pub async fn answer_callback(&self, id: &str, text: &str) -> Result<(), TelegramError> {
        let params = json!({"callback_query_id": id, "text": text});
        self.call("answerCallbackQuery", params).await.map(drop)
    }
}
