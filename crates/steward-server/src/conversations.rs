//! The conversations read side over HTTP: `GET /api/v1/conversations`,
//! `GET|PATCH|DELETE /api/v1/conversations/{id}` (history in pages, rename, delete).
//!
//! Owns: the routes' shapes and input checks. Does not own: the data (steward-core's
//! `ConversationDesk`, which the web app and other surfaces use too), or cancel (`api.rs`).

use crate::AppState;
use crate::body::{parse_conversation, parse_json, parse_limit};
use crate::error::ApiError;
use crate::trace::record_conversation;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_core::{ConversationDesk, Deleted, DeskError};
use steward_protocol::{ConversationId, ConversationTitle};
use steward_store::{ConversationSummary, HistoryItem};

const DEFAULT_LIST: usize = 50;
const MAX_LIST: usize = 500;
const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: usize = 200;

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    limit: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct PageQuery {
    #[serde(default)]
    limit: Option<String>,
    #[serde(default)]
    before: Option<String>,
}

/// `{"title": "…"}` sets it, `{"title": null}` clears it.
#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct RenameRequest {
    /// The new title; null clears it.
    #[schema(required = true)]
    title: Option<String>,
}

fn desk(state: &AppState) -> Result<&Arc<dyn ConversationDesk>, ApiError> {
    state.conversations.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the conversations read side is not enabled",
        )
    })
}

fn desk_error(e: DeskError) -> ApiError {
    match e {
        DeskError::Store => ApiError::internal("storage failed; see the server log"),
    }
}

fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such conversation")
}

fn conversation_id(raw: &str) -> Result<ConversationId, ApiError> {
    let id = parse_conversation(raw, "conversation id")?;
    record_conversation(&id);
    Ok(id)
}

fn summary_json(s: &ConversationSummary) -> Value {
    json!({
        "id": s.id,
        "title": s.title,
        "created_at_ms": s.created_at_ms,
        "updated_at_ms": s.updated_at_ms,
        "message_count": s.message_count,
    })
}

fn item_json(item: &HistoryItem) -> Value {
    let m = &item.message;
    json!({
        "seq": item.seq,
        "at_ms": item.at_ms,
        "role": m.role,
        "content": m.content,
        "tool_calls": m.tool_calls,
        "tool_call_id": m.tool_call_id,
        "tool_name": m.tool_name,
        // What was attached (kind, type, size, name, blob reference), never the bytes.
        "attachments": m.attachments,
    })
}

/// Conversations, most recently active first.
#[utoipa::path(
    get,
    path = "/api/v1/conversations",
    operation_id = "list_conversations",
    tag = "conversations",
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "At most this many (default 50)")),
    responses(
        (status = 200, description = "The conversations", body = crate::apidoc::schemas::ConversationList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list(
    State(state): State<AppState>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIST, MAX_LIST)?;
    let list = desk(&state)?.list(limit).await.map_err(desk_error)?;
    Ok(Json(
        json!({"conversations": list.iter().map(summary_json).collect::<Vec<_>>()}),
    ))
}

/// One conversation and a page of its history, oldest first.
///
/// `next_before` is the `before` of the previous page (null at the start).
#[utoipa::path(
    get,
    path = "/api/v1/conversations/{id}",
    operation_id = "get_conversation",
    tag = "conversations",
    params(
        ("id" = String, Path, description = "The conversation id"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "At most this many messages (default 50)"),
        ("before" = Option<u64>, Query, description = "Messages before this position (the `next_before` of the page after); the newest when absent"),
    ),
    responses(
        (status = 200, description = "The conversation and a page of its history", body = crate::apidoc::schemas::ConversationHistory),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn history(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let id = conversation_id(&raw)?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_PAGE, MAX_PAGE)?;
    let before = match query.before.as_deref() {
        None => None,
        Some(b) => Some(b.parse::<u64>().map_err(|_| {
            ApiError::bad_request("before must be a message position (a whole number >= 0)")
        })?),
    };
    let Some(h) = desk(&state)?
        .history(&id, before, limit)
        .await
        .map_err(desk_error)?
    else {
        return Err(not_found());
    };
    let next_before = h.items.first().map(|i| i.seq).filter(|&seq| seq > 0);
    Ok(Json(json!({
        "conversation": summary_json(&h.summary),
        "messages": h.items.iter().map(item_json).collect::<Vec<_>>(),
        "next_before": next_before,
    })))
}

/// Set or clear a conversation's title.
#[utoipa::path(
    patch,
    path = "/api/v1/conversations/{id}",
    operation_id = "rename_conversation",
    tag = "conversations",
    params(("id" = String, Path, description = "The conversation id")),
    request_body(content = RenameRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The conversation after", body = crate::apidoc::schemas::ConversationSummary),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn rename(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = conversation_id(&raw)?;
    let req: RenameRequest = parse_json(&headers, body)?;
    let title = match req.title.as_deref() {
        None => None,
        Some(t) => Some(
            ConversationTitle::parse(t)
                .map_err(|e| ApiError::bad_request(format!("invalid title: {e}")))?,
        ),
    };
    match desk(&state)?.rename(&id, title).await.map_err(desk_error)? {
        Some(summary) => Ok(Json(summary_json(&summary))),
        None => Err(not_found()),
    }
}

/// Delete a conversation and its history.
#[utoipa::path(
    delete,
    path = "/api/v1/conversations/{id}",
    operation_id = "delete_conversation",
    tag = "conversations",
    params(("id" = String, Path, description = "The conversation id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 409, description = "A turn is running in it (`kind` `busy`): cancel it or wait", body = crate::error::ErrorBody),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn delete(
    State(state): State<AppState>,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = conversation_id(&raw)?;
    match desk(&state)?.delete(&id).await.map_err(desk_error)? {
        Deleted::Done => Ok(StatusCode::NO_CONTENT.into_response()),
        Deleted::NotFound => Err(not_found()),
        Deleted::Busy => Err(ApiError::new(
            StatusCode::CONFLICT,
            "busy",
            "a turn is running in this conversation; cancel it (POST …/cancel) or wait, then delete",
        )),
    }
}
