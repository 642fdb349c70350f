//! The approval routes: listing and showing actions with how each was decided
//! (`/api/v1/approvals`, `/api/v1/approvals/{id}` with its whole audit trail), the pending
//! count (`/api/v1/approvals/count`), deciding them (`decide.rs`) and managing grants
//! (`grants.rs`).
//!
//! Owns: id validation (by `steward_protocol`'s `ActionId` and `GrantId`), the
//! `{"action","card"}` view (with `decided` and `trail` where history is asked for), mapping
//! `ApprovalError` to HTTP.
//! Does not own: the decision itself — every confirm, cancel or revise goes through
//! `ApprovalDesk::resolve`, never around it — or how cards are rendered (steward-core).

mod decide;
mod grants;

// The `__path_*` items are the handlers' document entries (`documented!` reads them).
pub(crate) use decide::{
    __path_cancel, __path_confirm, __path_request_edit, __path_revise, cancel, confirm,
    request_edit, revise,
};
pub(crate) use grants::{
    __path_create_grant, __path_list_grants, __path_revoke_grant, create_grant, list_grants,
    revoke_grant,
};

use crate::AppState;
use crate::body::parse_limit;
use crate::error::ApiError;
use crate::trace::{record_action, record_grant};
use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use steward_core::{ApprovalDesk, ApprovalError};
use steward_protocol::{
    ActionDecided, ActionId, ActionStatus, GrantId, PendingAction, ValueError, ValueKind,
};

const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 500;

const VALID_STATUSES: &str =
    "pending, confirmed, running, executed, failed, cancelled, expired, all";

/// An id from the path by `parse` (`steward_protocol`'s `ActionId` or `GrantId` rule).
/// Anything else is refused before the desk sees it, so hostile ids never reach storage or
/// logs.
fn parse_id<T>(
    path: Result<Path<String>, PathRejection>,
    kind: ValueKind,
    parse: fn(&str) -> Result<T, ValueError>,
) -> Result<T, ApiError> {
    let Ok(Path(raw)) = path else {
        return Err(ApiError::bad_request(ValueError::rule_message(kind)));
    };
    parse(&raw).map_err(|e| ApiError::bad_request(e.to_string()))
}

/// A validated action id, recorded on the request span.
fn action_id(path: Result<Path<String>, PathRejection>) -> Result<ActionId, ApiError> {
    let id = parse_id(path, ValueKind::ActionId, ActionId::parse)?;
    record_action(id.as_str());
    Ok(id)
}

/// A validated grant id, recorded on the request span.
fn grant_id(path: Result<Path<String>, PathRejection>) -> Result<GrantId, ApiError> {
    let id = parse_id(path, ValueKind::GrantId, GrantId::parse)?;
    record_grant(id.as_str());
    Ok(id)
}

/// How a desk failure looks on the wire. `Store` details stay in the server log.
fn desk_error(err: ApprovalError) -> ApiError {
    match err {
        ApprovalError::NotFound => {
            ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such action")
        }
        ApprovalError::Invalid(message) => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", message)
        }
        ApprovalError::Store => {
            tracing::warn!("approval store failed");
            ApiError::internal("storage failed; see the server log")
        }
    }
}

/// `{"action","card"}` with the whole card: the API can show any length.
fn view(desk: &dyn ApprovalDesk, action: &PendingAction) -> Value {
    let card = desk.card(action, None);
    json!({"action": action, "card": card})
}

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

/// `None` = every status. Absent means pending: what awaits a decision is what a caller
/// of this route almost always wants.
fn parse_status(raw: Option<&str>) -> Result<Option<ActionStatus>, ApiError> {
    match raw {
        None => Ok(Some(ActionStatus::Pending)),
        Some("all") => Ok(None),
        Some(s) => ActionStatus::parse(s).map(Some).ok_or_else(|| {
            ApiError::bad_request(format!("invalid status; valid: {VALID_STATUSES}"))
        }),
    }
}

