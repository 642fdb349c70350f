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

/// Allow `tool` in `conversation_id` without asking, for `hours`.
#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct GrantRequest {
    conversation_id: String,
    /// A tool name (1 to 64 of a-z, 0-9 and _).
    tool: String,
    /// 1 to 168.
    #[schema(minimum = 1, maximum = 168)]
    hours: u64,
}

/// Every grant, revoked and lapsed ones included.
#[utoipa::path(
    get,
    path = "/api/v1/grants",
    operation_id = "list_grants",
    tag = "grants",
    responses(
        (status = 200, description = "The grants", body = crate::apidoc::schemas::GrantList),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
pub(crate) async fn list_grants(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let grants = state.approvals.grants().await.map_err(desk_error)?;
    Ok(Json(json!({"grants": grants})))
}

/// Allow a tool in one conversation for some hours.
#[utoipa::path(
    post,
    path = "/api/v1/grants",
    operation_id = "create_grant",
    tag = "grants",
    request_body(content = GrantRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "The grant", body = crate::apidoc::schemas::GrantReply),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
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

/// Revoke a grant.
#[utoipa::path(
    delete,
    path = "/api/v1/grants/{id}",
    operation_id = "revoke_grant",
    tag = "grants",
    params(("id" = String, Path, description = "The grant id")),
    responses(
        (status = 200, description = "Whether it was revoked now", body = crate::apidoc::schemas::GrantRevoked),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
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
