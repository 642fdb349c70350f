//! An approval card as a Telegram message: its text (core's card through the desk, with a
//! status line), its Confirm / Cancel / Edit buttons — callback data `op:revision:action-id`,
//! nothing else — shown only while the action is pending; posting one (recorded before its
//! buttons attach, so no button exists that a press could not be traced from) and bringing
//! every message that shows a card up to date.
//!
//! Owns: the card's message and its callback data. Does not own: reading a press or
//! deciding (`cards`, `ApprovalDesk`).

use steward_protocol::{ActionStatus, PendingAction, Surface};
use steward_store::SentMessage;

use super::{Shared, send};
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

pub(crate) fn status_line(action: &PendingAction) -> String {
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
    let Some(message) = send::send_final(shared, chat, &text, TextMode::Plain, None).await else {
        return;
    };
    if !send::record(shared, chat, message, &trace, "approval", Some(&action.id)).await {
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

/// The messages on Telegram that show the card of `action_id` (empty when none, or unreadable:
/// logged).
async fn card_messages(shared: &Shared, action_id: &str) -> Vec<SentMessage> {
    match shared
        .deps
        .edge
        .card_messages(Surface::Telegram, action_id)
        .await
    {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!(error = %e, "could not read the messages showing a card");
            Vec::new()
        }
    }
}

/// Edit every message showing `action`'s card to show it as it is now.
pub(crate) async fn refresh(shared: &Shared, action: &PendingAction) {
    let messages = card_messages(shared, &action.id).await;
    edit_all(shared, action, messages).await;
}

/// After a change of `action_id` anywhere: when a Telegram message shows its card, read the
/// action and edit those messages. Most changes are of cards no chat shows; they cost one
/// indexed read, not an action read as well.
pub(crate) async fn refresh_changed(shared: &Shared, action_id: &str) {
    let messages = card_messages(shared, action_id).await;
    if messages.is_empty() {
        return;
    }
    match shared.deps.approvals.get(action_id).await {
        Ok(Some(action)) => edit_all(shared, &action, messages).await,
        Ok(None) => {}
        Err(e) => tracing::warn!(error = %e, "could not read a changed action"),
    }
}

async fn edit_all(shared: &Shared, action: &PendingAction, messages: Vec<SentMessage>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callback_data_round_trips_and_fits_telegrams_limit() {
        let id = "act-0123456789abcdef";
        for press in [Press::Confirm, Press::Cancel, Press::Edit] {
            let data = callback_data(press, 7, id).unwrap();
            assert!(data.len() <= MAX_CALLBACK_BYTES);
            assert_eq!(parse_callback(&data), Some((press, 7, id)));
        }
        // An id too long for 64 bytes gets no button rather than a cut one.
        assert_eq!(callback_data(Press::Confirm, 1, &"a".repeat(70)), None);
    }

    #[test]
    fn forged_callback_data_is_refused() {
        for bad in [
            "",
            "c",
            "c:1",
            "c::act-1",
            "c:-1:act-1",
            "c:+1:act-1",
            "c:99999999999:act-1",
            "z:1:act-1",
            "C:1:act-1",
            "c:1:",
            "c:1:act 1",
            "c:1:../../etc/passwd",
            "c:1:act-1\u{0}",
            "c:1:act_1",
        ] {
            assert_eq!(parse_callback(bad), None, "{bad:?}");
        }
        assert_eq!(parse_callback(&format!("c:1:{}", "a".repeat(80))), None);
    }
}
