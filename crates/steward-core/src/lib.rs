//! The turn pipeline and the agent loop.
//!
//! Owns: running one turn (history → model ⇄ tools → persist), budgets (rounds, tokens,
//! wall clock), history trimming that keeps tool calls with their results, per-conversation
//! ordering (one turn at a time per conversation, in arrival order; conversations run
//! concurrently), graceful shutdown, and the ports surfaces reach Steward through (turns,
//! approvals, conversations, memory: `memory_desk`). Does not own: wire formats
//! (steward-llm), storage engines (steward-store), tool implementations (steward-tools),
//! surfaces (steward-server, the CLI).

pub mod approvals;
mod approvals_api;
mod conversations;
mod delivery;
mod edit_turn;
mod feed;
mod gates;
mod history;
pub mod memory_desk;
mod port;
mod projection;
mod prompt;
mod reply;
mod request;
mod settings;
mod steward;
mod taint;
mod tool_round;
mod turn;

pub use conversations::{ConversationDesk, Deleted, DeskError, History};
pub use delivery::{Deliver, Delivery, DeliveryError, DeliveryTarget, MAX_DELIVERY_BYTES};
pub use feed::{EventFeed, Subscription};
pub use history::trim_history;
pub use memory_desk::{MemoryDesk, MemoryDeskError, MemoryService};
pub use port::{ApprovalDesk, ApprovalError, Assistant, Resolution, TurnStream};
pub use projection::{Change, ToolStatus, ToolView, TurnEnd, TurnView};
pub use prompt::{NO_MODEL_MESSAGE, context_block, system_prompt};
pub use request::{fresh_retry_key, idempotency_key, retry_key};
pub use settings::{AgentSettings, MemoryWiring, ModelBinding};
pub use steward::{Steward, StewardDeps};
