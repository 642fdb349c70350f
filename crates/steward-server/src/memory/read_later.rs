//! `/api/v1/read-later`: list the caller's read-later items (newest first, by tag, the read
//! ones only when asked), mark one read or unread (`PATCH {"read": bool}`), delete one.
//! Items are saved by the agent's `read_later` tool; titles and URLs come back as JSON
//! strings, exactly as stored. Does not own tag rules or who owns an item
//! (`steward_core::MemoryDesk`).

use super::{desk_error, flag, memory_of, row_id};
use crate::AppState;
use crate::auth::Authenticated;
use crate::body::{parse_json, parse_limit};
use crate::error::ApiError;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_store::ReadLater;

const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 500;

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    tag: Option<String>,
    #[serde(default)]
    include_read: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

/// `true`: read (done); `false`: unread again.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MarkRead {
    read: bool,
}

/// One item on the wire; `read_at_ms` is null while it is unread.
fn item_json(item: &ReadLater) -> Value {
    json!({
        "id": item.id,
        "url": item.url,
        "title": item.title,
        "tags": item.tags,
        "created_at_ms": item.created_at_ms,
        "read_at_ms": item.read_at_ms,
    })
}

/// The owner's read-later items, newest first: unread ones unless `include_read`.
#[utoipa::path(
    get,
    path = "/api/v1/read-later",
    operation_id = "list_read_later",
    tag = "memory",
    params(
        ("tag" = Option<String>, Query, description = "Only items with this tag"),
        ("include_read" = Option<bool>, Query, description = "Also the items marked read (default false)"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "At most this many (default 50)"),
    ),
    responses(
        (status = 200, description = "The items", body = crate::apidoc::schemas::ReadLaterList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list_read_later(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let memory = memory_of(&state)?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let include_read = flag(query.include_read.as_deref(), "include_read")?;
    let tags: Vec<String> = query.tag.into_iter().collect();
    let items = memory
        .read_later(&who, &tags, include_read, limit)
        .await
        .map_err(desk_error)?;
    let items: Vec<Value> = items.iter().map(item_json).collect();
    Ok(Json(json!({"items": items})))
}

/// Mark an item read, or unread again.
#[utoipa::path(
    patch,
    path = "/api/v1/read-later/{id}",
    operation_id = "patch_read_later",
    tag = "memory",
    params(("id" = i64, Path, minimum = 1, description = "The item id")),
    request_body(content = MarkRead, content_type = "application/json"),
    responses(
        (status = 200, description = "The item after", body = crate::apidoc::schemas::ReadLaterReply),
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
pub(crate) async fn patch_read_later(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let id = row_id(path, "read-later item")?;
    let req: MarkRead = parse_json(&headers, body)?;
    let item = memory
        .mark_read_later(&who, id, req.read)
        .await
        .map_err(desk_error)?;
    Ok(Json(json!({"item": item_json(&item)})))
}

/// Delete a read-later item.
#[utoipa::path(
    delete,
    path = "/api/v1/read-later/{id}",
    operation_id = "delete_read_later",
    tag = "memory",
    params(("id" = i64, Path, minimum = 1, description = "The item id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn delete_read_later(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let id = row_id(path, "read-later item")?;
    memory
        .delete_read_later(&who, id)
        .await
        .map_err(desk_error)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
