//! The owner confirming memory written in a tainted turn: `POST /api/v1/facts/{key}/confirm`
//! and `POST /api/v1/notes/{id}/confirm`. Until then such a row is seen only in the
//! conversation that wrote it (see `steward_protocol::Quarantine`).
//!
//! Owns: the two routes' validation and replies. Does not own: what confirming changes
//! (`Memory::confirm`).

use super::{OWNER, fact_key, memory_error, memory_of, note_id};
use crate::AppState;
use crate::error::ApiError;
use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};
use steward_protocol::{MemoryKind, MemoryRef};

fn not_unconfirmed(what: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no unconfirmed {what} with that id"),
    )
}

pub(crate) async fn confirm_fact(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let key = fact_key(path)?;
    let Some(fact) = memory
        .get_fact(OWNER, key.as_str())
        .await
        .map_err(memory_error)?
    else {
        return Err(not_unconfirmed("fact"));
    };
    let r = MemoryRef {
        kind: MemoryKind::Fact,
        id: fact.id,
    };
    if memory.confirm(OWNER, r).await.map_err(memory_error)? {
        Ok(Json(json!({"confirmed": {"kind": "fact", "key": key}})))
    } else {
        Err(not_unconfirmed("fact"))
    }
}

pub(crate) async fn confirm_note(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let id = note_id(path)?;
    let r = MemoryRef {
        kind: MemoryKind::Note,
        id,
    };
    if memory.confirm(OWNER, r).await.map_err(memory_error)? {
        Ok(Json(json!({"confirmed": {"kind": "note", "id": id}})))
    } else {
        Err(not_unconfirmed("note"))
    }
}
