//! Every integration test of the binary crate in one test binary: each file beside this one
//! is a module, sharing `support`, `config_support` and `prompt_budget`. One binary links the
//! crate and its dependencies once instead of once per file (29 files: a change to the library
//! relinked 28 binaries). The architecture test stays its own binary: it reads source text and
//! needs none of the crate.
//!
//! Run one file's tests with `cargo test -p steward --test integration FILE::`.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod config_support;
mod prompt_budget;
mod support;

mod browser;
mod code_exec;
mod config;
mod config_doctor;
mod config_mcp;
mod config_parts;
mod config_prices;
mod config_providers;
mod config_telegram;
mod config_web;
mod docs_in_sync;
mod document_reader;
mod e2e_approval_history;
mod e2e_approvals;
mod e2e_conn_limits;
mod e2e_http;
mod e2e_idempotency;
mod e2e_injection;
mod e2e_jobs;
mod e2e_memory_desk;
mod e2e_parts;
mod e2e_reminders;
mod e2e_settings;
mod e2e_surfaces;
mod e2e_tasks;
mod e2e_telegram;
mod e2e_telegram_media;
mod e2e_terminal;
mod e2e_url_secrets;
mod e2e_web_sign_in;
mod jobs_cli;
mod mcp_cli;
mod mcp_refs;
mod mcp_server;
mod mcp_wiring;
mod memory_cli;
mod memory_two_processes;
mod openai_sdk;
mod prompt_tokens;
mod skills_wiring;
mod status_route;
mod usage_cli;
mod vault_cli;
