//! The home target: where Steward speaks when nothing captured a target for it — a briefing,
//! a recap, a follow-up on an intention (a reminder has its own: the conversation it was set
//! in). Looked up at fire time on purpose: "home" is wherever the owner is now.
//!
//! The choice, in order:
//! 1. Telegram: the chat the owner was last active in (`EdgeStore::most_active_chat`: the
//!    chat whose conversations hold the last message), in the conversation it is bound to
//!    now — Telegram can speak unasked, so the owner sees it on their phone.
//! 2. Else the web: the most recently active conversation (every stored conversation is in
//!    the web app's list; the delivery stores it there and publishes it on the feed, so an
//!    open app shows it at once). The `steward mcp serve` conversation is not one the owner
//!    reads, so it is passed over.
//! 3. Else none: the job says `Nothing("nowhere to deliver")`.
//!
//! Owns: that choice. Does not own: delivery (core's port through `Voice`), the bindings
//! (the surfaces, `EdgeStore`).

use steward_core::DeliveryTarget;
use steward_protocol::Surface;
use steward_store::{Store, StoreError};

/// `steward mcp serve`'s conversation (`steward_mcp::server::MCP_CONVERSATION`): an MCP
/// client's writes, never a place the owner reads.
const MCP_CONVERSATION: &str = "mcp";
/// Recent conversations looked at for the web fallback.
const RECENT: usize = 20;

/// Why a job had nowhere to speak (its `Nothing` summary).
pub const NOWHERE: &str = "nowhere to deliver";

/// Where a proactive message without a captured target goes now; None: nowhere yet (the
/// owner never spoke to Steward on a surface that shows it).
pub async fn home_target(store: &dyn Store) -> Result<Option<DeliveryTarget>, StoreError> {
    if let Some((_, conversation)) = store.most_active_chat(Surface::Telegram).await? {
        return Ok(Some(DeliveryTarget {
            surface: Surface::Telegram,
            conversation,
        }));
    }
    let recent = store.list_conversations(RECENT).await?;
    Ok(recent
        .into_iter()
        .find(|c| c.id.as_str() != MCP_CONVERSATION)
        .map(|c| DeliveryTarget {
            surface: Surface::Web,
            conversation: c.id,
        }))
}
