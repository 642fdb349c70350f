//! `POST /api/v1/messages`: the Steward API, answering with one JSON document or, when
//! the client accepts `text/event-stream`, with every `TurnEvent` as SSE (approval cards
//! included: `event: approval_required`, and `approvals` in the JSON reply).
//!
//! Owns: the request shape (text and optional `attachments`, see `parts`), the JSON reply
//! shape and the SSE projection. Does not own: auth (middleware) or the turn itself (the
//! assistant).

use crate::AppState;
use crate::auth::Authenticated;
use crate::body::{
    check_text, fresh_conversation, idempotency_key, parse_conversation, read_bytes,
};
use crate::error::{
    ApiError, SHOULD_RETRY, VANISHED_MESSAGE, failure_kind_str, failure_status, should_retry,
};
use crate::parts::{PartRequest, parse_with_parts, too_large_body, uploads};
use crate::trace::record_conversation;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::header::ACCEPT;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use serde::Deserialize;
use serde_json::json;
use std::convert::Infallible;
use std::time::Duration;
use steward_core::TurnStream;
use steward_core::{ToolStatus, TurnEnd, TurnView};
use steward_protocol::{ActionCard, ConversationId, Inbound, Surface, TurnEvent, TurnId};

/// SSE keep-alive comment interval: long turns (tools, slow models) must not look dead
/// to proxies and clients.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A message to Steward. `text` may be empty only when attachments come with it.
#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct MessageRequest {
    /// The conversation to continue (1 to 128 of `A-Za-z0-9._:-`); a new one when absent.
    #[serde(default)]
    conversation_id: Option<String>,
    /// At most 64 KiB.
    text: String,
    /// Images, audio and files, base64 in the JSON (`parts::PartRequest`).
    #[serde(default)]
    attachments: Vec<PartRequest>,
}

/// Send a message and run a turn.
///
/// With `Accept: text/event-stream` the answer is the turn as Server-Sent Events; otherwise one JSON document when the turn ends. An `Idempotency-Key`
/// makes a retry the same turn (it is answered from the first attempt, never run twice).
#[utoipa::path(
    post,
    path = "/api/v1/messages",
    operation_id = "post_message",
    tag = "messages",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 255 visible ASCII characters (a UUID is typical): a retry with the same key is the same turn"),
    ),
    request_body(content = MessageRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The finished turn (JSON), or every `TurnEvent` of it as it happens (SSE): each event's `event:` is its `type` (`started`, `text_delta`, `tool_started`, `tool_finished`, `approval_required`, `final`, `failed`) and its `data:` the JSON `TurnEvent` (`#/components/schemas/TurnEvent`); the stream ends after `final` or `failed` (an `event: error` if the turn vanished). A failed turn still answers 200 on SSE.",
            content(
                (crate::apidoc::schemas::MessageReply = "application/json"),
                (String = "text/event-stream"),
            )),
        (status = 400, description = "Malformed input, or a turn failed for its input (`input`)", body = crate::apidoc::schemas::MessageError),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 409, description = "The turn was cancelled (`POST /api/v1/conversations/{id}/cancel`)", body = crate::apidoc::schemas::FailedTurn),
        (status = 413, description = "The body, the text or the attachments are over their limits", body = crate::apidoc::schemas::MessageError),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, description = "JSON of the wrong shape, or the model cannot take the message (`unsupported`, `model_rejected`)", body = crate::apidoc::schemas::MessageError),
        (status = 500, description = "Storage failed, or the turn ended without a result", body = crate::apidoc::schemas::MessageError),
        (status = 502, description = "The model API failed (`model`)", body = crate::apidoc::schemas::FailedTurn),
        (status = 503, description = "No model, a model configuration error, or shutting down", body = crate::apidoc::schemas::FailedTurn),
        (status = 504, description = "A budget (rounds, tokens, time) ran out (`budget`)", body = crate::apidoc::schemas::FailedTurn),
    ),
)]
pub(crate) async fn post_message(
    State(state): State<AppState>,
    Authenticated(principal): Authenticated,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let bytes = read_bytes(body)?;
    let body_len = bytes.len();
    let req: MessageRequest = parse_with_parts(&headers, bytes, state.max_body_bytes)?;
    // The route takes bodies big enough for parts; the rest of the body still has to fit
    // the server's own body limit.
    let parts_len: usize = req.attachments.iter().map(PartRequest::encoded_len).sum();
    if body_len.saturating_sub(parts_len) > state.max_body_bytes {
        return Err(too_large_body());
    }
    let conversation = match req.conversation_id.as_deref() {
        Some(raw) => parse_conversation(raw, "conversation_id")?,
        None => fresh_conversation("api")?,
    };
    if req.attachments.is_empty() || !req.text.trim().is_empty() {
        check_text(&req.text)?;
    }
    let attachments = uploads(req.attachments, &state.parts)?;
    let request = idempotency_key(&headers)?;
    record_conversation(&conversation);
    let mut inbound = Inbound::new(conversation.clone(), principal, Surface::Http, req.text);
    inbound.request = request;
    inbound.attachments = attachments;
    let rx = state.assistant.submit(inbound);
    if wants_sse(&headers) {
        Ok(sse_response(rx))
    } else {
        Ok(json_response(conversation, rx).await)
    }
}

