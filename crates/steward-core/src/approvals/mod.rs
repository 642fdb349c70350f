//! The approval gate: policy (effect × surface → allow / ask / refuse), pending actions,
//! the one resolve path, expiry, crash recovery, edits in words and the plan gate.
//!
//! Every change of an action's status happens in `resolve.rs` through the store's
//! compare-and-set; an architecture test fails if any other code calls it. `run.rs` runs an
//! approved action's tool, `record.rs` holds the shared plumbing (audit, scores, clock),
//! `desk.rs` the operations surfaces call (and the start-up recovery and expiry sweep),
//! `history.rs` how each action was decided, its trail and the pending count,
//! `follow_up.rs` the turn that continues after an approved action ran. Nothing here depends
//! on the queues or the turn: the follow-up is started through the `FollowUps` port.

pub mod card;
mod desk;
mod edit;
mod follow_up;
mod gate;
mod history;
mod payload;
mod policy;
mod record;
mod resolve;
mod run;

pub(crate) use edit::revise_in_words;
pub(crate) use follow_up::FollowUps;
pub(crate) use gate::CallPlan;
pub(crate) use gate::{Containment, GateOutcome, gate_calls};
pub use payload::payload_hash;
pub use policy::{ApprovalSettings, PolicyDecision, decide};
pub(crate) use record::Approvals;
pub use run::{EFFECT_CHANGED, FAILPOINT_ENV, INTERRUPTED, failpoints_built_in};
