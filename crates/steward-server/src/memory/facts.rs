//! `/api/v1/facts`: list the owner's facts, set one (the user's word: source user, which
//! extraction and reflection can never overwrite), delete one.
//! Does not own source trust itself (`Memory::user_set_fact` and the store enforce it).

use super::{OWNER, check_field, fact_key, memory_error, memory_of};
use crate::AppState;
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

/// Longest fact value, in bytes.
pub const MAX_FACT_VALUE_BYTES: usize = 4_096;
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
        .list_facts(OWNER, limit, offset)
        .await
        .map_err(memory_error)?;
    Ok(Json(json!({"facts": facts})))
}

pub(crate) async fn put_fact(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let key = fact_key(path)?;
    let req: SetFact = parse_json(&headers, body)?;
    check_field("value", &req.value, MAX_FACT_VALUE_BYTES)?;
    let fact = memory
        .user_set_fact(OWNER, key.as_str(), req.value.trim())
        .await
        .map_err(memory_error)?;
    Ok(Json(json!({"fact": fact})))
}

pub(crate) async fn delete_fact(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let key = fact_key(path)?;
    if memory
        .forget_fact(OWNER, key.as_str())
        .await
        .map_err(memory_error)?
    {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such fact",
        ))
    }
}
