//! steward-telegram: the Telegram surface (layer 8, beside steward-server).
//!
//! Owns so far: Bot API access (`client`: frankenstein's types and method trait over the
//! workspace reqwest, configurable base URL), the bot token as a secret (`token`), long
//! polling with backoff (`poller`, `backoff`), the allowlist (`allowlist`), verifying a Mini
//! App's `initData` (`init_data`: Telegram's HMAC check before any field is read, then
//! freshness and the user id; the caller applies the allowlist), formatting answers
//! (`format`: Markdown → Telegram HTML, split into messages within 4096 UTF-16 units,
//! plain-text streaming drafts), the surface's authentication step (`auth`), the Bot API calls
//! it makes (`calls`), files (`files`: `getFile`, the capped download, `sendVoice` uploads),
//! webhook deliveries (`webhook`: the secret, then the same path as a polled update), and the
//! surface at work (`surface`: updates claimed once, chats bound to conversations, turns
//! streamed, cards with buttons, reactions as feedback, commands, proactive delivery, and
//! media in: photos as image parts, voice notes transcribed — and answered in voice too when
//! text-to-speech is configured —, text and markdown files as notes). Does not own: the HTTP
//! routes of the webhook and the Mini App (steward-server's, through its ports), the Mini
//! App's pages (the web app's), the speech endpoints (steward-llm's `SpeechToText` and
//! `TextToSpeech`, handed in through `SurfaceDeps::speech`).

mod allowlist;
mod auth;
mod backoff;
mod calls;
mod client;
mod error;
mod files;
mod format;
mod init_data;
mod poller;
mod surface;
mod token;
mod webhook;

pub use allowlist::{
    Admitted, AllowedUsers, Allowlist, BadAllowedUsers, ChatKind, DropReason, Dropped,
    MAX_ALLOWED_USERS, UpdateKind,
};
pub use auth::TelegramAuth;
pub use backoff::{
    BASE as BACKOFF_BASE, CAP as BACKOFF_CAP, RETRY_AFTER_CAP, delay as backoff_delay,
};
pub use calls::{Keyboard, TextMode, WebhookInfo};
pub use client::{BotApi, DEFAULT_API_BASE};
pub use error::{FailureKind, TelegramError};
pub use files::{FilePath, RemoteFile};
pub use format::{
    MESSAGE_LIMIT, draft_text, escape_html, render_html, split_html, telegram_messages,
    visible_text,
};
pub use frankenstein;
pub use init_data::{
    INIT_DATA_MAX_AGE_SECS, INIT_DATA_MAX_FUTURE_SECS, InitDataRefusal, MAX_INIT_DATA_BYTES,
    VerifiedInitData, verify_init_data,
};
pub use poller::{ALLOWED_UPDATES, LONG_POLL_SECS, Pause, PollEnd, Poller, TokioPause};
pub use surface::{FeedbackDesk, Pacing, Speech, SurfaceDeps, TelegramDeliver, TelegramSurface};
pub use token::{BadToken, BotToken};
pub use webhook::{
    BadWebhookSecret, MAX_WEBHOOK_BODY, WebhookOutcome, WebhookReceiver, WebhookSecret,
};
