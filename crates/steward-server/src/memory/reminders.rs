//! `/api/v1/reminders`: list the follow-ups Steward keeps for the caller (open ones, or all
//! with `include_done=true`; soonest due first, undated last), mark one done or open again
//! (`PATCH {"done": bool}`), delete one. Does not own who owns a follow-up
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
use steward_store::Intention;

const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 1_000;

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    include_done: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

/// `true`: done; `false`: open again.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MarkDone {
    done: bool,
}

/// One follow-up on the wire; `due_at_ms` is null for an undated one.
fn reminder_json(intention: &Intention) -> Value {
    json!({
        "id": intention.id,
        "text": intention.text,
        "due_at_ms": intention.due_at_ms,
        "nudges": intention.nudges,
        "done": !intention.open,
        "created_at_ms": intention.created_at_ms,
    })
}

/// The follow-ups Steward keeps for the owner, soonest due first: open ones unless
/// `include_done`.
#[utoipa::path(
    get,
    path = "/api/v1/reminders",
    operation_id = "list_reminders",
    tag = "memory",
    params(
        ("include_done" = Option<bool>, Query, description = "Also the ones marked done (default false)"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "At most this many (default 100)"),
    ),
    responses(
        (status = 200, description = "The reminders", body = crate::apidoc::schemas::ReminderList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list_reminders(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let memory = memory_of(&state)?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let include_done = flag(query.include_done.as_deref(), "include_done")?;
    let reminders = memory
        .reminders(&who, include_done)
        .await
        .map_err(desk_error)?;
    let reminders: Vec<Value> = reminders.iter().take(limit).map(reminder_json).collect();
    Ok(Json(json!({"reminders": reminders})))
}

/// Mark a follow-up done, or open again.
#[utoipa::path(
    patch,
    path = "/api/v1/reminders/{id}",
    operation_id = "patch_reminder",
    tag = "memory",
    params(("id" = i64, Path, minimum = 1, description = "The reminder id")),
    request_body(content = MarkDone, content_type = "application/json"),
    responses(
        (status = 200, description = "The reminder after", body = crate::apidoc::schemas::ReminderReply),
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
pub(crate) async fn patch_reminder(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let id = row_id(path, "reminder")?;
    let req: MarkDone = parse_json(&headers, body)?;
    let reminder = memory
        .mark_reminder(&who, id, req.done)
        .await
        .map_err(desk_error)?;
    Ok(Json(json!({"reminder": reminder_json(&reminder)})))
}

/// Delete a follow-up.
#[utoipa::path(
    delete,
    path = "/api/v1/reminders/{id}",
    operation_id = "delete_reminder",
    tag = "memory",
    params(("id" = i64, Path, minimum = 1, description = "The reminder id")),
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
pub(crate) async fn delete_reminder(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let id = row_id(path, "reminder")?;
    memory.delete_reminder(&who, id).await.map_err(desk_error)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
