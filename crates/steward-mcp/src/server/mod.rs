//! Steward as an MCP server: memory search, notes and reminders for other MCP clients (a
//! desktop coding assistant, for example), over stdio (`steward mcp serve`) or streamable
//! HTTP (`/mcp`, mounted by steward-server behind the API token).
//!
//! Owns: the rmcp `ServerHandler`, the transports, and whom each call acts for: over stdio
//! the local user the binary authenticated, over HTTP the principal the server's bearer
//! check put in the request (read from rmcp's `http::request::Parts`; a request without one
//! is refused). Every call goes through a private `ToolRegistry` (schema check, validators,
//! timeout, panic capture, output cap) whose tools reach memory through
//! `steward_core::MemoryDesk` only.
//!
//! Errors: an unknown tool or arguments that are not a JSON object within
//! `MAX_ARGUMENT_BYTES` get a JSON-RPC error (`-32602`); arguments that break the tool's
//! schema or rules, and tool failures, get a result with `isError: true` and a message saying
//! what to fix (the MCP spec wants input validation errors there, where the model sees them).

mod recall;
mod shared;
mod tools;

use axum::Router;
use axum::http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use std::sync::Arc;
use steward_core::MemoryDesk;
use steward_protocol::{ConversationId, Effect, Principal};
use steward_tools::{MAX_ARGUMENT_BYTES, ToolContext, ToolRegistry};
use tokio_util::sync::CancellationToken;

use crate::client::connect::MAX_MESSAGE_BYTES;

/// The conversation id memory writes made through MCP carry in their provenance.
pub const MCP_CONVERSATION: &str = "mcp";

const INSTRUCTIONS: &str = "Steward is its owner's personal assistant. These tools search what \
it remembers (steward_recall, steward_search_notes), list and save notes (steward_list_notes, \
steward_save_note) and list the follow-ups it keeps (steward_list_reminders, read-only).";

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot build the MCP tools: {0}")]
    Tools(String),
    #[error("the MCP session failed to start: {0}")]
    Start(String),
    #[error("the MCP session ended abnormally: {0}")]
    Session(String),
}

/// The handler shared by every session (cheap to clone).
#[derive(Clone)]
pub struct StewardServer {
    registry: Arc<ToolRegistry>,
    tools: Arc<Vec<rmcp::model::Tool>>,
    conversation: ConversationId,
    /// Whom every call acts for over stdio; None over HTTP, where each request says.
    local: Option<Principal>,
}

impl StewardServer {
    /// Steward's memory as MCP tools. Each call acts for whoever the transport
    /// authenticated: see `serve_stdio` and `http_router`.
    pub fn new(desk: Arc<dyn MemoryDesk>) -> Result<StewardServer, ServeError> {
        let conversation = ConversationId::parse(MCP_CONVERSATION)
            .map_err(|e| ServeError::Tools(e.to_string()))?;
        let registry = tools::registry(desk, conversation.clone())
            .map_err(|e| ServeError::Tools(e.to_string()))?;
        let tools = registry
            .specs()
            .into_iter()
            .map(|spec| {
                let schema = match spec.parameters {
                    Value::Object(m) => m,
                    _ => serde_json::Map::new(),
                };
                let effect = registry.get(&spec.name).map(|t| t.effect());
                let annotations = ToolAnnotations::new()
                    .read_only(effect == Some(Effect::Read))
                    .destructive(false)
                    .open_world(false);
                rmcp::model::Tool::new(spec.name, spec.description, Arc::new(schema))
                    .with_annotations(annotations)
            })
            .collect();
        Ok(StewardServer {
            registry: Arc::new(registry),
            tools: Arc::new(tools),
            conversation,
            local: None,
        })
    }

    /// Serve one client on this process's stdin/stdout until it disconnects, acting for
    /// `principal`: the local user who started it, as the binary authenticated them.
    pub async fn serve_stdio(mut self, principal: Principal) -> Result<(), ServeError> {
        self.local = Some(principal);
        let transport =
            AsyncRwTransport::<RoleServer, _, _>::new(tokio::io::stdin(), tokio::io::stdout())
                .with_max_line_length(MAX_MESSAGE_BYTES);
        let running = self
            .serve(transport)
            .await
            .map_err(|e| ServeError::Start(e.to_string()))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| ServeError::Session(e.to_string()))
    }

    /// A router answering streamable HTTP at `/mcp`. The caller mounts it behind its auth,
    /// which must put the authenticated `Principal` in each request's extensions; a call
    /// without one is refused. `stop` ends every session (server shutdown).
    pub fn http_router(self, max_body_bytes: usize, stop: CancellationToken) -> Router {
        // The Host allow-list guards unauthenticated local servers against DNS rebinding;
        // this one is only reachable with the API token (which a rebinding page does not
        // have), and may legitimately be reached under any name the owner gives it.
        let config = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .with_max_request_body_bytes(max_body_bytes)
            .with_cancellation_token(stop);
        let service = StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        Router::new().route_service("/mcp", service)
    }

    fn invalid(message: String) -> ErrorData {
        ErrorData::invalid_params(message, None)
    }

    /// Whom this call acts for: the stdio session's local user, else the principal the HTTP
    /// surface authenticated for this request.
    fn principal(&self, context: &RequestContext<RoleServer>) -> Option<Principal> {
        if let Some(local) = &self.local {
            return Some(local.clone());
        }
        context
            .extensions
            .get::<Parts>()
            .and_then(|parts| parts.extensions.get::<Principal>())
            .cloned()
    }
}

impl ServerHandler for StewardServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("steward", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(principal) = self.principal(&context) else {
            return Err(ErrorData::invalid_request(
                "this call is not authenticated".to_owned(),
                None,
            ));
        };
        let name = request.name.as_ref();
        if self.registry.get(name).is_none() {
            let shown: String = name.chars().take(64).flat_map(char::escape_debug).collect();
            return Err(Self::invalid(format!("unknown tool `{shown}`")));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let size = serde_json::to_string(&args).map_or(usize::MAX, |s| s.len());
        if size > MAX_ARGUMENT_BYTES {
            return Err(Self::invalid(format!(
                "arguments are too large ({size} bytes; the limit is {MAX_ARGUMENT_BYTES})"
            )));
        }
        let ctx = ToolContext::new(self.conversation.clone(), principal, None);
        let outcome = match self.registry.prepare_value(name, args) {
            Ok(prepared) => self.registry.run_prepared(&prepared, &ctx).await,
            Err(refused) => refused,
        };
        let content = vec![ContentBlock::text(outcome.output)];
        let result = if outcome.ok {
            CallToolResult::success(content)
        } else {
            CallToolResult::error(content)
        };
        Ok(result.into())
    }
}
