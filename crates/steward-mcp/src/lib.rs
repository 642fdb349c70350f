//! steward-mcp: Model Context Protocol for Steward, both ways.
//!
//! - **Client** (`client`): servers declared in `[mcp.servers.NAME]` are started and
//!   supervised in the background (restart with capped exponential backoff, a timeout on
//!   every call, a health ping); each server's tools reach the registry as a `ToolSource`
//!   under namespaced names (`server__tool`), schemas with local `$ref`s followed and the
//!   whole description for a loaded tool, with an effect from the owner's override or
//!   the tool's annotations (a read-only claim only counts for a server the owner marked
//!   `trust_annotations`), and a `reach` saying what each call sends. Stdio servers run in
//!   a process group of their own and are stopped with it; HTTP sessions end with `DELETE`.
//!   Results and resources come back fenced as untrusted data; sampling requests are
//!   refused.
//! - **Server** (`server`): Steward's memory search, notes and reminders (memory intentions,
//!   read-only) for other MCP clients, over stdio (`steward mcp serve`) or streamable HTTP
//!   (`/mcp` on the main server, behind its API token).
//!
//! Owns: everything rmcp (the only crate that depends on it). Does not own configuration
//! files, approval policy, or the HTTP server's auth (steward-server wraps `/mcp`).

pub mod client;
pub mod fence;
pub mod names;
pub mod schema;
pub mod server;
pub mod spec;

pub use client::handler::{SAMPLING_NEEDS_APPROVAL, SAMPLING_REFUSED};
pub use client::state::{ServerHandle, ServerStatus, Status, ToolInfo};
pub use client::{McpManager, ProbeReport, ServerSource, probe};
pub use server::{MCP_CONVERSATION, ServeError, StewardServer};
pub use spec::{
    DEFAULT_CALL_TIMEOUT, INHERITED_ENV, ServerSpec, Transport, effect_name, parse_effect,
    valid_server_name,
};
