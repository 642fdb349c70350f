//! Approval cards in a chat: each card a message with Confirm / Cancel / Edit buttons whose
//! callback data is only the card's revision and the action's id; a press is checked against
//! the message it was under (recorded when the card was sent, before its buttons attached)
//! and the action as it is now, then decided through the one `ApprovalDesk::resolve`. Every
//! state change (expiry included) edits every message showing the card; only `pending`
//! shows live buttons.
//!
//! Owns: reading a press and the watcher. Does not own: deciding (`ApprovalDesk`), the card
//! as a message (`card_view`).

use std::sync::Arc;

use frankenstein::types::CallbackQuery;
use steward_core::Resolution;
use steward_protocol::{Decision, FeedEvent, Principal, Surface};
use steward_store::EdgeKey;
use tokio_util::sync::CancellationToken;

use super::card_view::{Press, parse_callback, refresh, refresh_changed, status_line};
use super::{Shared, chats, reply, send};
use crate::allowlist::ChatKind;

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
            // The words of an edit go to this chat's conversation, where the turn looks for
            // the action awaiting them: a card of another conversation (a scheduled task's
            // step, posted here with the task's answer) cannot take them.
            match chats::conversation_for(shared, chat).await {
                Ok(here) if here != action.conversation => {
                    return "This step belongs to a scheduled task: confirm or cancel it here, or ask me to change the task.".to_owned();
                }
                Ok(_) => {}
                Err(()) => return "Something went wrong; nothing was done.".to_owned(),
            }
            return match shared
                .deps
                .approvals
                .request_edit(id, principal, Surface::Telegram)
                .await
            {
                Ok(_) => {
                    send::plain(
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
                refresh_changed(&shared, &action_id).await;
            }
            Some(_) => {}
        }
    }
}