/// Actions by status (pending by default), newest first, each with its card and how it was
/// decided.
#[utoipa::path(
    get,
    path = "/api/v1/approvals",
    operation_id = "list_approvals",
    tag = "approvals",
    params(
        ("status" = Option<String>, Query, description = "pending (default), confirmed, running, executed, failed, cancelled, expired, or all"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "At most this many (default 50)"),
    ),
    responses(
        (status = 200, description = "The actions", body = crate::apidoc::schemas::ApprovalList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
pub(crate) async fn list(
    State(state): State<AppState>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let status = parse_status(query.status.as_deref())?;
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let actions = state
        .approvals
        .list(status, limit)
        .await
        .map_err(desk_error)?;
    let desk = state.approvals.as_ref();
    let decided = desk.decisions(&actions).await.map_err(desk_error)?;
    let items: Vec<Value> = actions
        .iter()
        .zip(&decided)
        .map(|(a, d)| decided_view(desk, a, d.as_ref()))
        .collect();
    Ok(Json(json!({"actions": items})))
}

/// `view` plus `decided`: who took the action out of `pending`, how, where and when (null
/// while it is pending).
fn decided_view(
    desk: &dyn ApprovalDesk,
    action: &PendingAction,
    decided: Option<&ActionDecided>,
) -> Value {
    let mut item = view(desk, action);
    item["decided"] = json!(decided);
    item
}

/// One action and its card (whose `revision` a confirm must send back), how it was decided
/// and its whole audit trail, oldest first.
#[utoipa::path(
    get,
    path = "/api/v1/approvals/{id}",
    operation_id = "get_approval",
    tag = "approvals",
    params(("id" = String, Path, description = "The action id")),
    responses(
        (status = 200, description = "The action, its card, how it was decided and its audit trail", body = crate::apidoc::schemas::ApprovalPage),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
pub(crate) async fn get_one(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = action_id(path)?;
    let desk = state.approvals.as_ref();
    let Some(action) = desk.get(id.as_str()).await.map_err(desk_error)? else {
        return Err(desk_error(ApprovalError::NotFound));
    };
    let decided = desk
        .decisions(std::slice::from_ref(&action))
        .await
        .map_err(desk_error)?;
    let trail = desk.trail(id.as_str()).await.map_err(desk_error)?;
    let mut item = decided_view(desk, &action, decided.first().and_then(Option::as_ref));
    item["trail"] = json!(trail);
    Ok(Json(item))
}

/// How many actions await a decision: a count without cards, for a badge that every page
/// shows. (Action ids are Steward's UUIDs, so none is spelled `count`.)
#[utoipa::path(
    get,
    path = "/api/v1/approvals/count",
    operation_id = "count_pending_approvals",
    tag = "approvals",
    responses(
        (status = 200, description = "The pending count", body = crate::apidoc::schemas::PendingCount),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
pub(crate) async fn count(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let pending = state.approvals.pending_count().await.map_err(desk_error)?;
    Ok(Json(json!({"pending": pending})))
}

#[cfg(test)]
mod tests {
    use super::*;
    use steward_protocol::MAX_OPAQUE_ID_LEN;

    fn id(raw: &str) -> Result<ActionId, ApiError> {
        action_id(Ok(Path(raw.to_owned())))
    }

    #[test]
    fn ids_are_short_ascii_words() {
        assert!(id("0f8e-AB12").is_ok());
        assert!(id(&"a".repeat(MAX_OPAQUE_ID_LEN)).is_ok());
        for bad in [
            "",
            "../x",
            "a/b",
            "a b",
            "a.b",
            "a_b",
            "é",
            "a\u{202e}b",
            "a\0",
        ] {
            assert_eq!(
                id(bad).unwrap_err().status(),
                StatusCode::BAD_REQUEST,
                "{bad:?}"
            );
        }
        assert!(id(&"a".repeat(MAX_OPAQUE_ID_LEN + 1)).is_err());
    }

    #[test]
    fn status_and_limit_rules() {
        assert_eq!(parse_status(None).unwrap(), Some(ActionStatus::Pending));
        assert_eq!(parse_status(Some("all")).unwrap(), None);
        assert_eq!(
            parse_status(Some("expired")).unwrap(),
            Some(ActionStatus::Expired)
        );
        assert!(parse_status(Some("Pending")).is_err());
        for status in ActionStatus::ALL {
            assert_eq!(parse_status(Some(status.as_str())).unwrap(), Some(status));
            assert!(VALID_STATUSES.contains(status.as_str()), "{status:?}");
        }
        assert_eq!(
            parse_limit(None, DEFAULT_LIMIT, MAX_LIMIT).unwrap(),
            DEFAULT_LIMIT
        );
        assert_eq!(parse_limit(Some("1"), DEFAULT_LIMIT, MAX_LIMIT).unwrap(), 1);
        assert_eq!(
            parse_limit(Some("500"), DEFAULT_LIMIT, MAX_LIMIT).unwrap(),
            500
        );
        for bad in ["0", "501", "-1", "x", "", "1.5"] {
            assert!(
                parse_limit(Some(bad), DEFAULT_LIMIT, MAX_LIMIT).is_err(),
                "{bad}"
            );
        }
    }
}
