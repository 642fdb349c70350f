//! One turn's events out to a chat, as they come: "typing…" while it works, the partial
//! answer and the tools it runs painted live — a `sendMessageDraft` in a private chat where
//! the Bot API takes it, else a placeholder message edited — no faster than `Pacing` allows;
//! cards as they are raised; then the answer as Telegram HTML in as many messages as it
//! needs, each recorded with the turn's trace id before anything else can point at it.
//!
//! Owns: painting one turn (through core's `TurnView`, the one projection), sending what must
//! arrive with retries, and the notices. Does not own: formatting (`format`), cards
//! (`cards`), the Bot API calls (`calls`).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use steward_core::{Change, ToolStatus, TurnEnd, TurnStream, TurnView};
use steward_protocol::Surface;
use steward_store::{EdgeKey, SentMessage};
use tokio::time::Instant;

use super::{Shared, cards};
use crate::allowlist::ChatKind;
use crate::backoff;
use crate::calls::{Keyboard, TextMode};
use crate::error::{FailureKind, TelegramError};
use crate::format;

/// Attempts at a message that must arrive (an answer, a card) before giving up on it.
const SEND_ATTEMPTS: u32 = 4;
/// A flood-control wait longer than this is not waited out for one message.
const MAX_SEND_WAIT: Duration = Duration::from_secs(30);

/// Stream `stream` into `chat` until the turn ends; the final answer's text (markdown), when
/// the turn ended with one.
pub(crate) async fn stream_turn(
    shared: &Arc<Shared>,
    chat: i64,
    kind: ChatKind,
    mut stream: TurnStream,
) -> Option<String> {
    let pacing = &shared.deps.pacing;
    let period = match kind {
        ChatKind::Group => pacing.group_every,
        ChatKind::Private if shared.drafts_refused.load(Ordering::Relaxed) => pacing.edit_every,
        ChatKind::Private => pacing.draft_every,
    };
    let mut painter = Painter::new(
        chat,
        kind == ChatKind::Private && !shared.drafts_refused.load(Ordering::Relaxed),
    );
    let mut view = TurnView::default();
    let mut dirty = false;
    let mut next_paint = Instant::now();
    let mut next_typing = Instant::now();
    loop {
        let now = Instant::now();
        if now >= next_typing {
            if let Err(e) = shared.deps.api.typing(chat).await {
                tracing::debug!(error = %e, "telegram typing signal failed");
            }
            next_typing = now + pacing.typing_every;
        }
        let wake = if dirty {
            next_paint.min(next_typing)
        } else {
            next_typing
        };
        tokio::select! {
            event = stream.recv() => {
                let Some(event) = event else {
                    view.close();
                    break;
                };
                match view.apply(event) {
                    Change::Text(_) | Change::ToolStarted(_) | Change::ToolFinished(_) => dirty = true,
                    Change::Card(i) => {
                        let trace = trace_of(&view);
                        if let Some(card) = view.cards.get(i) {
                            cards::post(shared, chat, &card.action_id, &trace).await;
                        }
                    }
                    Change::Ended => break,
                    Change::Started => {}
                }
            }
            () = tokio::time::sleep_until(wake) => {}
        }
        if dirty && Instant::now() >= next_paint {
            painter.paint(shared, &progress(&view)).await;
            dirty = false;
            next_paint = Instant::now()
                + if painter.draft {
                    pacing.draft_every
                } else {
                    period
                };
        }
    }
    finish(shared, chat, &view, painter).await;
    match &view.end {
        Some(TurnEnd::Final { text, .. }) if !text.trim().is_empty() => Some(text.clone()),
        _ => None,
    }
}

fn trace_of(view: &TurnView) -> String {
    view.turn_id
        .as_ref()
        .map_or_else(String::new, |t| t.as_str().to_owned())
}

/// The partial answer and the tools' progress, as plain text for a draft or placeholder.
fn progress(view: &TurnView) -> String {
    let mut text = view.text.clone();
    for tool in &view.tools {
        if !text.is_empty() {
            text.push('\n');
        }
        let mark = match tool.status {
            ToolStatus::Running => "⚙️",
            ToolStatus::Ok => "✓",
            ToolStatus::Failed => "✗",
        };
        text.push_str(mark);
        text.push(' ');
        text.push_str(&tool.name);
        if let Some(touched) = &tool.touched {
            text.push_str(": ");
            text.push_str(touched);
        }
        if tool.status == ToolStatus::Running {
            text.push('…');
        }
    }
    format::draft_text(&text, format::MESSAGE_LIMIT)
}

