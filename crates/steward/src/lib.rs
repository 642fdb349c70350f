//! Steward's binary crate as a library: configuration, the composition root, and the
//! command implementations (`serve`, `chat`, `doctor`, `user`, `usage`, ...). `main.rs` only parses
//! arguments.
//!
//! Owns: wiring config → adapters → core → surfaces. Does not own: business logic.

pub mod app;
pub mod approvals_cmd;
pub mod chat;
pub mod config;
pub mod doctor;
pub mod jobs_cmd;
pub mod jobs_desk;
pub mod jobs_wiring;
pub mod local_user;
pub mod logging;
pub mod mcp_cmd;
pub mod memory_cmd;
pub mod memory_wiring;
pub mod password_input;
pub mod serve;
pub mod settings_desk;
pub mod status;
pub mod telegram_wiring;
pub mod token;
pub mod usage_cmd;
pub mod user_cmd;
pub mod vault_cmd;
pub mod words;
