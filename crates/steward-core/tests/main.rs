//! Every integration test of this crate in one test binary: each file beside this one is a
//! module, sharing `common`. One binary links the crate and its
//! dependencies once instead of once per file (11 files).
//!
//! Run one file's tests with `cargo test -p steward-core --test integration FILE::`.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod approval_execution;
mod approval_history;
mod approval_model;
mod approvals;
mod cancel;
mod delivery;
mod memory_turns;
mod ordering;
mod parts;
mod tool_index;
mod turns;
mod usage_ledger;
