//! The approval gate: policy (effect × surface → allow / ask / refuse), pending actions,
//! the one resolve path, expiry, crash recovery, edits in words and the plan gate.
//!
//! Every change of an action's status happens in `resolve.rs` through the store's
//! compare-and-set; an architecture test fails if any other code calls it. `run.rs` runs an
//! approved action's tool, `record.rs` holds the shared plumbing (audit, scores, clock).

pub mod card;
mod edit;
mod gate;
mod payload;
mod policy;
mod record;
mod resolve;
mod run;

pub(crate) use edit::revise_in_words;
pub(crate) use gate::CallPlan;
pub(crate) use gate::{Containment, GateOutcome, gate_calls};
pub use payload::payload_hash;
pub use policy::{ApprovalSettings, PolicyDecision, decide};
pub(crate) use resolve::{Approvals, Resolved, store_err};
pub use run::{EFFECT_CHANGED, FAILPOINT_ENV, INTERRUPTED, failpoints_built_in};
