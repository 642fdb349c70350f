//! Steward's HTTP surfaces on axum: health, the Steward API (JSON and SSE), the
//! approval and grant routes, the memory routes (facts, notes, search), the status route, the
//! OpenAI-compatible API, bearer-token auth and hostile-input handling.
//!
//! Owns: routing, request validation, projecting `TurnEvent`s and approval resolutions into
//! HTTP responses, the accept loop (`listen`: connection caps, header and idle deadlines,
//! graceful shutdown). Does not own: running turns (that
//! is `steward_core::Assistant`), deciding approvals (`steward_core::ApprovalDesk`), TLS, or
//! reading configuration from disk (the binary builds a `ServerConfig` and hands it in).

mod api;
mod approvals;
mod auth;
mod body;
mod conversations;
mod cors;
mod error;
mod events;
mod headers;
mod listen;
mod memory;
mod openai;
mod parts;
pub mod password;
mod status;
mod trace;
mod turn;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::routing::{delete, get, patch, post, put};
use serde_json::json;
use std::fmt;
use std::sync::Arc;
use steward_core::{ApprovalDesk, Assistant, ConversationDesk, EventFeed, MemoryDesk};
use steward_protocol::{Clock, PartLimits, PrincipalId, SystemClock};

pub use cors::CorsOrigins;
pub use headers::CONTENT_SECURITY_POLICY_VALUE;
pub use listen::{ConnLimits, serve, serve_with};
pub use status::{
    EmbedderState, McpServerStatus, RecentError, StatusError, StatusSnapshot, StatusSource,
};

/// Default cap on a request body; larger bodies get 413.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;

/// Longest accepted message text, in bytes; longer gets 413. Separate from the body cap
/// so that a generous body limit never lets one giant turn through.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// What the server needs from the binary.
#[derive(Clone)]
pub struct ServerConfig {
    /// Bearer token every `/api/` and `/v1/` request must present. An empty token
    /// refuses every request rather than accepting an empty credential.
    pub api_token: String,
    /// Whom the token stands for: every request that presents it acts for this principal
    /// (the owner's id from the binary's configuration).
    pub owner: PrincipalId,
    /// Bodies larger than this get 413.
    pub max_body_bytes: usize,
    /// `"provider:model"` shown by `/health`; `None` = no model configured.
    pub model_label: Option<String>,
    /// Memory behind the `/api/v1/facts`, `/api/v1/notes` and `/api/v1/memory/search`
    /// routes; `None` = those routes answer 503.
    pub memory: Option<Arc<dyn MemoryDesk>>,
    /// Steward's MCP server (streamable HTTP), answering at `/mcp` behind the bearer token;
    /// `None` = `/mcp` is not served.
    pub mcp: Option<Router>,
    /// Browser origins that may read API responses (CORS); empty = none.
    pub cors_origins: CorsOrigins,
    /// The conversations read side behind `/api/v1/conversations`; `None` = those routes
    /// answer 503.
    pub conversations: Option<Arc<dyn ConversationDesk>>,
    /// The event feed behind `/api/v1/events`; `None` = it answers 503.
    pub feed: Option<Arc<dyn EventFeed>>,
    /// "Now" for the timestamps the server writes itself (the OpenAI `created` fields).
    pub clock: Arc<dyn Clock>,
    /// Size limits of message parts (the assistant's blob store enforces the same ones):
    /// `/api/v1/messages` accepts bodies big enough for them, and refuses a part past them
    /// with 413 before decoding it.
    pub parts: PartLimits,
    /// What `/api/v1/status` shows beyond version and uptime; `None` = it answers 503.
    pub status: Option<Arc<dyn StatusSource>>,
}

impl ServerConfig {
    /// A config with the default body limit and no model label: `api_token` authenticates
    /// `owner`.
    pub fn new(api_token: impl Into<String>, owner: PrincipalId) -> Self {
        Self {
            api_token: api_token.into(),
            owner,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            model_label: None,
            memory: None,
            mcp: None,
            cors_origins: CorsOrigins::default(),
            conversations: None,
            feed: None,
            clock: SystemClock::shared(),
            parts: PartLimits::default(),
            status: None,
        }
    }
}

// Hand-written so the token can never reach logs through `{:?}`.
impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("api_token", &"<redacted>")
            .field("owner", &self.owner)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("model_label", &self.model_label)
            .field("memory", &self.memory.is_some())
            .field("mcp", &self.mcp.is_some())
            .field("cors_origins", &self.cors_origins)
            .field("conversations", &self.conversations.is_some())
            .field("feed", &self.feed.is_some())
            .field("clock", &self.clock)
            .field("parts", &self.parts)
            .field("status", &self.status.is_some())
            .finish()
    }
}