/// The live view of one answer.
struct Painter {
    chat: i64,
    /// Drafts (private chats) rather than a placeholder message.
    draft: bool,
    draft_id: i32,
    placeholder: Option<i64>,
}

impl Painter {
    fn new(chat: i64, draft: bool) -> Self {
        Self {
            chat,
            draft,
            draft_id: fastrand::i32(1..),
            placeholder: None,
        }
    }

    async fn paint(&mut self, shared: &Shared, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let api = &shared.deps.api;
        if self.draft {
            match api.send_draft(self.chat, self.draft_id, text).await {
                Ok(()) => return,
                Err(e) if e.kind() == FailureKind::Refused => {
                    // This bot or chat has no drafts: placeholders from now on, for every chat.
                    tracing::info!(error = %e, "telegram drafts refused; editing a placeholder instead");
                    shared.drafts_refused.store(true, Ordering::Relaxed);
                    self.draft = false;
                }
                Err(e) => {
                    tracing::debug!(error = %e, "telegram draft failed; the next one may pass");
                    return;
                }
            }
        }
        match self.placeholder {
            None => match api.send_text(self.chat, text, TextMode::Plain, None).await {
                Ok(id) => self.placeholder = Some(id),
                Err(e) => tracing::debug!(error = %e, "telegram placeholder failed"),
            },
            Some(id) => {
                if let Err(e) = api
                    .edit_text(self.chat, id, text, TextMode::Plain, None)
                    .await
                {
                    tracing::debug!(error = %e, "telegram placeholder edit failed");
                }
            }
        }
    }
}

async fn finish(shared: &Shared, chat: i64, view: &TurnView, painter: Painter) {
    let trace = trace_of(view);
    let (messages, mode) = match &view.end {
        Some(TurnEnd::Final { text, .. }) if text.trim().is_empty() && !view.cards.is_empty() => (
            vec!["Waiting for your decision on the card above.".to_owned()],
            TextMode::Plain,
        ),
        Some(TurnEnd::Final { text, .. }) if text.trim().is_empty() => {
            (vec!["(no answer)".to_owned()], TextMode::Plain)
        }
        Some(TurnEnd::Final { text, .. }) => (format::telegram_messages(text), TextMode::Html),
        Some(TurnEnd::Failed { message, .. }) => (vec![format!("⚠️ {message}")], TextMode::Plain),
        Some(TurnEnd::Vanished) | None => (
            vec!["⚠️ The answer was lost on the way: send your message again.".to_owned()],
            TextMode::Plain,
        ),
    };
    let mut placeholder = painter.placeholder;
    for text in &messages {
        let sent = match placeholder.take() {
            Some(id) => match edit_final(shared, chat, id, text, mode).await {
                true => Some(id),
                false => send_final(shared, chat, text, mode, None).await,
            },
            None => send_final(shared, chat, text, mode, None).await,
        };
        if let Some(id) = sent {
            record(shared, chat, id, &trace, "chat", None).await;
        }
    }
}

async fn edit_final(shared: &Shared, chat: i64, id: i64, text: &str, mode: TextMode) -> bool {
    let api = &shared.deps.api;
    match api.edit_text(chat, id, text, mode, None).await {
        Ok(()) => true,
        Err(e) if mode == TextMode::Html && is_parse_error(&e) => api
            .edit_text(chat, id, &plain_from_html(text), TextMode::Plain, None)
            .await
            .is_ok(),
        Err(e) => {
            tracing::debug!(error = %e, "telegram final edit failed; sending instead");
            false
        }
    }
}

fn is_parse_error(e: &TelegramError) -> bool {
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
                body = plain_from_html(&body);
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

/// The visible text of our own rendered HTML (tags dropped, the four entities `format`
/// writes turned back): what is sent when Telegram refuses to parse a message's HTML.
fn plain_from_html(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}
