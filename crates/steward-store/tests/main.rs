//! Every integration test of this crate in one test binary: each file beside this one is a
//! module, sharing `common`. One binary links the crate and its
//! dependencies once instead of once per file (6 files).
//!
//! Run one file's tests with `cargo test -p steward-store --test integration FILE::`.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod fs_blobs;
mod sqlite;
mod sqlite_approvals;
mod sqlite_contract;
mod sqlite_jobs;
mod sqlite_memory;
mod sqlite_vector_upgrade;