/// Shared by every handler.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) assistant: Arc<dyn Assistant>,
    pub(crate) approvals: Arc<dyn ApprovalDesk>,
    pub(crate) token: Arc<auth::Token>,
    /// Whom the token authenticates (see `auth`).
    pub(crate) owner: PrincipalId,
    pub(crate) model_label: Option<Arc<str>>,
    pub(crate) memory: Option<Arc<dyn MemoryDesk>>,
    pub(crate) conversations: Option<Arc<dyn ConversationDesk>>,
    pub(crate) feed: Option<Arc<dyn EventFeed>>,
    pub(crate) clock: Arc<dyn Clock>,
    /// Unix seconds when this router was built: the OpenAI model object's `created`, and
    /// where `/api/v1/status`'s uptime counts from.
    pub(crate) started_secs: i64,
    pub(crate) parts: PartLimits,
    /// The body limit for everything but parts' data (routes taking parts allow more).
    pub(crate) max_body_bytes: usize,
    pub(crate) status: Option<Arc<dyn StatusSource>>,
}

/// Build the full router. Layers run outside-in: tracing span, then auth (before any
/// body is read), then the body limit that the body extractor enforces. The binary passes
/// the same `Steward` as `assistant` and `approvals`.
pub fn router(
    assistant: Arc<dyn Assistant>,
    approvals: Arc<dyn ApprovalDesk>,
    cfg: ServerConfig,
) -> Router {
    let state = AppState {
        assistant,
        approvals,
        token: Arc::new(auth::Token::new(cfg.api_token)),
        owner: cfg.owner,
        model_label: cfg.model_label.map(Arc::from),
        memory: cfg.memory,
        conversations: cfg.conversations,
        feed: cfg.feed,
        started_secs: cfg.clock.now_secs(),
        clock: cfg.clock,
        parts: cfg.parts,
        max_body_bytes: cfg.max_body_bytes,
        status: cfg.status,
    };
    // The two routes taking parts read bodies as big as their parts allow (each checks the
    // rest against `max_body_bytes` itself).
    let with_parts = DefaultBodyLimit::max(parts::body_limit(cfg.max_body_bytes, &cfg.parts));
    let cors = cors::layer(&cfg.cors_origins);
    let mut routes = Router::new();
    if let Some(mcp) = cfg.mcp {
        // Its own router (rmcp's service) keeps its own body limit; auth is the layer below.
        routes = routes.route_service("/mcp", mcp);
    }
    let routes = routes
        .route("/health", get(health))
        .route(
            "/api/v1/messages",
            post(api::post_message).layer(with_parts),
        )
        .route("/api/v1/events", get(events::events))
        .route("/api/v1/conversations", get(conversations::list))
        .route(
            "/api/v1/conversations/{id}",
            get(conversations::history)
                .patch(conversations::rename)
                .delete(conversations::delete),
        )
        .route("/api/v1/conversations/{id}/cancel", post(api::cancel_turn))
        .route("/api/v1/approvals", get(approvals::list))
        .route("/api/v1/approvals/{id}", get(approvals::get_one))
        .route("/api/v1/approvals/{id}/confirm", post(approvals::confirm))
        .route("/api/v1/approvals/{id}/cancel", post(approvals::cancel))
        .route("/api/v1/approvals/{id}/revise", post(approvals::revise))
        .route("/api/v1/approvals/{id}/edit", post(approvals::request_edit))
        .route(
            "/api/v1/grants",
            get(approvals::list_grants).post(approvals::create_grant),
        )
        .route("/api/v1/grants/{id}", delete(approvals::revoke_grant))
        .route("/api/v1/facts", get(memory::list_facts))
        .route(
            "/api/v1/facts/{key}",
            put(memory::put_fact).delete(memory::delete_fact),
        )
        .route("/api/v1/facts/{key}/confirm", post(memory::confirm_fact))
        .route("/api/v1/notes/{id}/confirm", post(memory::confirm_note))
        .route(
            "/api/v1/notes",
            get(memory::list_notes).post(memory::create_note),
        )
        .route(
            "/api/v1/notes/{id}",
            patch(memory::patch_note).delete(memory::delete_note),
        )
        .route("/api/v1/memory/search", get(memory::search))
        .route("/api/v1/status", get(status::status))
        .route(
            "/v1/chat/completions",
            post(openai::chat_completions).layer(with_parts),
        )
        .route("/v1/models", get(openai::list_models))
        .route("/v1/models/{id}", get(openai::get_model))
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(DefaultBodyLimit::max(cfg.max_body_bytes))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::require_bearer,
        ))
        .layer(axum::middleware::from_fn(trace::trace_request));
    // Outside auth: browsers send preflights without the token, and a page must be able
    // to read a 401 too.
    let routes = match cors {
        Some(layer) => routes.layer(layer),
        None => routes,
    };
    // Outermost: every response, preflights and refusals included, carries them.
    routes
        .layer(axum::middleware::map_response(headers::secure))
        .with_state(state)
}

async fn health(State(state): State<AppState>) -> axum::Json<serde_json::Value> {
    axum::Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "model": state.model_label.as_deref(),
    }))
}
