//! `/api/v1/facts`: list the caller's facts, set one (the person's word: source user, which
//! extraction and reflection can never overwrite), delete one.
//! Does not own source trust or any check of the key or value (`steward_core::MemoryDesk`).

use super::{desk_error, fact_key, memory_of};
use crate::AppState;
use crate::auth::Authenticated;
use crate::body::parse_json;
use crate::body::parse_limit;
use crate::error::ApiError;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 1_000;

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    limit: Option<String>,
    #[serde(default)]
    offset: Option<String>,
}

/// The fact's new value (the owner's word: `source` becomes `user`).
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetFact {
    value: String,
}

/// The owner's facts.
#[utoipa::path(
    get,
    path = "/api/v1/facts",
    operation_id = "list_facts",
    tag = "memory",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "At most this many (default 100)"),
        ("offset" = Option<u32>, Query, description = "Skip this many"),
    ),
    responses(
        (status = 200, description = "The facts", body = crate::apidoc::schemas::FactList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list_facts(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let memory = memory_of(&state)?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let offset = match query.offset.as_deref() {
        None => 0,
        Some(raw) => raw
            .parse::<u32>()
            .map_err(|_| ApiError::bad_request("offset must be a whole number"))?
            as usize,
    };
    let facts = memory
        .facts(&who, limit, offset)
        .await
        .map_err(desk_error)?;
    Ok(Json(json!({"facts": facts})))
}

/// Set a fact (created or replaced), as the owner's word: extraction never overwrites it.
#[utoipa::path(
    put,
    path = "/api/v1/facts/{key}",
    operation_id = "put_fact",
    tag = "memory",
    params(("key" = String, Path, description = "The fact key (1 to 64 of a-z, 0-9, _ and .)")),
    request_body(content = SetFact, content_type = "application/json"),
    responses(
        (status = 200, description = "The fact", body = crate::apidoc::schemas::FactReply),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn put_fact(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let key = fact_key(path)?;
    let req: SetFact = parse_json(&headers, body)?;
    let fact = memory
        .set_fact(&who, &key, &req.value)
        .await
        .map_err(desk_error)?;
    Ok(Json(json!({"fact": fact})))
}

/// Forget a fact.
#[utoipa::path(
    delete,
    path = "/api/v1/facts/{key}",
    operation_id = "delete_fact",
    tag = "memory",
    params(("key" = String, Path, description = "The fact key (1 to 64 of a-z, 0-9, _ and .)")),
    responses(
        (status = 204, description = "Forgotten"),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn delete_fact(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let key = fact_key(path)?;
    memory.forget_fact(&who, &key).await.map_err(desk_error)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
