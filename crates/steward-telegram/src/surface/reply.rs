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

use steward_core::{Change, ToolStatus, TurnEnd, TurnStream, TurnView};
use tokio::time::Instant;

use super::{Shared, card_view, send};
use crate::allowlist::ChatKind;
use crate::calls::TextMode;
use crate::error::FailureKind;
use crate::format;

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
                            card_view::post(shared, chat, &card.action_id, &trace).await;
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
                false => send::send_final(shared, chat, text, mode, None).await,
            },
            None => send::send_final(shared, chat, text, mode, None).await,
        };
        if let Some(id) = sent {
            send::record(shared, chat, id, &trace, "chat", None).await;
        }
    }
}

async fn edit_final(shared: &Shared, chat: i64, id: i64, text: &str, mode: TextMode) -> bool {
    let api = &shared.deps.api;
    match api.edit_text(chat, id, text, mode, None).await {
        Ok(()) => true,
        Err(e) if mode == TextMode::Html && send::is_parse_error(&e) => api
            .edit_text(chat, id, &format::visible_text(text), TextMode::Plain, None)
            .await
            .is_ok(),
        Err(e) => {
            tracing::debug!(error = %e, "telegram final edit failed; sending instead");
            false
        }
    }
}
