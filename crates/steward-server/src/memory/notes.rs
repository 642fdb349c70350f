//! `/api/v1/notes`: list (newest first, optionally by tag), create, edit and delete the
//! caller's notes. Notes written here are the person's own word (`NoteAuthor::Person`).
//! Does not own storage, search (see `search`) or any check of titles, bodies and tags
//! (`steward_core::MemoryDesk`).

use super::{desk_error, memory_of, note_id};
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
use steward_core::memory_desk::{NoteAuthor, NoteChange, NoteDraft};

const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 500;

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    tag: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

/// A new note, the owner's own.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateNote {
    title: String,
    body: String,
    #[serde(default)]
    tags: Vec<String>,
}

/// The fields to change; the others stay.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PatchNote {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
}

/// The owner's notes, newest first.
#[utoipa::path(
    get,
    path = "/api/v1/notes",
    operation_id = "list_notes",
    tag = "memory",
    params(
        ("tag" = Option<String>, Query, description = "Only notes with this tag"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "At most this many (default 50)"),
    ),
    responses(
        (status = 200, description = "The notes", body = crate::apidoc::schemas::NoteList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list_notes(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let memory = memory_of(&state)?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let tags: Vec<String> = query.tag.into_iter().collect();
    let notes = memory.notes(&who, &tags, limit).await.map_err(desk_error)?;
    Ok(Json(json!({"notes": notes})))
}

/// Save a note.
#[utoipa::path(
    post,
    path = "/api/v1/notes",
    operation_id = "create_note",
    tag = "memory",
    request_body(content = CreateNote, content_type = "application/json"),
    responses(
        (status = 201, description = "The note", body = crate::apidoc::schemas::NoteReply),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn create_note(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let req: CreateNote = parse_json(&headers, body)?;
    let draft = NoteDraft {
        title: req.title,
        body: req.body,
        tags: req.tags,
        author: NoteAuthor::Person,
    };
    let note = memory.save_note(&who, draft).await.map_err(desk_error)?;
    Ok((StatusCode::CREATED, Json(json!({"note": note}))).into_response())
}

/// Edit a note.
#[utoipa::path(
    patch,
    path = "/api/v1/notes/{id}",
    operation_id = "patch_note",
    tag = "memory",
    params(("id" = i64, Path, minimum = 1, description = "The note id")),
    request_body(content = PatchNote, content_type = "application/json"),
    responses(
        (status = 200, description = "The note after", body = crate::apidoc::schemas::NoteReply),
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
pub(crate) async fn patch_note(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let id = note_id(path)?;
    let req: PatchNote = parse_json(&headers, body)?;
    let change = NoteChange {
        title: req.title,
        body: req.body,
        tags: req.tags,
    };
    let note = memory
        .edit_note(&who, id, change)
        .await
        .map_err(desk_error)?;
    Ok(Json(json!({"note": note})))
}

/// Delete a note.
#[utoipa::path(
    delete,
    path = "/api/v1/notes/{id}",
    operation_id = "delete_note",
    tag = "memory",
    params(("id" = i64, Path, minimum = 1, description = "The note id")),
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
pub(crate) async fn delete_note(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let id = note_id(path)?;
    memory.delete_note(&who, id).await.map_err(desk_error)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
