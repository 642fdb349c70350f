//! Steward's HTTP surfaces on axum: health, the Steward API (JSON and SSE), the
//! approval and grant routes, the memory routes (facts, notes, search, read-later, learnings,
//! reminders), the status route, the scheduler's routes (`jobs`: jobs, run now, scheduled
//! reminders and tasks), the OpenAI-compatible API, the web app's embedded files
//! (`assets`), the web app's sign-in (sessions, cookie auth beside the bearer token, CSRF, the
//! failed-sign-in limit), the API document (`apidoc`, built on its first request, not with the
//! router) and hostile-input handling.
//!
//! Owns: routing, request validation, projecting `TurnEvent`s and approval resolutions into
//! HTTP responses, the accept loop (`listen`: connection caps, header and idle deadlines,
//! graceful shutdown). Does not own: running turns (that
//! is `steward_core::Assistant`), deciding approvals (`steward_core::ApprovalDesk`), TLS, or
//! reading configuration from disk (the binary builds a `ServerConfig` and hands it in).

mod api;
mod apidoc;
mod approvals;
mod assets;
mod auth;
mod body;
mod client;
mod conversations;
mod cors;
mod error;
mod events;
mod headers;
mod jobs;
mod listen;
mod memory;
mod mini_app;
mod openai;
mod parts;
pub mod password;
mod session;
mod session_routes;
mod settings;
mod status;
mod telegram_hook;
mod trace;
mod turn;

use apidoc::{DocumentedRoutes, documented};
use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use serde_json::json;
use std::fmt;
use std::sync::Arc;
use steward_core::{
    ApprovalDesk, Assistant, ConversationDesk, EventFeed, MemoryDesk, SettingsDesk,
};
use steward_protocol::{Clock, PartLimits, PrincipalId, SystemClock};

pub use cors::CorsOrigins;
pub use headers::CONTENT_SECURITY_POLICY_VALUE;
pub use jobs::{Cancelled, JobRun, JobSummary, JobsDesk, JobsDeskError, TaskSummary};
pub use listen::{ConnLimits, serve, serve_with};
pub use mini_app::{MINI_APP_CONTENT_SECURITY_POLICY, MiniAppCheck};
pub use session::WebSignIn;
pub use status::{
    EmbedderState, McpServerStatus, RecentError, StatusError, StatusSnapshot, StatusSource,
};
pub use telegram_hook::{MAX_WEBHOOK_BODY, SECRET_HEADER as TELEGRAM_SECRET_HEADER, WebhookSink};

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
    /// Memory behind the `/api/v1/facts`, `/api/v1/notes`, `/api/v1/memory/search`,
    /// `/api/v1/read-later`, `/api/v1/learnings` and `/api/v1/reminders` routes; `None` = those
    /// routes answer 503.
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
    /// The runtime settings behind `/api/v1/settings`; `None` = those routes answer 503.
    pub settings: Option<Arc<dyn SettingsDesk>>,
    /// Sessions and the owner's password hash behind the web sign-in (`/api/v1/session`,
    /// `/api/v1/sessions`, the session cookie); `None` = those routes answer 503 and no cookie
    /// authenticates anything.
    pub sign_in: Option<WebSignIn>,
    /// Steward is reached only through a reverse proxy whose `X-Forwarded-For` (last hop) and
    /// `X-Forwarded-Proto` are true (`http.trusted_proxy`); false = both headers are ignored.
    pub trusted_proxy: bool,
    /// What `/api/v1/status` shows beyond version and uptime; `None` = it answers 503.
    pub status: Option<Arc<dyn StatusSource>>,
    /// The scheduler behind `/api/v1/jobs` and `/api/v1/scheduled/…`; `None` = they answer
    /// 503 (no scheduler runs: `steward serve` starts one).
    pub jobs: Option<Arc<dyn JobsDesk>>,
    /// The Telegram Mini App's credential check (`Authorization: tma <initData>` on `/api/`);
    /// `None` = that credential authenticates nothing.
    pub mini_app: Option<Arc<dyn MiniAppCheck>>,
    /// Where `POST /telegram/webhook` hands Telegram's deliveries (webhook mode); `None` = it
    /// answers 404.
    pub telegram_webhook: Option<Arc<dyn WebhookSink>>,
}

