//! `POST /api/v1/approvals/{id}/confirm|cancel|revise`: hand a decision to
//! `ApprovalDesk::resolve` and project its `Resolution` into HTTP.
//!
//! Owns: the request bodies of the three decisions (a confirm must carry the `revision` of
//! the card the client displayed: approval binds to the effect the owner saw), waiting for a
//! confirm's follow-up turn, and the reply shapes (200 applied / already, 409 conflict or
//! stale card, both with the current card). Does not own: whether a decision wins, runs a
//! tool or is valid — the desk decides all of that.

use super::{action_id, desk_error, view};
use crate::AppState;
use crate::auth::{Authenticated, RequestSurface};
use crate::body::{parse_json, read_bytes};
use crate::error::{ApiError, VANISHED_MESSAGE, failure_kind_str};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use steward_core::{ApprovalDesk, ApprovalError, Resolution};
use steward_core::{TurnEnd, TurnView};
use steward_protocol::{Decision, PendingAction, Principal, Surface};
use tracing::Instrument;

/// Confirm an action as its card showed it.
///
/// The tool runs, then the agent's follow-up turn,
/// and both are in the answer. Only the card revision sent can run.
#[utoipa::path(
    post,
    path = "/api/v1/approvals/{id}/confirm",
    operation_id = "confirm_approval",
    tag = "approvals",
    params(("id" = String, Path, description = "The action id")),
    request_body(content = ConfirmRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Ran (or had already been confirmed)", body = crate::apidoc::schemas::DecisionReply),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 409, description = "Already decided otherwise (`conflict`) or the card changed since it was shown (`stale_card`): nothing ran", body = crate::apidoc::schemas::DecisionConflict),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
pub(crate) async fn confirm(
    State(state): State<AppState>,
    Authenticated(principal): Authenticated,
    RequestSurface(surface): RequestSurface,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = action_id(path)?;
    let revision = shown_revision(&headers, body)?;
    decide(
        &state,
        id.as_str(),
        Decision::Confirm { revision },
        principal,
        surface,
    )
    .await
}

/// Which card the owner approves.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfirmRequest {
    /// The `revision` of the card displayed (required: a confirm without it is refused).
    #[serde(default)]
    #[schema(required = true)]
    revision: Option<u32>,
}

const REVISION_REQUIRED: &str = "a confirm must say which card it approves: send {\"revision\": N} \
     with the `revision` of the card you displayed (GET /api/v1/approvals/{id}); a card revised \
     since is refused with 409 and the current card";

/// The body of a confirm: exactly `{"revision": N}`. Without it there is no telling which
/// card the owner saw, so it is refused (400) rather than guessed; other fields (a new
/// payload, say) are refused (422) rather than ignored.
fn shown_revision(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<u32, ApiError> {
    let required = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "revision_required",
            REVISION_REQUIRED,
        )
    };
    let bytes = read_bytes(body)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(required());
    }
    // An object first (an array would otherwise fill the struct by position).
    let fields: Map<String, Value> = parse_json(headers, Ok(bytes))?;
    let req: ConfirmRequest = serde_json::from_value(Value::Object(fields)).map_err(|e| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_request",
            format!("invalid request body: {e}"),
        )
    })?;
    req.revision.ok_or_else(required)
}

/// Cancel an action: it will not run.
#[utoipa::path(
    post,
    path = "/api/v1/approvals/{id}/cancel",
    operation_id = "cancel_approval",
    tag = "approvals",
    params(("id" = String, Path, description = "The action id")),
    request_body(content = Option<crate::apidoc::schemas::NoFields>, description = "None: an empty body or `{}`", content_type = "application/json"),
    responses(
        (status = 200, description = "Cancelled (or had already been)", body = crate::apidoc::schemas::DecisionReply),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 409, description = "Already decided otherwise (`conflict`) or the card changed since it was shown (`stale_card`): nothing ran", body = crate::apidoc::schemas::DecisionConflict),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
pub(crate) async fn cancel(
    State(state): State<AppState>,
    Authenticated(principal): Authenticated,
    RequestSurface(surface): RequestSurface,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = action_id(path)?;
    no_fields(&headers, body)?;
    decide(&state, id.as_str(), Decision::Cancel, principal, surface).await
}

/// Ask for an edit in words.
///
/// The next message in the action's conversation describes the
/// change ("make it Friday instead"); the action stays pending meanwhile.
#[utoipa::path(
    post,
    path = "/api/v1/approvals/{id}/edit",
    operation_id = "request_edit",
    tag = "approvals",
    params(("id" = String, Path, description = "The action id")),
    request_body(content = Option<crate::apidoc::schemas::NoFields>, description = "None: an empty body or `{}`", content_type = "application/json"),
    responses(
        (status = 200, description = "The action, now awaiting the edit in words", body = crate::apidoc::schemas::ApprovalView),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
pub(crate) async fn request_edit(
    State(state): State<AppState>,
    Authenticated(principal): Authenticated,
    RequestSurface(surface): RequestSurface,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = action_id(path)?;
    no_fields(&headers, body)?;
    let action = state
        .approvals
        .request_edit(id.as_str(), principal, surface)
        .await
        .map_err(desk_error)?;
    Ok(Json(view(state.approvals.as_ref(), &action)).into_response())
}

/// New arguments for the action's tool, re-checked by its validator.
#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct ReviseRequest {
    /// A JSON object: the tool's arguments.
    #[schema(value_type = Object)]
    arguments: Value,
}

