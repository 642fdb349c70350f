//! The memory routes: facts (`/api/v1/facts`), notes (`/api/v1/notes`) and search
//! (`/api/v1/memory/search`), all bearer-protected like every `/api` route.
//!
//! Owns: validating keys and tags (by `steward_protocol`'s rules), ids, sizes and query
//! parameters before the memory sees them, and mapping `MemoryError` to HTTP (storage details
//! stay in the server log). Does not own: source trust, the quality gate or ranking
//! (`steward_memory::Memory`), or who the user is (every authenticated caller is the owner).

mod confirm;
mod facts;
mod notes;
mod search;

pub(crate) use confirm::{confirm_fact, confirm_note};
pub(crate) use facts::{delete_fact, list_facts, put_fact};
pub(crate) use notes::{create_note, delete_note, list_notes, patch_note};
pub(crate) use search::search;

use crate::AppState;
use crate::error::ApiError;
use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::StatusCode;
use std::sync::Arc;
use steward_memory::{Memory, MemoryError};
use steward_protocol::{FactKey, Tag, ValueError, ValueKind};
use steward_store::StoreError;

/// The only principal the API knows for now.
const OWNER: &str = "owner";
/// The memory, or 503 when the binary runs without one.
fn memory_of(state: &AppState) -> Result<&Arc<Memory>, ApiError> {
    state.memory.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "memory is not enabled",
        )
    })
}

/// A fact key from the path, by `steward_protocol::FactKey`'s rule.
fn fact_key(path: Result<Path<String>, PathRejection>) -> Result<FactKey, ApiError> {
    let Ok(Path(key)) = path else {
        return Err(ApiError::bad_request(ValueError::rule_message(
            ValueKind::FactKey,
        )));
    };
    FactKey::parse(&key).map_err(|e| ApiError::bad_request(e.to_string()))
}

/// A note id from the path: a positive decimal integer.
fn note_id(path: Result<Path<String>, PathRejection>) -> Result<i64, ApiError> {
    let bad = || ApiError::bad_request("invalid note id: a positive whole number");
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

/// Tags by `steward_protocol::Tag::normalise_all`: trimmed, lowercased, duplicates dropped,
/// each the tag rule, at most `MAX_TAGS`.
fn clean_tags(raw: Vec<String>) -> Result<Vec<String>, ApiError> {
    Tag::normalise_strings(raw).map_err(|e| ApiError::bad_request(e.to_string()))
}

/// A text field must be non-blank and within `max` bytes.
fn check_field(name: &str, text: &str, max: usize) -> Result<(), ApiError> {
    if text.len() > max {
        return Err(ApiError::too_large(format!(
            "{name} is longer than {max} bytes"
        )));
    }
    if text.trim().is_empty() {
        return Err(ApiError::bad_request(format!("{name} must not be empty")));
    }
    Ok(())
}

/// How a memory failure looks on the wire. Refusals (the gate, the store's input checks)
/// are the caller's to fix; anything else is ours and its details stay in the log.
fn memory_error(err: MemoryError) -> ApiError {
    match err {
        MemoryError::Invalid(message) => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", message)
        }
        MemoryError::Store(StoreError::InvalidInput(message)) => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", message)
        }
        other => {
            tracing::warn!(error = %other, "memory operation failed");
            ApiError::internal("memory storage failed; see the server log")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> Result<Path<String>, PathRejection> {
        Ok(Path(s.to_owned()))
    }

    #[test]
    fn keys_and_ids_are_checked() {
        assert_eq!(
            fact_key(path("home.city_2")).unwrap().as_str(),
            "home.city_2"
        );
        for bad in ["", "Home", "a b", "a/b", "é", &"a".repeat(65)] {
            assert!(fact_key(path(bad)).is_err(), "{bad:?}");
        }
        assert_eq!(note_id(path("42")).unwrap(), 42);
        for bad in ["0", "-1", "+1", "1.0", "abc", "", &"9".repeat(19), "٣"] {
            assert!(note_id(path(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn tags_are_normalised_and_checked() {
        let tags = clean_tags(vec![" Work ".into(), "work".into(), "a-b_c".into()]).unwrap();
        assert_eq!(tags, ["work", "a-b_c"]);
        assert!(clean_tags(vec!["a b".into()]).is_err());
        assert!(clean_tags(vec!["".into()]).is_err());
        let many: Vec<String> = (0..=steward_protocol::MAX_TAGS)
            .map(|i| i.to_string())
            .collect();
        assert!(clean_tags(many).is_err());
    }
}
