//! Every integration test of this crate in one test binary: each file beside this one is a
//! module, sharing `common`. One binary links the crate and its
//! dependencies once instead of once per file (5 files).
//!
//! Run one file's tests with `cargo test -p steward-testkit --test integration FILE::`.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod anthropic;
mod control;
mod gemini;
mod multipart;
mod openai;
mod steps;
mod telegram;
