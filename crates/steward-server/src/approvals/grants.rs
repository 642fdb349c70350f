//! `/api/v1/grants`: list, create and revoke "allow this tool in this conversation for N
//! hours" grants.
//!
//! Owns: validating a grant request (conversation, tool name, hours) and the reply shapes.
//! Does not own: what a grant allows or when it lapses (steward-core).

use super::{desk_error, parse_id};
use crate::AppState;
use crate::body::{parse_conversation, parse_json};
use crate::error::ApiError;
use crate::trace::{record_conversation, record_grant};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_core::ApprovalError;
use steward_protocol::Principal;

/// A week: long enough for a task, short enough that a grant cannot quietly become
/// permanent.
const MAX_HOURS: u64 = 168;
const MAX_TOOL_LEN: usize = 64;

#[derive(Deserialize)]
struct GrantRequest {
    conversation_id: String,
    tool: String,
    hours: u64,
}

pub(crate) async fn list_grants(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let grants = state.approvals.grants().await.map_err(desk_error)?;
    Ok(Json(json!({"grants": grants})))
}

pub(crate) async fn create_grant(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: GrantRequest = parse_json(&headers, body)?;
    let conversation = parse_conversation(&req.conversation_id, "conversation_id")?;
    check_tool(&req.tool)?;
    let hours = check_hours(req.hours)?;
    record_conversation(&conversation);
    let grant = state
        .approvals
        .grant(conversation, req.tool, hours, Principal::owner())
        .await
        .map_err(grant_error)?;
    record_grant(&grant.id);
    tracing::info!(tool = grant.tool.as_str(), hours, "grant created");
    Ok((StatusCode::CREATED, Json(json!({"grant": grant}))).into_response())
}

pub(crate) async fn revoke_grant(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(path, "grant")?;
    record_grant(&id);
    let revoked = state
        .approvals
        .revoke_grant(&id)
        .await
        .map_err(grant_error)?;
    Ok(Json(json!({"revoked": revoked})))
}

/// As `desk_error`, but a missing thing here is a grant, not an action.
fn grant_error(err: ApprovalError) -> ApiError {
    match err {
        ApprovalError::NotFound => {
            ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such grant")
        }
        other => desk_error(other),
    }
}

/// Tool names as the registry spells them: `[a-z0-9_]{1,64}`.
fn check_tool(tool: &str) -> Result<(), ApiError> {
    let ok = !tool.is_empty()
        && tool.len() <= MAX_TOOL_LEN
        && tool
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "invalid tool: 1 to {MAX_TOOL_LEN} of a-z, 0-9 and _"
        )))
    }
}

fn check_hours(hours: u64) -> Result<u32, ApiError> {
    match u32::try_from(hours) {
        Ok(h) if (1..=MAX_HOURS).contains(&hours) => Ok(h),
        _ => Err(ApiError::bad_request(format!(
            "hours must be from 1 to {MAX_HOURS}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_and_hours_rules() {
        assert!(check_tool("send_email").is_ok());
        assert!(check_tool(&"a".repeat(MAX_TOOL_LEN)).is_ok());
        for bad in ["", "Send", "a-b", "a b", "ä", &"a".repeat(MAX_TOOL_LEN + 1)] {
            assert!(check_tool(bad).is_err(), "{bad}");
        }
        assert_eq!(check_hours(1).unwrap(), 1);
        assert_eq!(check_hours(168).unwrap(), 168);
        for bad in [0, 169, u64::from(u32::MAX) + 1] {
            assert!(check_hours(bad).is_err(), "{bad}");
        }
    }
}
