//! steward-tools: the `Tool` trait, the `ToolRegistry` that validates and runs tool calls
//! for the agent loop, a small JSON-schema checker, the read-only builtin tools (time,
//! dates, calculator, unit conversion), the guarded SQL tools (`db_query`, `db_execute`),
//! dynamic tool sources, the tool index (on-demand tools behind `load_tools`), and the web
//! tools (`fetch_url` behind the SSRF guard, `web_search`), and `run_code` in a sandbox
//! (`sandbox`: namespaces, rlimits, Landlock, seccomp).
//!
//! Owns: turning a raw model tool call into a `ToolOutcome` text, never a crash; the SQL
//! guard (SQLite authorizer) that keeps model-written SQL away from protected tables.
//! Does not own: policy (which effects are allowed where, who approves), the agent loop,
//! model wire formats, or the database schema.

mod args;
mod builtins;
mod error;
pub mod index;
pub mod memory;
mod registry;
pub mod sandbox;
mod schema;
pub mod skills;
mod source;
mod sql;
mod tool;
pub mod web;

pub use builtins::{builtin_registry, builtin_registry_with, builtin_tools};
pub use error::ToolError;
pub use memory::memory_tools;
pub use registry::{
    DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, MAX_ARGUMENT_BYTES, PreparedCall, ToolRegistry,
};
pub use sandbox::{CodeConfig, CodeSource, SandboxStatus, run_code_tool};
pub use schema::check as check_schema;
pub use source::ToolSource;
pub use sql::{SqlToolsConfig, sql_tools};
pub use tool::{ApprovedRun, OutputTrust, Reach, Tool, ToolContext, ToolOutcome};
pub use web::{
    AllowList, SearchBackend, SearchConfig, SsrfGuard, WebConfig, web_tools,
    web_tools_with_resolver,
};
