//! Sending what must arrive, and remembering it: a message sent with retries (flood control
//! and outages waited out a few times; HTML Telegram cannot parse resent as plain text), each
//! sent message recorded with the trace id of the turn behind it and its genre, and notices.
//!
//! Owns: those primitives, which every other part of the surface sends through. Does not own:
//! what is sent (`reply`, `card_view`, `commands`).

use std::time::Duration;

use steward_protocol::Surface;
use steward_store::{EdgeKey, SentMessage};

use super::Shared;
use crate::backoff;
use crate::calls::{Keyboard, TextMode};
use crate::error::{FailureKind, TelegramError};
use crate::format;

/// Attempts at a message that must arrive (an answer, a card) before giving up on it.
const SEND_ATTEMPTS: u32 = 4;

/// A flood-control wait longer than this is not waited out for one message.
const MAX_SEND_WAIT: Duration = Duration::from_secs(30);

pub(crate) fn is_parse_error(e: &TelegramError) -> bool {
    matches!(e, TelegramError::Api { code: 400, description, .. } if description.contains("parse entities"))
}

/// Send a message that must arrive: flood control and outages are waited out (a few
/// times), HTML Telegram cannot parse is sent as plain text. The message id, or `None` when
/// it could not be sent (logged).
pub(crate) async fn send_final(
    shared: &Shared,
    chat: i64,
    text: &str,
    mut mode: TextMode,
    keyboard: Option<&Keyboard>,
) -> Option<i64> {
    let mut body = text.to_owned();
    for attempt in 1..=SEND_ATTEMPTS {
        match shared.deps.api.send_text(chat, &body, mode, keyboard).await {
            Ok(id) => return Some(id),
            Err(e) if mode == TextMode::Html && is_parse_error(&e) => {
                body = format::visible_text(&body);
                mode = TextMode::Plain;
            }
            Err(e) => {
                let kind = e.kind();
                let wait = backoff::delay(kind, attempt, fastrand::f64());
                if kind == FailureKind::Refused || wait > MAX_SEND_WAIT || attempt == SEND_ATTEMPTS
                {
                    tracing::warn!(error = %e, attempt, "a telegram message could not be sent");
                    return None;
                }
                shared.deps.pause.pause(wait).await;
            }
        }
    }
    None
}

/// Record a message the surface sent, so a reaction or a button press on it finds its turn.
pub(crate) async fn record(
    shared: &Shared,
    chat: i64,
    message: i64,
    trace: &str,
    genre: &str,
    action_id: Option<&str>,
) -> bool {
    let (Ok(chat), Ok(message)) = (
        EdgeKey::parse(&chat.to_string()),
        EdgeKey::parse(&message.to_string()),
    ) else {
        return false;
    };
    if trace.is_empty() {
        return false;
    }
    let sent = SentMessage {
        surface: Surface::Telegram,
        chat,
        message,
        trace_id: trace.to_owned(),
        genre: genre.to_owned(),
        action_id: action_id.map(str::to_owned),
        at_ms: shared.deps.clock.now_ms(),
    };
    match shared.deps.edge.record_sent(&sent).await {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, "could not record a sent telegram message");
            false
        }
    }
}

/// A short notice to `chat` (plain text; failures logged).
pub(crate) async fn notice(shared: &Shared, chat: i64, text: &str) {
    let _ = send_final(shared, chat, text, TextMode::Plain, None).await;
}

/// Send `text` as is, once; failures are logged (for prompts where nothing else can be done).
pub(crate) async fn plain(shared: &Shared, chat: i64, text: &str) -> Option<i64> {
    match shared
        .deps
        .api
        .send_text(chat, text, TextMode::Plain, None)
        .await
    {
        Ok(id) => Some(id),
        Err(e) => {
            tracing::warn!(error = %e, "could not send a telegram notice");
            None
        }
    }
}
