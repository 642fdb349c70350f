//! The integration tests of steward-telegram, one binary: a fake Bot API on loopback and the
//! client, the polling loop and the allowlist against it.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod admission;
mod client;
mod format;
mod polling;
mod support;
