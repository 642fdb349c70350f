//! The memory routes: facts (`/api/v1/facts`), notes (`/api/v1/notes`), search
//! (`/api/v1/memory/search`), read-later items (`/api/v1/read-later`), learnings
//! (`/api/v1/learnings`) and reminders (`/api/v1/reminders`), all bearer-protected like every
//! `/api` route, all through `steward_core::MemoryDesk` for the principal the token
//! authenticated.
//!
//! Owns: reading paths, query strings and bodies, and mapping `MemoryDeskError` to HTTP
//! (storage details stay in the server log). Does not own: any check of keys, tags or texts
//! (the desk applies `steward_protocol`'s rules and its limits, the same for every surface),
//! source trust, the quality gate or ranking (`steward_memory::Memory`).

mod confirm;
mod facts;
mod learnings;
mod notes;
mod read_later;
mod reminders;
mod search;

// The `__path_*` items are the handlers' document entries (`documented!` reads them).
pub(crate) use confirm::{__path_confirm_fact, __path_confirm_note, confirm_fact, confirm_note};
pub(crate) use facts::{
    __path_delete_fact, __path_list_facts, __path_put_fact, delete_fact, list_facts, put_fact,
};
pub(crate) use learnings::{
    __path_delete_learning, __path_list_learnings, delete_learning, list_learnings,
};
pub(crate) use notes::{
    __path_create_note, __path_delete_note, __path_list_notes, __path_patch_note, create_note,
    delete_note, list_notes, patch_note,
};
pub(crate) use read_later::{
    __path_delete_read_later, __path_list_read_later, __path_patch_read_later, delete_read_later,
    list_read_later, patch_read_later,
};
pub(crate) use reminders::{
    __path_delete_reminder, __path_list_reminders, __path_patch_reminder, delete_reminder,
    list_reminders, patch_reminder,
};
pub(crate) use search::{__path_search, search};

use crate::AppState;
use crate::body::flag;
use crate::error::ApiError;
use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::StatusCode;
use std::sync::Arc;
use steward_core::{MemoryDesk, MemoryDeskError};
use steward_protocol::{ValueError, ValueKind};

/// The memory desk, or 503 when the binary runs without a memory.
fn memory_of(state: &AppState) -> Result<&Arc<dyn MemoryDesk>, ApiError> {
    state.memory.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "memory is not enabled",
        )
    })
}

/// A fact key from the path, as given (the desk checks it); a path that does not even
/// decode gets the key rule's words.
fn fact_key(path: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    match path {
        Ok(Path(key)) => Ok(key),
        Err(_) => Err(ApiError::bad_request(ValueError::rule_message(
            ValueKind::FactKey,
        ))),
    }
}

/// A note id from the path: a positive decimal integer.
fn note_id(path: Result<Path<String>, PathRejection>) -> Result<i64, ApiError> {
    row_id(path, "note")
}

/// A memory row's id from the path (`what` names the kind in the refusal): a positive
/// decimal integer of at most 18 digits, so it always fits an `i64`.
fn row_id(path: Result<Path<String>, PathRejection>, what: &str) -> Result<i64, ApiError> {
    let bad = || ApiError::bad_request(format!("invalid {what} id: a positive whole number"));
    let Ok(Path(raw)) = path else {
        return Err(bad());
    };
    if raw.is_empty() || raw.len() > 18 || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match raw.parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(bad()),
    }
}

/// How a refusal of the desk looks on the wire: input the caller must fix is 400 (413 when
/// too long), a refusal of the memory itself (the gate, the store's checks) 422, a row that
/// is not the caller's 404, anything else ours (500, details in the log).
fn desk_error(err: MemoryDeskError) -> ApiError {
    let message = err.to_string();
    match err {
        MemoryDeskError::Invalid(_) => ApiError::bad_request(message),
        MemoryDeskError::TooLong { .. } => ApiError::too_large(message),
        MemoryDeskError::NotFound(_) => ApiError::new(StatusCode::NOT_FOUND, "not_found", message),
        MemoryDeskError::Refused(_) => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", message)
        }
        MemoryDeskError::Failed => ApiError::internal("memory storage failed; see the server log"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> Result<Path<String>, PathRejection> {
        Ok(Path(s.to_owned()))
    }

    #[test]
    fn note_ids_are_checked() {
        assert_eq!(note_id(path("42")).unwrap(), 42);
        for bad in ["0", "-1", "+1", "1.0", "abc", "", &"9".repeat(19), "٣"] {
            assert!(note_id(path(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn row_ids_name_their_kind_and_flags_are_true_or_false() {
        assert_eq!(row_id(path("7"), "reminder").unwrap(), 7);
        let err = row_id(path("x"), "reminder").unwrap_err();
        assert_eq!(err.status(), StatusCode::BAD_REQUEST);
        assert!(!flag(None, "include_done").unwrap());
        assert!(flag(Some("true"), "include_done").unwrap());
        assert!(!flag(Some("false"), "include_done").unwrap());
        for bad in ["1", "yes", "TRUE", ""] {
            assert!(flag(Some(bad), "include_done").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn each_refusal_of_the_desk_has_its_status() {
        use steward_core::memory_desk::Missing;
        for (err, status) in [
            (
                MemoryDeskError::Invalid("x".into()),
                StatusCode::BAD_REQUEST,
            ),
            (
                MemoryDeskError::TooLong {
                    field: "title",
                    max: 1,
                },
                StatusCode::PAYLOAD_TOO_LARGE,
            ),
            (
                MemoryDeskError::NotFound(Missing::Note),
                StatusCode::NOT_FOUND,
            ),
            (
                MemoryDeskError::Refused("x".into()),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            (MemoryDeskError::Failed, StatusCode::INTERNAL_SERVER_ERROR),
        ] {
            assert_eq!(desk_error(err).status(), status);
        }
    }
}
