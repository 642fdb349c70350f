//! steward-telegram: the Telegram surface (layer 8, beside steward-server).
//!
//! Owns so far: Bot API access (`client`: frankenstein's types and method trait over the
//! workspace reqwest, configurable base URL), the bot token as a secret (`token`), long
//! polling with backoff (`poller`, `backoff`), the allowlist (`allowlist`), and formatting
//! answers (`format`: Markdown → Telegram HTML, split into messages within 4096 UTF-16
//! units, plain-text streaming drafts). Does not own yet: turning admitted updates into
//! turns (conversations, principals), delivery, approvals, reactions, media, webhooks, the
//! Mini App.

mod allowlist;
mod backoff;
mod client;
mod error;
mod format;
mod poller;
mod token;

pub use allowlist::{
    Admitted, AllowedUsers, Allowlist, BadAllowedUsers, ChatKind, DropReason, Dropped,
    MAX_ALLOWED_USERS, UpdateKind,
};
pub use backoff::{
    BASE as BACKOFF_BASE, CAP as BACKOFF_CAP, RETRY_AFTER_CAP, delay as backoff_delay,
};
pub use client::{BotApi, DEFAULT_API_BASE};
pub use error::{FailureKind, TelegramError};
pub use format::{
    MESSAGE_LIMIT, draft_text, escape_html, render_html, split_html, telegram_messages,
};
pub use frankenstein;
pub use poller::{ALLOWED_UPDATES, LONG_POLL_SECS, Pause, PollEnd, Poller, TokioPause};
pub use token::{BadToken, BotToken};
