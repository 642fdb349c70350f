//! Approval cards in a chat: each card a message with Confirm / Cancel / Edit buttons whose
//! callback data is only the card's revision and the action's id; a press is checked against
//! the message it was under (recorded when the card was sent, before its buttons attached)
//! and the action as it is now, then decided through the one `ApprovalDesk::resolve`. Every
//! state change (expiry included) edits every message showing the card; only `pending`
//! shows live buttons.
//!
//! Owns: the card's message text and buttons, reading a press, the watcher. Does not own:
//! deciding (`ApprovalDesk`), the card's text (core's `render_card`, through the desk).

use std::sync::Arc;

use frankenstein::types::CallbackQuery;
use steward_core::Resolution;
use steward_protocol::{ActionStatus, Decision, FeedEvent, PendingAction, Principal, Surface};
use steward_store::EdgeKey;
use tokio_util::sync::CancellationToken;

use super::{Shared, dispatch, reply};
use crate::allowlist::ChatKind;
use crate::calls::{Keyboard, TextMode};

/// The card's share of a message (Telegram's limit is 4096; the header and status need room).
const CARD_CHARS: usize = 3500;
/// Telegram's limit on a button's callback data.
const MAX_CALLBACK_BYTES: usize = 64;

/// What a button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Press {
    Confirm,
    Cancel,
    Edit,
}

impl Press {
    fn code(self) -> char {
        match self {
            Press::Confirm => 'c',
            Press::Cancel => 'x',
            Press::Edit => 'e',
        }
    }
}

/// `c:<revision>:<action id>` and its kin; `None` when it would not fit Telegram's 64 bytes.
pub(crate) fn callback_data(press: Press, revision: u32, action_id: &str) -> Option<String> {
    let data = format!("{}:{revision}:{action_id}", press.code());
    (data.len() <= MAX_CALLBACK_BYTES).then_some(data)
}

/// Read callback data back; anything else is `None` (and refused).
pub(crate) fn parse_callback(data: &str) -> Option<(Press, u32, &str)> {
    if data.len() > MAX_CALLBACK_BYTES {
        return None;
    }
    let mut parts = data.splitn(3, ':');
    let press = match parts.next()? {
        "c" => Press::Confirm,
        "x" => Press::Cancel,
        "e" => Press::Edit,
        _ => return None,
    };
    let revision = parts.next()?;
    if revision.is_empty() || !revision.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let revision: u32 = revision.parse().ok()?;
    let id = parts.next()?;
    steward_protocol::ActionId::parse(id).ok()?;
    Some((press, revision, id))
}

fn status_line(action: &PendingAction) -> String {
    let word = match action.status {
        ActionStatus::Pending => "⏳ Waiting for your decision",
        ActionStatus::Confirmed | ActionStatus::Running => "▶️ Confirmed, running",
        ActionStatus::Executed => "✅ Done",
        ActionStatus::Failed => "❌ Failed",
        ActionStatus::Cancelled => "🚫 Cancelled",
        ActionStatus::Expired => "⌛ Expired: nothing ran",
    };
    word.to_owned()
}

fn card_message(shared: &Shared, action: &PendingAction) -> (String, Option<Keyboard>) {
    let card = shared.deps.approvals.card(action, Some(CARD_CHARS));
    let mut text = format!(
        "🔐 Approval needed\n\n{}\n\n{}",
        card.text,
        status_line(action)
    );
    let keyboard = if action.status == ActionStatus::Pending {
        let rev = card.revision;
        let id = &card.action_id;
        let mut row = Vec::new();
        if card.confirmable {
            if let Some(d) = callback_data(Press::Confirm, rev, id) {
                row.push(("✅ Confirm".to_owned(), d));
            }
        } else {
            text.push_str("\nThe card is too long to show here whole: confirm it in the web app.");
        }
        if let Some(d) = callback_data(Press::Cancel, rev, id) {
            row.push(("🚫 Cancel".to_owned(), d));
        }
        if let Some(d) = callback_data(Press::Edit, rev, id) {
            row.push(("✏️ Edit".to_owned(), d));
        }
        (!row.is_empty()).then(|| Keyboard { rows: vec![row] })
    } else {
        None
    };
    (text, keyboard)
}

/// Show the card of `action_id` in `chat`: the message is sent, recorded with the turn's
/// `trace`, and only then given its buttons, so that no button exists that a press could not
/// be traced from.
pub(crate) async fn post(shared: &Shared, chat: i64, action_id: &str, trace: &str) {
    let action = match shared.deps.approvals.get(action_id).await {
        Ok(Some(a)) => a,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, "could not read an action to show its card");
            return;
        }
    };
    let trace = if trace.is_empty() {
        action.trace_id.clone()
    } else {
        trace.to_owned()
    };
    let (text, keyboard) = card_message(shared, &action);
    let Some(message) = reply::send_final(shared, chat, &text, TextMode::Plain, None).await else {
        return;
    };
    if !reply::record(shared, chat, message, &trace, "approval", Some(&action.id)).await {
        return;
    }
    if let Some(keyboard) = keyboard
        && let Err(e) = shared
            .deps
            .api
            .set_keyboard(chat, message, Some(&keyboard))
            .await
    {
        tracing::warn!(error = %e, "could not attach a card's buttons");
    }
}

