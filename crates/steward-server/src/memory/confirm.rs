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

/// Confirm a fact written in a tainted turn: it becomes visible everywhere.
#[utoipa::path(
    post,
    path = "/api/v1/facts/{key}/confirm",
    operation_id = "confirm_fact",
    tag = "memory",
    params(("key" = String, Path, description = "The fact key (1 to 64 of a-z, 0-9, _ and .)")),
    responses(
        (status = 200, description = "Confirmed", body = crate::apidoc::schemas::MemoryConfirmed),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
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

/// Confirm a note written in a tainted turn: it becomes visible everywhere.
#[utoipa::path(
    post,
    path = "/api/v1/notes/{id}/confirm",
    operation_id = "confirm_note",
    tag = "memory",
    params(("id" = i64, Path, minimum = 1, description = "The note id")),
    responses(
        (status = 200, description = "Confirmed", body = crate::apidoc::schemas::MemoryConfirmed),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
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
