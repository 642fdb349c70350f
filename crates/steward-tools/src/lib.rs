//! steward-tools: the `Tool` trait, the `ToolRegistry` that validates and runs tool calls
//! for the agent loop, a small JSON-schema checker, the read-only builtin tools (time,
//! dates, calculator, unit conversion), the memory tools, the guarded SQL tools (`db_query`,
//! `db_execute`), dynamic tool sources, the tool index (on-demand tools behind `load_tools`)
//! and skills.
//!
//! Owns: turning a raw model tool call into a `ToolOutcome` text, never a crash; the SQL
//! guard (SQLite authorizer) that keeps model-written SQL away from protected tables.
//! Does not own: policy (which effects are allowed where, who approves), the agent loop,
//! model wire formats, the database schema, `run_code` and its sandbox (steward-sandbox:
//! all the workspace's `unsafe`), or the web tools (steward-web: the HTTP and HTML stack).

mod args;
mod builtins;
mod entry;
mod error;
pub mod index;
pub mod memory;
mod registry;
mod schema;
pub mod skills;
mod source;
mod sql;
mod tool;

pub use args::{MAX_ARGUMENT_BYTES, str_arg};
pub use builtins::{builtin_registry, builtin_registry_with, builtin_tools};
pub use error::ToolError;
pub use memory::memory_tools;
pub use registry::{DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, PreparedCall, ToolRegistry};
pub use schema::check as check_schema;
pub use source::ToolSource;
pub use sql::{SqlToolsConfig, sql_tools};
pub use tool::{ApprovedRun, OutputTrust, Reach, Tool, ToolContext, ToolOutcome};
