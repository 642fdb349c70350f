//! Confirming memory written in a tainted turn: `POST /api/v1/facts/{key}/confirm` and
//! `POST /api/v1/notes/{id}/confirm`. Until then such a row is seen only in the conversation
//! that wrote it (see `steward_protocol::Quarantine`).
//!
//! Owns: the two routes' replies. Does not own: which rows may be confirmed or what
//! confirming changes (`steward_core::MemoryDesk::confirm`, `Memory::confirm`).

use super::{desk_error, fact_key, memory_of, note_id};
use crate::AppState;
use crate::auth::Authenticated;
use crate::error::ApiError;
use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use serde_json::{Value, json};
use steward_core::memory_desk::Unconfirmed;
use steward_protocol::{MemoryKind, MemoryRef};

pub(crate) async fn confirm_fact(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let key = fact_key(path)?;
    memory
        .confirm(&who, Unconfirmed::FactKey(key.clone()))
        .await
        .map_err(desk_error)?;
    Ok(Json(json!({"confirmed": {"kind": "fact", "key": key}})))
}

pub(crate) async fn confirm_note(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let id = note_id(path)?;
    let row = Unconfirmed::Row(MemoryRef {
        kind: MemoryKind::Note,
        id,
    });
    memory.confirm(&who, row).await.map_err(desk_error)?;
    Ok(Json(json!({"confirmed": {"kind": "note", "id": id}})))
}
