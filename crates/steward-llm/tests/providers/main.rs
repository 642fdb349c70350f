//! Integration tests: each wire format and `Models` resilience against scripted fake
//! servers on 127.0.0.1. One test binary so the workspace links it once.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod anthropic;
mod fake;
mod gemini;
mod openai;
mod parts;
mod resilience;
mod url_secrets;
