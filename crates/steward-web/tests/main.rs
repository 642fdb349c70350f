//! Every integration test of this crate in one test binary: each file beside this one is a
//! module, sharing `web_support`. One binary links the crate and its
//! dependencies once instead of once per file (4 files).
//!
//! Run one file's tests with `cargo test -p steward-web --test integration FILE::`.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod web_support;

mod web_fetch;
mod web_search;
mod web_ssrf;
mod web_tls;
