//! Integration tests: the real router served on 127.0.0.1 via `serve`, driven by reqwest,
//! with a scripted fake `Assistant` standing in for the agent and a fake `ApprovalDesk`
//! (desk.rs) standing in for the approval gate.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod api;
mod approval_events;
mod approval_history;
mod approvals;
mod assets;
mod auth;
mod cors;
mod desk;
mod grants;
mod headers;
mod hostile;
mod jobs;
mod jobs_fake;
mod limits;
mod memory;
mod memory_kept;
mod openai;
mod openai_stream;
mod openapi;
mod openapi_fixture;
mod openapi_routes;
mod parts;
mod pinning;
mod sessions;
mod settings;
mod shutdown;
mod sign_in;
mod status;
mod support;
mod telegram;
mod web_support;
mod web_surface;