/// Stop the conversation's running turn.
///
/// The request waiting on that turn gets its `Failed{cancelled}` (409); queued turns still run.
/// `cancelled: false` when nothing was running (a harmless no-op).
#[utoipa::path(
    post,
    path = "/api/v1/conversations/{id}/cancel",
    operation_id = "cancel_turn",
    tag = "messages",
    params(("id" = String, Path, description = "The conversation id")),
    responses(
        (status = 200, description = "Whether a running turn was stopped", body = crate::apidoc::schemas::CancelReply),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
    ),
)]
pub(crate) async fn cancel_turn(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let conversation = parse_conversation(&id, "conversation id")?;
    record_conversation(&conversation);
    let cancelled = state.assistant.cancel(&conversation);
    Ok(Json(
        json!({"conversation_id": conversation, "cancelled": cancelled}),
    ))
}

fn wants_sse(headers: &HeaderMap) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|m| {
            m.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("text/event-stream"))
        })
}

async fn json_response(conversation: ConversationId, rx: TurnStream) -> Response {
    let view = TurnView::collect(rx).await;
    let (status, body, retry) = match view.end.clone() {
        Some(TurnEnd::Final { text, usage, model }) => {
            let tools: Vec<_> = view
                .finished_tools()
                .map(|t| json!({"name": t.name, "ok": t.status == ToolStatus::Ok, "touched": t.touched}))
                .collect();
            let body = json!({
                "conversation_id": conversation,
                "turn_id": view.turn_id,
                "reply": text,
                "model": model,
                "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
                "tool_calls": tools,
                "approvals": view.cards,
            });
            (StatusCode::OK, body, None)
        }
        Some(TurnEnd::Failed {
            kind,
            message,
            retryable,
        }) => (
            failure_status(kind),
            failed_body(
                &conversation,
                view.turn_id,
                &view.cards,
                failure_kind_str(kind),
                &message,
                retryable,
            ),
            Some(retryable),
        ),
        Some(TurnEnd::Vanished) | None => {
            tracing::warn!("turn stream closed without a terminal event");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                failed_body(
                    &conversation,
                    view.turn_id,
                    &view.cards,
                    "internal",
                    VANISHED_MESSAGE,
                    true,
                ),
                Some(true),
            )
        }
    };
    let mut resp = (status, Json(body)).into_response();
    if let Some(retry) = retry {
        resp.headers_mut().insert(SHOULD_RETRY, should_retry(retry));
    }
    resp
}

fn failed_body(
    conversation: &ConversationId,
    turn_id: Option<TurnId>,
    approvals: &[ActionCard],
    kind: &str,
    message: &str,
    retryable: bool,
) -> serde_json::Value {
    // Cards raised before the failure still await a decision; the caller must see them.
    json!({
        "conversation_id": conversation,
        "turn_id": turn_id,
        "approvals": approvals,
        "error": {"kind": kind, "message": message, "retryable": retryable},
    })
}

fn sse_response(rx: TurnStream) -> Response {
    let mut resp = Sse::new(turn_events(rx))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    // Reverse proxies (nginx) would otherwise buffer the stream.
    resp.headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}

/// Every event as `event: <name>` / `data: <json>`, ending after the terminal one. If the
/// channel closes early, a final `event: error` says so instead of just hanging up.
fn turn_events(rx: TurnStream) -> impl Stream<Item = Result<Event, Infallible>> {
    futures_util::stream::unfold(Some(rx), |rx| async move {
        let mut rx = rx?;
        match rx.recv().await {
            Some(event) => {
                let next = (!event.is_terminal()).then_some(rx);
                Some((Ok(to_sse(&event)), next))
            }
            None => {
                let data = json!({"error": {"kind": "internal", "message": VANISHED_MESSAGE}});
                Some((
                    Ok(Event::default().event("error").data(data.to_string())),
                    None,
                ))
            }
        }
    })
}

fn to_sse(event: &TurnEvent) -> Event {
    match serde_json::to_string(event) {
        Ok(data) => Event::default().event(event.name()).data(data),
        Err(_) => {
            let data = json!({"error": {"kind": "internal", "message": "could not encode event"}});
            Event::default().event("error").data(data.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(ACCEPT, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn detects_event_stream_in_accept_lists() {
        assert!(wants_sse(&accept("text/event-stream")));
        assert!(wants_sse(&accept(
            "application/json, Text/Event-Stream;q=0.9"
        )));
        assert!(!wants_sse(&accept("application/json")));
        assert!(!wants_sse(&accept("*/*")));
        assert!(!wants_sse(&HeaderMap::new()));
    }
}
