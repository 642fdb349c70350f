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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MarkDone {
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