/// A button press in `chat` under `message`.
pub(crate) async fn on_press(
    shared: &Arc<Shared>,
    chat: i64,
    kind: ChatKind,
    message: Option<i64>,
    principal: Principal,
    query: &CallbackQuery,
) {
    let answer = decide(shared, chat, kind, message, principal, query).await;
    if let Err(e) = shared.deps.api.answer_callback(&query.id, &answer).await {
        tracing::debug!(error = %e, "could not answer a telegram button press");
    }
}

async fn decide(
    shared: &Arc<Shared>,
    chat: i64,
    kind: ChatKind,
    message: Option<i64>,
    principal: Principal,
    query: &CallbackQuery,
) -> String {
    const REFUSED: &str = "This button is not valid.";
    let Some((press, revision, id)) = query.data.as_deref().and_then(parse_callback) else {
        tracing::info!("telegram press with unreadable callback data refused");
        return REFUSED.to_owned();
    };
    // The press must come from under a message this surface sent for this very action.
    let Some(message) = message else {
        return REFUSED.to_owned();
    };
    let (Ok(chat_key), Ok(message_key)) = (
        EdgeKey::parse(&chat.to_string()),
        EdgeKey::parse(&message.to_string()),
    ) else {
        return REFUSED.to_owned();
    };
    let sent = match shared
        .deps
        .edge
        .sent_message(Surface::Telegram, &chat_key, &message_key)
        .await
    {
        Ok(Some(sent)) => sent,
        Ok(None) => {
            tracing::info!("telegram press under a message this bot did not record refused");
            return REFUSED.to_owned();
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not read a pressed message");
            return "Something went wrong; nothing was done.".to_owned();
        }
    };
    if sent.action_id.as_deref() != Some(id) {
        tracing::info!("telegram press naming another action than its card refused");
        return REFUSED.to_owned();
    }
    let action = match shared.deps.approvals.get(id).await {
        Ok(Some(a)) => a,
        Ok(None) => return REFUSED.to_owned(),
        Err(_) => return "Something went wrong; nothing was done.".to_owned(),
    };
    if action.revision != revision {
        refresh(shared, &action).await;
        return "This card changed since; look at it again.".to_owned();
    }
    let decision = match press {
        Press::Confirm => Decision::Confirm { revision },
        Press::Cancel => Decision::Cancel,
        Press::Edit => {
            return match shared
                .deps
                .approvals
                .request_edit(id, principal, Surface::Telegram)
                .await
            {
                Ok(_) => {
                    dispatch::plain(
                        shared,
                        chat,
                        "What should change? Say it in words in your next message.",
                    )
                    .await;
                    "Tell me the change.".to_owned()
                }
                Err(e) => format!("Could not edit: {e}"),
            };
        }
    };
    let resolution = shared
        .deps
        .approvals
        .resolve(id, decision, principal, Surface::Telegram)
        .await;
    match resolution {
        Ok(Resolution::Applied { action, follow_up }) => {
            refresh(shared, &action).await;
            if let Some(stream) = follow_up {
                // The follow-up turn answers in the chat; the press is answered now.
                let shared = shared.clone();
                tokio::spawn(async move {
                    reply::stream_turn(&shared, chat, kind, stream).await;
                });
            }
            match press {
                Press::Confirm => "Confirmed.".to_owned(),
                _ => "Cancelled.".to_owned(),
            }
        }
        Ok(Resolution::AlreadyDone { action }) => {
            refresh(shared, &action).await;
            "Already done.".to_owned()
        }
        Ok(Resolution::Conflict { action }) | Ok(Resolution::Stale { action }) => {
            refresh(shared, &action).await;
            format!("Not done: {}", status_line(&action))
        }
        Err(e) => format!("Not done: {e}"),
    }
}

/// Edit every message showing `action`'s card to show it as it is now.
pub(crate) async fn refresh(shared: &Shared, action: &PendingAction) {
    let messages = match shared
        .deps
        .edge
        .card_messages(Surface::Telegram, &action.id)
        .await
    {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!(error = %e, "could not read the messages showing a card");
            return;
        }
    };
    let (text, keyboard) = card_message(shared, action);
    for m in messages {
        let (Ok(chat), Ok(message)) = (
            m.chat.as_str().parse::<i64>(),
            m.message.as_str().parse::<i64>(),
        ) else {
            continue;
        };
        if let Err(e) = shared
            .deps
            .api
            .edit_text(chat, message, &text, TextMode::Plain, keyboard.as_ref())
            .await
        {
            // "message is not modified" when two changes show the same: harmless.
            tracing::debug!(error = %e, "could not edit a card message");
        }
    }
}

/// Follow the event feed and refresh a card's messages on every change of its action.
pub(crate) async fn watch(shared: Arc<Shared>, cancel: CancellationToken) {
    let mut feed = shared.deps.feed.subscribe(None);
    loop {
        let event = tokio::select! {
            () = cancel.cancelled() => return,
            e = feed.recv() => e,
        };
        match event {
            None => return,
            Some(FeedEvent::Approval { action_id, .. }) => {
                match shared.deps.approvals.get(&action_id).await {
                    Ok(Some(action)) => refresh(&shared, &action).await,
                    Ok(None) => {}
                    Err(e) => tracing::warn!(error = %e, "could not read a changed action"),
                }
            }
            Some(_) => {}
        }
    }
}
