//! `/api/v1/learnings`: list what reflection learned about the caller (most recurrent
//! first) and delete a learning. Learnings come from reflection only: there is no route that
//! writes one. Does not own who owns a learning (`steward_core::MemoryDesk`).

use super::{desk_error, memory_of, row_id};
use crate::AppState;
use crate::auth::Authenticated;
use crate::body::parse_limit;
use crate::error::ApiError;
use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_store::Learning;

const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 500;

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    limit: Option<String>,
}

fn learning_json(learning: &Learning) -> Value {
    json!({
        "id": learning.id,
        "text": learning.text,
        "recurrence": learning.recurrence,
        "last_seen_ms": learning.last_seen_ms,
    })
}

/// What reflection learned about the owner, most recurrent first.
#[utoipa::path(
    get,
    path = "/api/v1/learnings",
    operation_id = "list_learnings",
    tag = "memory",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "At most this many (default 50)"),
    ),
    responses(
        (status = 200, description = "The learnings", body = crate::apidoc::schemas::LearningList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list_learnings(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let memory = memory_of(&state)?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let learnings = memory.learnings(&who, limit).await.map_err(desk_error)?;
    let learnings: Vec<Value> = learnings.iter().map(learning_json).collect();
    Ok(Json(json!({"learnings": learnings})))
}

/// Forget a learning (reflection may learn it again, from scratch).
#[utoipa::path(
    delete,
    path = "/api/v1/learnings/{id}",
    operation_id = "delete_learning",
    tag = "memory",
    params(("id" = i64, Path, minimum = 1, description = "The learning id")),
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
pub(crate) async fn delete_learning(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let id = row_id(path, "learning")?;
    memory.delete_learning(&who, id).await.map_err(desk_error)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
