//! `GET /api/v1/status`: what the Status page shows — version, uptime, model and fallback,
//! database size, embedder, each MCP server, recent errors, and token use and cost per day
//! (`?days=N`, 1..=366, default 30) and per model.
//!
//! Owns: the route, its query check and the JSON shape, and the `StatusSource` port the
//! binary implements (the server cannot see the configuration, the database file, the MCP
//! client or the log). Does not own: any of those values, the roll-up (steward-core's
//! `usage`), or the scrubbing of what the source hands in (the source scrubs; this file
//! shows no filesystem path and no configuration value).

use crate::AppState;
use crate::error::ApiError;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use steward_core::usage::{UsageDays, UsageReport, UsageTotals};

/// Where the embedding model is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedderState {
    /// No embedder: recall runs on full text only.
    Off,
    /// Configured, loaded on first use, not used yet.
    NotLoaded,
    /// In memory (or a remote API, which has nothing to load).
    Loaded,
}

impl EmbedderState {
    fn as_str(self) -> &'static str {
        match self {
            EmbedderState::Off => "off",
            EmbedderState::NotLoaded => "not_loaded",
            EmbedderState::Loaded => "loaded",
        }
    }
}

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerStatus {
    pub name: String,
    /// `disabled`, `connecting`, `connected` or `down`.
    pub state: String,
    /// Tools it offers now.
    pub tools: usize,
    /// Why it is down, secrets and URL credentials already masked by the source.
    pub last_error: Option<String>,
}

/// One WARN or ERROR log event, already redacted by the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentError {
    pub at_secs: i64,
    /// `ERROR` or `WARN`.
    pub level: String,
    /// The module that logged it, e.g. `steward_core::turn`.
    pub target: String,
    pub message: String,
}

/// Everything the route shows that the server does not know itself (it knows the version
/// and its own uptime).
#[derive(Debug, Clone)]
pub struct StatusSnapshot {
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    /// Bytes of the database (file and write-ahead log); None when it cannot be measured.
    pub database_bytes: Option<u64>,
    pub embedder: EmbedderState,
    /// The embedder's model id (`local:all-MiniLM-L6-v2`), None when off.
    pub embedder_model: Option<String>,
    pub mcp: Vec<McpServerStatus>,
    /// Oldest first.
    pub recent_errors: Vec<RecentError>,
    pub usage: UsageReport,
}

/// The source could not build a snapshot (the store failed); it logged why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("status unavailable")]
pub struct StatusError;

/// What the binary implements for `GET /api/v1/status`.
#[async_trait::async_trait]
pub trait StatusSource: Send + Sync {
    /// A snapshot now, with the usage of the last `days` days.
    async fn snapshot(&self, days: UsageDays) -> Result<StatusSnapshot, StatusError>;
}

#[derive(Deserialize)]
pub(crate) struct StatusQuery {
    #[serde(default)]
    days: Option<String>,
}

/// What the Status page shows: version, uptime, model and fallback, database size, embedder,
/// each MCP server, recent errors, and token use and cost per day and per model.
#[utoipa::path(
    get,
    path = "/api/v1/status",
    operation_id = "status",
    tag = "status",
    params(("days" = Option<u32>, Query, minimum = 1, maximum = 366, description = "Days of usage, today included (default 30)")),
    responses(
        (status = 200, description = "The status now", body = crate::apidoc::schemas::Status),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn status(
    State(state): State<AppState>,
    query: Result<Query<StatusQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let days = match query.days.as_deref() {
        None => UsageDays::DEFAULT,
        Some(raw) => UsageDays::parse(raw).map_err(|e| ApiError::bad_request(e.to_string()))?,
    };
    let Some(source) = state.status.as_ref() else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the status page is not enabled",
        ));
    };
    let snap = source.snapshot(days).await.map_err(|_| {
        ApiError::internal("status unavailable: storage failed; see the server log")
    })?;
    let uptime = state
        .clock
        .now_secs()
        .saturating_sub(state.started_secs)
        .max(0);
    Ok(Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_secs": uptime,
        "model": snap.model,
        "fallback_model": snap.fallback_model,
        "database": { "bytes": snap.database_bytes },
        "embedder": { "state": snap.embedder.as_str(), "model": snap.embedder_model },
        "mcp": snap.mcp.iter().map(|m| json!({
            "name": m.name,
            "state": m.state,
            "tools": m.tools,
            "last_error": m.last_error,
        })).collect::<Vec<_>>(),
        "recent_errors": snap.recent_errors.iter().map(|e| json!({
            "at_secs": e.at_secs,
            "level": e.level,
            "target": e.target,
            "message": e.message,
        })).collect::<Vec<_>>(),
        "usage": usage_json(&snap.usage),
    })))
}

/// `cost_usd` is the cost of the priced calls, null ("no price") when there were calls and
/// none had a price; `unpriced_calls` says how many calls it leaves out.
fn totals_json(t: &UsageTotals) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("calls".into(), json!(t.calls));
    m.insert("input_tokens".into(), json!(t.input_tokens));
    m.insert("output_tokens".into(), json!(t.output_tokens));
    m.insert("cost_usd".into(), json!(t.cost_usd()));
    m.insert("unpriced_calls".into(), json!(t.unpriced_calls));
    m
}

fn usage_json(u: &UsageReport) -> Value {
    let with = |key: &str, value: &str, t: &UsageTotals| {
        let mut m = totals_json(t);
        m.insert(key.into(), json!(value));
        Value::Object(m)
    };
    json!({
        "timezone": u.timezone,
        "days": u.days.iter().map(|d| with("date", &d.date, &d.totals)).collect::<Vec<_>>(),
        "by_model": u.by_model.iter().map(|m| with("model", &m.model, &m.totals)).collect::<Vec<_>>(),
        "total": Value::Object(totals_json(&u.total)),
    })
}
