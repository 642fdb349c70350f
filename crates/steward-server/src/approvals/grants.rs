//! `/api/v1/grants`: list, create and revoke "allow this tool in this conversation for N
//! hours" grants.
//!
//! Owns: validating a grant request (conversation, tool name by `steward_protocol::ToolName`,
//! hours) and the reply shapes.
//! Does not own: what a grant allows or when it lapses (steward-core).

use super::{desk_error, grant_id};
use crate::AppState;
use crate::auth::Authenticated;
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
use steward_protocol::ToolName;

/// A week: long enough for a task, short enough that a grant cannot quietly become
/// permanent.
const MAX_HOURS: u64 = 168;

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
    Authenticated(principal): Authenticated,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: GrantRequest = parse_json(&headers, body)?;
    let conversation = parse_conversation(&req.conversation_id, "conversation_id")?;
    let tool = ToolName::parse(&req.tool).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let hours = check_hours(req.hours)?;
    record_conversation(&conversation);
    let grant = state
        .approvals
        .grant(conversation, tool.into_string(), hours, principal)
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
    let id = grant_id(path)?;
    let revoked = state
        .approvals
        .revoke_grant(id.as_str())
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
    fn hours_rules() {
        assert_eq!(check_hours(1).unwrap(), 1);
        assert_eq!(check_hours(168).unwrap(), 168);
        for bad in [0, 169, u64::from(u32::MAX) + 1] {
            assert!(check_hours(bad).is_err(), "{bad}");
        }
    }
}
