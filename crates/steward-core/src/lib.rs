//! The turn pipeline and the agent loop.
//!
//! Owns: running one turn (history → model ⇄ tools → persist), budgets (rounds, tokens,
//! wall clock), history trimming that keeps tool calls with their results, per-conversation
//! ordering (one turn at a time per conversation, in arrival order; conversations run
//! concurrently), graceful shutdown, and the ports surfaces reach Steward through (turns,
//! approvals, conversations, memory: `memory_desk`), and the usage ledger's recording and
//! roll-ups (`usage`, `turn/ledger.rs`). Does not own: wire formats
//! (steward-llm), storage engines (steward-store), tool implementations (steward-tools),
//! surfaces (steward-server, the CLI).

pub mod approvals;
mod conversations;
mod delivery;
mod feed;
mod history;
pub mod memory_desk;
mod port;
mod projection;
mod prompt;
mod reply;
mod settings;
mod settings_desk;
mod steward;
mod taint;
mod turn;
pub mod usage;

pub use conversations::{ConversationDesk, Deleted, DeskError, History};
pub use delivery::{
    Deliver, Delivery, DeliveryError, DeliveryTarget, MAX_DELIVERY_BYTES, Proactive,
};
pub use feed::{EventFeed, Subscription};
pub use history::trim_history;
pub use memory_desk::{MemoryDesk, MemoryDeskError, MemoryService};
pub use port::{ApprovalDesk, ApprovalError, Assistant, FeedbackDesk, Resolution, TurnStream};
pub use projection::{Change, ToolStatus, ToolView, TurnEnd, TurnView};
pub use prompt::{NO_MODEL_MESSAGE, context_block, system_prompt};
pub use settings::{AgentSettings, MemoryWiring, ModelBinding};
pub use settings_desk::{SettingKind, SettingSource, SettingView, SettingsDesk, SettingsError};
pub use steward::{Steward, StewardDeps};
pub use turn::request::{fresh_retry_key, idempotency_key, retry_key};