/// Replace an action's arguments; it stays pending with a new card (a new `revision`).
#[utoipa::path(
    post,
    path = "/api/v1/approvals/{id}/revise",
    operation_id = "revise_approval",
    tag = "approvals",
    params(("id" = String, Path, description = "The action id")),
    request_body(content = ReviseRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The revised action and its new card", body = crate::apidoc::schemas::DecisionReply),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 409, description = "Already decided otherwise (`conflict`) or the card changed since it was shown (`stale_card`): nothing ran", body = crate::apidoc::schemas::DecisionConflict),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
    ),
)]
pub(crate) async fn revise(
    State(state): State<AppState>,
    Authenticated(principal): Authenticated,
    RequestSurface(surface): RequestSurface,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = action_id(path)?;
    let req: ReviseRequest = parse_json(&headers, body)?;
    if !req.arguments.is_object() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_request",
            "arguments must be a JSON object",
        ));
    }
    let decision = Decision::Revise {
        arguments: req.arguments,
    };
    decide(&state, id.as_str(), decision, principal, surface).await
}

/// Cancel and edit take no input: an empty body or `{}`. Anything more is refused rather
/// than ignored, so a client that thinks it sends something learns otherwise.
fn no_fields(headers: &HeaderMap, body: Result<Bytes, BytesRejection>) -> Result<(), ApiError> {
    let bytes = read_bytes(body)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let fields: Map<String, Value> = parse_json(headers, Ok(bytes))?;
    if fields.is_empty() {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_request",
            "this decision takes no fields; send an empty body or {}",
        ))
    }
}

/// What the desk decided, with a confirm's follow-up turn already drained.
enum Outcome {
    Applied {
        action: PendingAction,
        follow: Option<TurnView>,
    },
    Revised(PendingAction),
    Already(PendingAction),
    Conflict(PendingAction),
    Stale(PendingAction),
}

async fn decide(
    state: &AppState,
    id: &str,
    decision: Decision,
    principal: Principal,
    surface: Surface,
) -> Result<Response, ApiError> {
    tracing::info!(decision = decision.name(), "approval decision requested");
    // On its own task: a client hanging up must not cancel a decision half-way through
    // `resolve`, nor cut the agent's follow-up turn short.
    let task = tokio::spawn(
        resolve(
            state.approvals.clone(),
            id.to_owned(),
            decision,
            principal,
            surface,
        )
        .instrument(tracing::Span::current()),
    );
    let outcome = task
        .await
        .map_err(|_| {
            tracing::warn!("approval decision task failed");
            ApiError::internal(VANISHED_MESSAGE)
        })?
        .map_err(desk_error)?;
    let (status, body) = match outcome {
        Outcome::Applied { action, follow } => (StatusCode::OK, applied_body(&action, follow)),
        Outcome::Revised(action) => (StatusCode::OK, view(state.approvals.as_ref(), &action)),
        Outcome::Already(action) => (StatusCode::OK, json!({"action": action, "already": true})),
        Outcome::Conflict(action) => {
            let message = format!("action is {}", action.status.as_str());
            let body = json!({
                "error": {"kind": "conflict", "message": message},
                "action": action,
                "card": state.approvals.card(&action, None),
            });
            (StatusCode::CONFLICT, body)
        }
        Outcome::Stale(action) => {
            let message = format!(
                "the card changed since it was shown (now revision {}); nothing was run. \
                 Review the current card and confirm its revision",
                action.revision
            );
            let body = json!({
                "error": {"kind": "stale_card", "message": message},
                "action": action,
                "card": state.approvals.card(&action, None),
            });
            (StatusCode::CONFLICT, body)
        }
    };
    Ok((status, Json(body)).into_response())
}

async fn resolve(
    desk: Arc<dyn ApprovalDesk>,
    id: String,
    decision: Decision,
    principal: Principal,
    surface: Surface,
) -> Result<Outcome, ApprovalError> {
    let is_revise = matches!(decision, Decision::Revise { .. });
    let resolution = desk.resolve(&id, decision, principal, surface).await?;
    Ok(match resolution {
        Resolution::Applied { action, follow_up } if is_revise => {
            if let Some(rx) = follow_up {
                // Not expected for a revision; drained so the turn is never left blocked.
                tracing::debug!("revision came with a follow-up turn; draining it");
                tokio::spawn(TurnView::collect(rx).in_current_span());
            }
            Outcome::Revised(action)
        }
        Resolution::Applied { action, follow_up } => {
            let follow = match follow_up {
                Some(rx) => Some(TurnView::collect(rx).await),
                None => None,
            };
            Outcome::Applied { action, follow }
        }
        Resolution::AlreadyDone { action } => Outcome::Already(action),
        Resolution::Conflict { action } => Outcome::Conflict(action),
        Resolution::Stale { action } => Outcome::Stale(action),
    })
}

fn applied_body(action: &PendingAction, follow: Option<TurnView>) -> Value {
    let (reply, approvals, error) = match follow {
        None => (None, Vec::new(), None),
        Some(follow) => match follow.end {
            Some(TurnEnd::Final { text, .. }) => (Some(text), follow.cards, None),
            Some(TurnEnd::Failed {
                kind,
                message,
                retryable,
            }) => {
                let error = json!({
                    "kind": failure_kind_str(kind),
                    "message": message,
                    "retryable": retryable,
                });
                (None, follow.cards, Some(error))
            }
            Some(TurnEnd::Vanished) | None => {
                tracing::warn!("follow-up turn closed without a terminal event");
                let error = json!({
                    "kind": "internal",
                    "message": VANISHED_MESSAGE,
                    "retryable": true,
                });
                (None, follow.cards, Some(error))
            }
        },
    };
    let mut body = Map::new();
    body.insert("action".into(), json!(action));
    body.insert("result".into(), json!(action.outcome));
    body.insert("reply".into(), json!(reply));
    body.insert("approvals".into(), json!(approvals));
    if let Some(error) = error {
        body.insert("error".into(), error);
    }
    Value::Object(body)
}