impl ServerConfig {
    /// A config with the default body limit and no model label: `api_token` authenticates
    /// `owner`.
    pub fn new(api_token: impl Into<String>, owner: PrincipalId) -> Self {
        Self {
            api_token: api_token.into(),
            owner,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            memory: None,
            mcp: None,
            cors_origins: CorsOrigins::default(),
            conversations: None,
            feed: None,
            clock: SystemClock::shared(),
            parts: PartLimits::default(),
            settings: None,
            sign_in: None,
            trusted_proxy: false,
            status: None,
            jobs: None,
            mini_app: None,
            telegram_webhook: None,
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
            .field("memory", &self.memory.is_some())
            .field("mcp", &self.mcp.is_some())
            .field("cors_origins", &self.cors_origins)
            .field("conversations", &self.conversations.is_some())
            .field("feed", &self.feed.is_some())
            .field("clock", &self.clock)
            .field("parts", &self.parts)
            .field("settings", &self.settings.is_some())
            .field("sign_in", &self.sign_in.is_some())
            .field("trusted_proxy", &self.trusted_proxy)
            .field("status", &self.status.is_some())
            .field("jobs", &self.jobs.is_some())
            .field("mini_app", &self.mini_app.is_some())
            .field("telegram_webhook", &self.telegram_webhook.is_some())
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
    pub(crate) memory: Option<Arc<dyn MemoryDesk>>,
    pub(crate) conversations: Option<Arc<dyn ConversationDesk>>,
    pub(crate) feed: Option<Arc<dyn EventFeed>>,
    pub(crate) settings: Option<Arc<dyn SettingsDesk>>,
    pub(crate) clock: Arc<dyn Clock>,
    /// Unix seconds when this router was built: the OpenAI model object's `created`, and
    /// where `/api/v1/status`'s uptime counts from.
    pub(crate) started_secs: i64,
    pub(crate) parts: PartLimits,
    /// The body limit for everything but parts' data (routes taking parts allow more).
    pub(crate) max_body_bytes: usize,
    /// The web sign-in's sessions; None = not enabled.
    pub(crate) sessions: Option<Arc<session::Sessions>>,
    pub(crate) trusted_proxy: bool,
    pub(crate) status: Option<Arc<dyn StatusSource>>,
    pub(crate) jobs: Option<Arc<dyn JobsDesk>>,
    pub(crate) mini_app: Option<Arc<dyn MiniAppCheck>>,
    pub(crate) telegram_webhook: Option<Arc<dyn WebhookSink>>,
}

/// Build the full router. Layers run outside-in: tracing span, then auth (before any
/// body is read; signing in is the one guarded route it lets through unauthenticated), then
/// the body limit that the body extractor enforces (on the sign-in body too). The binary passes
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
        memory: cfg.memory,
        conversations: cfg.conversations,
        feed: cfg.feed,
        settings: cfg.settings,
        started_secs: cfg.clock.now_secs(),
        clock: cfg.clock.clone(),
        parts: cfg.parts,
        max_body_bytes: cfg.max_body_bytes,
        sessions: cfg
            .sign_in
            .map(|s| Arc::new(session::Sessions::new(s, cfg.clock.clone()))),
        trusted_proxy: cfg.trusted_proxy,
        status: cfg.status,
        jobs: cfg.jobs,
        mini_app: cfg.mini_app,
        telegram_webhook: cfg.telegram_webhook,
    };
    // The two routes taking parts read bodies as big as their parts allow (each checks the
    // rest against `max_body_bytes` itself).
    let with_parts = DefaultBodyLimit::max(parts::body_limit(cfg.max_body_bytes, &cfg.parts));
    let cors = cors::layer(&cfg.cors_origins);
    let (routes, _document) = documented_routes(with_parts, cfg.mcp).finish();
    let routes = routes
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(DefaultBodyLimit::max(cfg.max_body_bytes))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
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

/// Every route of the router, each registered from its handler's `#[utoipa::path]` (method and
/// path included), so that the API document lists exactly what the router serves. A new route
/// goes here, and only here (`tests/server/openapi.rs` fails on a routing call anywhere else).
fn documented_routes(with_parts: DefaultBodyLimit, mcp: Option<Router>) -> DocumentedRoutes {
    let mut routes = DocumentedRoutes::new();
    if let Some(mcp) = mcp {
        // Its own router (rmcp's service) keeps its own body limit; auth is the layer below.
        routes = routes.mcp(mcp);
    }
    routes
        .routes(documented!(health))
        .routes(documented!(api::post_message).layer(with_parts))
        .routes(documented!(events::events))
        .routes(documented!(
            session_routes::sign_in,
            session_routes::current,
            session_routes::sign_out
        ))
        .routes(documented!(session_routes::list))
        .routes(documented!(session_routes::revoke))
        .routes(documented!(conversations::list))
        .routes(documented!(
            conversations::history,
            conversations::rename,
            conversations::delete
        ))
        .routes(documented!(api::cancel_turn))
        .routes(documented!(approvals::list))
        .routes(documented!(approvals::count))
        .routes(documented!(approvals::get_one))
        .routes(documented!(approvals::confirm))
        .routes(documented!(approvals::cancel))
        .routes(documented!(approvals::revise))
        .routes(documented!(approvals::request_edit))
        .routes(documented!(approvals::list_grants, approvals::create_grant))
        .routes(documented!(approvals::revoke_grant))
        .routes(documented!(memory::list_facts))
        .routes(documented!(memory::put_fact, memory::delete_fact))
        .routes(documented!(memory::confirm_fact))
        .routes(documented!(memory::confirm_note))
        .routes(documented!(memory::list_notes, memory::create_note))
        .routes(documented!(memory::patch_note, memory::delete_note))
        .routes(documented!(memory::search))
        .routes(documented!(status::status))
        .routes(documented!(memory::list_read_later))
        .routes(documented!(
            memory::patch_read_later,
            memory::delete_read_later
        ))
        .routes(documented!(memory::list_learnings))
        .routes(documented!(memory::delete_learning))
        .routes(documented!(memory::list_reminders))
        .routes(documented!(memory::patch_reminder, memory::delete_reminder))
        .routes(documented!(jobs::list_jobs))
        .routes(documented!(jobs::run_job))
        .routes(documented!(jobs::list_scheduled_reminders))
        .routes(documented!(jobs::cancel_scheduled_reminder))
        .routes(documented!(jobs::list_scheduled_tasks))
        .routes(documented!(jobs::cancel_scheduled_task))
        .routes(documented!(settings::list))
        .routes(documented!(settings::put, settings::reset))
        .routes(documented!(openai::chat_completions).layer(with_parts))
        .routes(documented!(openai::list_models))
        .routes(documented!(openai::get_model))
        // The web app's files: outside the guarded prefixes (they hold no data; the page signs
        // in through the API like any client), and the only compressed routes.
        .routes(documented!(assets::index).layer(assets::compression()))
        .routes(documented!(assets::app_file).layer(assets::compression()))
        .routes(documented!(assets::app_folder_file).layer(assets::compression()))
        // The Telegram Mini App's page (its files are the web app's) and the webhook, whose
        // secret header is its credential (Telegram sends no bearer token).
        .routes(documented!(mini_app::page).layer(assets::compression()))
        .routes(documented!(telegram_hook::deliver))
}

/// The OpenAPI 3.1 document (JSON) that `GET /api/v1/openapi.json` serves, for a router whose
/// `ServerConfig::mcp` is set (`mcp`) or not: every route, its parameters, bodies and answers.
/// Built the way the served one is (the same registration, then `ApiDocument::build`), which a
/// router does only on the document's first request.
pub fn api_document(mcp: bool) -> Result<String, ApiDocumentError> {
    let (_, document) =
        documented_routes(DefaultBodyLimit::disable(), mcp.then(Router::new)).finish();
    document.build().to_json().map_err(|_| ApiDocumentError)
}

/// The API document could not be encoded as JSON.
#[derive(Debug, thiserror::Error)]
#[error("the API document could not be encoded as JSON")]
pub struct ApiDocumentError;

/// Always `ok` while the server answers, with the version and the bound model.
#[utoipa::path(
    get,
    path = "/health",
    operation_id = "health",
    tag = "meta",
    security(()),
    responses((status = 200, description = "The server answers", body = apidoc::schemas::Health)),
)]
async fn health(State(state): State<AppState>) -> axum::Json<serde_json::Value> {
    axum::Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "model": state.assistant.model_label(),
    }))
}
