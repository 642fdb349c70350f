//! steward-tools: the `Tool` trait, the `ToolRegistry` that validates and runs tool calls
//! for the agent loop, a small JSON-schema checker, and the read-only builtin tools
//! (time, dates, calculator, unit conversion).
//!
//! Owns: turning a raw model tool call into a `ToolOutcome` text, never a crash.
//! Does not own: policy (which effects are allowed where), the agent loop, model wire
//! formats, or any tool with side effects.

mod builtins;
mod error;
mod registry;
mod schema;
mod tool;

pub use builtins::{builtin_registry, builtin_tools};
pub use error::ToolError;
pub use registry::{DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, MAX_ARGUMENT_BYTES, ToolRegistry};
pub use schema::check as check_schema;
pub use tool::{Tool, ToolContext, ToolOutcome};
