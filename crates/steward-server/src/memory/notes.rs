//! `/api/v1/notes`: list (newest first, optionally by tag), create, edit and delete the
//! owner's notes. Notes written here carry the user's provenance.
//! Does not own storage or search (see `search`).

use super::{OWNER, check_field, clean_tags, memory_error, memory_of, note_id};
use crate::body::{parse_json, parse_limit};
use crate::error::ApiError;
use crate::{AppState, MAX_TEXT_BYTES};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_memory::Memory;
use steward_protocol::{MemoryKind, Provenance};
use steward_store::{MemoryFilter, NewNote, NoteEdit};

/// Longest note title, in bytes.
pub const MAX_NOTE_TITLE_BYTES: usize = 512;
const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 500;

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    tag: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateNote {
    title: String,
    body: String,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatchNote {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
}

/// 404 unless note `id` exists and is the owner's: ids are global, notes are per user.
async fn owned(memory: &Memory, id: i64) -> Result<(), ApiError> {
    match memory.get_note(id).await.map_err(memory_error)? {
        Some(note) if note.user == OWNER => Ok(()),
        _ => Err(not_found()),
    }
}

fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such note")
}

pub(crate) async fn list_notes(
    State(state): State<AppState>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let memory = memory_of(&state)?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let tags = clean_tags(query.tag.into_iter().collect())?;
    let filter = MemoryFilter {
        kinds: vec![MemoryKind::Note],
        tags,
        ..MemoryFilter::default()
    };
    let notes = memory
        .list_notes(OWNER, &filter, limit)
        .await
        .map_err(memory_error)?;
    Ok(Json(json!({"notes": notes})))
}

pub(crate) async fn create_note(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let req: CreateNote = parse_json(&headers, body)?;
    check_field("title", &req.title, MAX_NOTE_TITLE_BYTES)?;
    check_field("body", &req.body, MAX_TEXT_BYTES)?;
    let note = NewNote {
        title: req.title.trim().to_owned(),
        body: req.body,
        tags: clean_tags(req.tags)?,
        provenance: Provenance::User { conversation: None },
    };
    let note = memory.save_note(OWNER, note).await.map_err(memory_error)?;
    Ok((StatusCode::CREATED, Json(json!({"note": note}))).into_response())
}

pub(crate) async fn patch_note(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let id = note_id(path)?;
    let req: PatchNote = parse_json(&headers, body)?;
    owned(memory, id).await?;
    if req.title.is_none() && req.body.is_none() && req.tags.is_none() {
        return Err(ApiError::bad_request(
            "nothing to change: give title, body or tags",
        ));
    }
    if let Some(title) = &req.title {
        check_field("title", title, MAX_NOTE_TITLE_BYTES)?;
    }
    if let Some(body) = &req.body {
        check_field("body", body, MAX_TEXT_BYTES)?;
    }
    let edit = NoteEdit {
        title: req.title.map(|t| t.trim().to_owned()),
        body: req.body,
        tags: req.tags.map(clean_tags).transpose()?,
    };
    let note = memory
        .edit_note(id, edit)
        .await
        .map_err(memory_error)?
        .ok_or_else(not_found)?;
    Ok(Json(json!({"note": note})))
}

pub(crate) async fn delete_note(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let memory = memory_of(&state)?;
    let id = note_id(path)?;
    owned(memory, id).await?;
    if memory.delete_note(id).await.map_err(memory_error)? {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(not_found())
    }
}
