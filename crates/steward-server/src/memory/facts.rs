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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetFact {
    value: String,
}

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
