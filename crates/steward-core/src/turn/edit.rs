//! The edit step at the start of a user turn: if an action of the sender's in this
//! conversation awaits an edit in words, this message revises it instead of starting a
//! normal turn. The model call that turns the words into arguments is recorded in the usage
//! ledger like any round of a turn.

use super::ledger::{self, CallSite};
use super::{Failure, TurnContext, scrub};
use crate::approvals::{card::render_card, revise_in_words};
use crate::port::Resolution;
use steward_protocol::{ActionStatus, Inbound, Message, TurnEvent, Usage};
use steward_store::UsagePurpose;
use tokio::sync::mpsc;

pub(crate) async fn edit_turn(
    ctx: &TurnContext<'_>,
    inbound: &Inbound,
    events: &mpsc::UnboundedSender<TurnEvent>,
) -> Result<Option<TurnEvent>, Failure> {
    let deps = ctx.deps;
    let pending = deps
        .store
        .list_actions(Some(ActionStatus::Pending), Some(&inbound.conversation), 20)
        .await?;
    // Only the sender's own action: another principal's is not theirs to revise.
    let Some(action) = pending
        .into_iter()
        .find(|a| a.awaiting_edit && &a.principal == inbound.principal.id())
    else {
        return Ok(None);
    };
    deps.store
        .append_messages(
            &inbound.conversation,
            &[Message::user(scrub(&inbound.text))],
        )
        .await?;
    let edited = revise_in_words(
        &deps.approvals,
        &deps.models,
        &ctx.binding,
        &action,
        &inbound.text,
        &inbound.principal,
        inbound.surface,
        &ctx.cancel,
    )
    .await;
    if let Some((model, usage)) = &edited.answered {
        let site = CallSite {
            conversation: inbound.conversation.clone(),
            turn_id: ctx.turn_id.clone(),
            surface: inbound.surface,
            purpose: UsagePurpose::Turn,
        };
        let now = deps.now_unix();
        ledger::record(
            &*deps.store,
            &ctx.settings.prices,
            now,
            &site,
            model,
            *usage,
        )
        .await;
    }
    let text = match edited.resolution {
        Ok(Resolution::Applied {
            action: revised, ..
        })
        | Ok(Resolution::AlreadyDone { action: revised }) => {
            let _ = events.send(TurnEvent::ApprovalRequired {
                card: render_card(&revised, None),
            });
            format!(
                "I changed the pending `{}` action as you asked (revision {}). Please review the new card and confirm or cancel it.",
                revised.tool, revised.revision
            )
        }
        Ok(Resolution::Conflict { action: current } | Resolution::Stale { action: current }) => {
            format!(
                "The `{}` action is no longer waiting (it is {}), so I did not change it.",
                current.tool,
                current.status.as_str()
            )
        }
        Err(e) => {
            // Leave the action pending but stop treating messages as edits.
            let _ = deps
                .approvals
                .set_awaiting_edit(&action.id, false, &inbound.principal, inbound.surface)
                .await;
            format!(
                "I could not apply that change: {e}. The `{}` action is unchanged and still awaits your decision.",
                action.tool
            )
        }
    };
    deps.store
        .append_messages(
            &inbound.conversation,
            &[Message::assistant(text.clone(), vec![])],
        )
        .await?;
    Ok(Some(TurnEvent::Final {
        text,
        usage: Usage::default(),
        model: "steward".into(),
    }))
}
