//! Every integration test of this crate in one test binary: each file beside this one is a
//! module. One binary links the crate and its dependencies once instead of once per file (4
//! files). `sandbox_env` stays its own binary: it re-runs itself with a canary in its
//! environment, without the test harness.
//!
//! Run one file's tests with `cargo test -p steward-sandbox --test integration FILE::`.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod code_risk;
mod code_risk_python;
mod pdf_text;
mod run_code_tool;
mod sandbox;
