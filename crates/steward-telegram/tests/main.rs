//! The integration tests of steward-telegram, one binary: a fake Bot API on loopback and the
//! client, the polling loop and the allowlist against it; the Mini App's initData check
//! (`init_data*`, with vectors from the npm package Mini App developers use).

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod admission;
mod client;
mod format;
mod init_data;
mod init_data_props;
mod init_data_vectors;
mod polling;
mod support;
