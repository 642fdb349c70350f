//! `FeedEvent`: what a subscriber to Steward's event feed receives — the events of every turn
//! in this process, whichever surface started it, and every change to an approval, whichever
//! process or surface made it (by whom and where).
//!
//! Owns the vocabulary only; the feed itself is steward-core's.

use crate::{ConversationId, PrincipalId, Surface, TurnEvent};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FeedEvent {
    /// One event of a turn running in this process.
    Turn {
        conversation_id: ConversationId,
        surface: Surface,
        event: TurnEvent,
    },
    /// An approval changed: created, confirmed, cancelled, revised, expired, ran, failed...
    /// (`event` is the audit trail's word for it). Read its card from the approvals API.
    Approval {
        /// None when the entry has no stored action (a refusal).
        conversation_id: Option<ConversationId>,
        action_id: String,
        event: String,
        by: PrincipalId,
        surface: Surface,
        at_ms: i64,
    },
    /// Steward spoke unasked (a reminder, a briefing): the message is stored in the
    /// conversation as Steward's, and `surface` is where it was meant to reach the owner.
    Delivered {
        conversation_id: ConversationId,
        surface: Surface,
        text: String,
    },
    /// This subscriber fell behind and `missed` events were dropped for it: refetch what
    /// it shows.
    Lagged { missed: u64 },
}

impl FeedEvent {
    /// The conversation the event belongs to, if any.
    pub fn conversation(&self) -> Option<&ConversationId> {
        match self {
            FeedEvent::Turn {
                conversation_id, ..
            } => Some(conversation_id),
            FeedEvent::Approval {
                conversation_id, ..
            } => conversation_id.as_ref(),
            FeedEvent::Delivered {
                conversation_id, ..
            } => Some(conversation_id),
            FeedEvent::Lagged { .. } => None,
        }
    }

    /// The SSE event name.
    pub fn name(&self) -> &'static str {
        match self {
            FeedEvent::Turn { .. } => "turn",
            FeedEvent::Approval { .. } => "approval",
            FeedEvent::Delivered { .. } => "delivered",
            FeedEvent::Lagged { .. } => "lagged",
        }
    }
}
