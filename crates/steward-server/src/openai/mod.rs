//! The OpenAI-compatible API: `POST /v1/chat/completions`, `GET /v1/models` and
//! `GET /v1/models/{id}`, so existing OpenAI clients and eval harnesses can talk to Steward.
//!
//! Owns: the model objects, resolving the conversation (named, derived from an
//! `Idempotency-Key`, a retry's first attempt's, or fresh), the non-streaming
//! `chat.completion` reply (approval cards appended to the content as "[approval needed]"
//! notes). Does not own: reading the request (`request.rs`), the streaming chunks
//! (`stream.rs`) or conversation history (Steward keeps it; earlier messages are ignored).

mod request;
mod stream;

use request::{ChatRequest, Chosen, Prepared, prepare};

use crate::AppState;
use crate::auth::Authenticated;
use crate::body::fresh_conversation;
use crate::error::{ApiError, Flavor, VANISHED_MESSAGE};
use crate::trace::record_conversation;
use crate::turn::view_line;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use steward_core::{TurnEnd, TurnView};
use steward_protocol::{
    ActionCard, Clock, ConversationId, Inbound, Principal, Replay, Surface, TurnId,
};

/// Names the conversation on requests and echoes it on responses.
pub(crate) const CONVERSATION_HEADER: HeaderName =
    HeaderName::from_static("x-steward-conversation");

/// The one model Steward exposes; the real provider is Steward's business.
const MODEL_ID: &str = "steward";

/// The model object (`created` is required by the OpenAI schema): when this server started,
/// the closest thing Steward has to the model's creation.
fn model_object(state: &AppState) -> Value {
    json!({
        "id": MODEL_ID,
        "object": "model",
        "created": state.started_secs,
        "owned_by": "steward",
    })
}

/// The models: Steward serves one, `steward`.
#[utoipa::path(
    get,
    path = "/v1/models",
    operation_id = "list_models",
    tag = "openai",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The model list", body = crate::apidoc::schemas::ModelList),
        (status = 401, response = crate::apidoc::OpenAiUnauthorized),
    ),
)]
pub(crate) async fn list_models(State(state): State<AppState>) -> Json<Value> {
    Json(json!({"object": "list", "data": [model_object(&state)]}))
}

/// One model.
#[utoipa::path(
    get,
    path = "/v1/models/{id}",
    operation_id = "get_model",
    tag = "openai",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The model id (`steward`)")),
    responses(
        (status = 200, description = "The model", body = crate::apidoc::schemas::ModelObject),
        (status = 401, response = crate::apidoc::OpenAiUnauthorized),
        (status = 404, description = "No such model (`model_not_found`)", body = crate::error::OpenAiErrorBody),
    ),
)]
pub(crate) async fn get_model(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    if id == MODEL_ID {
        return Json(model_object(&state)).into_response();
    }
    ApiError::new(
        StatusCode::NOT_FOUND,
        "model_not_found",
        format!("The model {id:?} does not exist; Steward serves one model, \"{MODEL_ID}\"."),
    )
    .flavor(Flavor::OpenAi)
    .into_response()
}

/// A turn through the OpenAI chat completions API.
///
/// The reply as one `chat.completion`, or
/// with `stream: true` as `chat.completion.chunk` Server-Sent Events ending in `[DONE]`.
/// Tool runs and pending approvals are told in the content. The conversation is the one the
/// `x-steward-conversation` header or the `user` field names, else a new one (echoed in
/// `x-steward-conversation`).
#[utoipa::path(
    post,
    path = "/v1/chat/completions",
    operation_id = "create_chat_completion",
    tag = "openai",
    security(("bearer" = [])),
    params(
        ("x-steward-conversation" = Option<String>, Header, description = "The conversation to run in"),
        ("Idempotency-Key" = Option<String>, Header, description = "A retry with the same key is the same turn"),
    ),
    request_body(content = ChatRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The completion (JSON), or with `stream: true` Server-Sent Events whose `data:` lines are `chat.completion.chunk` objects, then a usage chunk if `stream_options.include_usage`, then `[DONE]`; a failure mid-stream is a `data: {\"error\":…}` line before `[DONE]`",
            headers(("x-steward-conversation" = String, description = "The conversation the turn ran in")),
            content(
                (crate::apidoc::schemas::ChatCompletion = "application/json"),
                (String = "text/event-stream"),
            )),
        (status = 400, response = crate::apidoc::OpenAiBadRequest),
        (status = 401, response = crate::apidoc::OpenAiUnauthorized),
        (status = 409, description = "The turn was cancelled", body = crate::error::OpenAiErrorBody),
        (status = 413, response = crate::apidoc::OpenAiPayloadTooLarge),
        (status = 415, response = crate::apidoc::OpenAiUnsupportedMediaType),
        (status = 422, response = crate::apidoc::OpenAiInvalidRequest),
        (status = 500, description = "Storage failed, or the turn ended without a result", body = crate::error::OpenAiErrorBody),
        (status = 502, description = "The model API failed", body = crate::error::OpenAiErrorBody),
        (status = 503, description = "No model, a model configuration error, or shutting down", body = crate::error::OpenAiErrorBody),
        (status = 504, description = "A budget ran out", body = crate::error::OpenAiErrorBody),
    ),
)]
pub(crate) async fn chat_completions(
    State(state): State<AppState>,
    Authenticated(principal): Authenticated,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match prepare(&headers, body, &state.parts, state.max_body_bytes) {
        Ok(prepared) => run(state, prepared, principal).await,
        Err(err) => err.flavor(Flavor::OpenAi).into_response(),
    }
}

/// The conversation: the one named; for an unnamed request with an `Idempotency-Key`, one
/// derived from the key (its retry lands in the same place); for an SDK's marked retry, the
/// first attempt's; else a new one.
async fn conversation(state: &AppState, prepared: &Prepared) -> Result<ConversationId, ApiError> {
    if let Chosen::Named(id) = &prepared.conversation {
        return Ok(id.clone());
    }
    match prepared.request.replay {
        Replay::Always => {
            let id = format!("openai-{}", &prepared.request.id()[..32]);
            ConversationId::parse(&id)
                .map_err(|_| ApiError::internal("could not create a conversation id"))
        }
        Replay::IfRecent => match state.assistant.conversation_of(&prepared.request).await {
            Some(id) => Ok(id),
            None => fresh_conversation("openai"),
        },
        Replay::Never => fresh_conversation("openai"),
    }
}

async fn run(state: AppState, prepared: Prepared, principal: Principal) -> Response {
    let conversation = match conversation(&state, &prepared).await {
        Ok(id) => id,
        Err(err) => return err.flavor(Flavor::OpenAi).into_response(),
    };
    record_conversation(&conversation);
    let mut inbound = Inbound::new(
        conversation.clone(),
        principal,
        Surface::OpenAiApi,
        prepared.text,
    );
    inbound.instructions = prepared.instructions;
    inbound.attachments = prepared.attachments;
    inbound.request = Some(prepared.request);
    let rx = state.assistant.submit(inbound);
    let mut resp = if prepared.stream {
        let model = state
            .assistant
            .model_label()
            .or(prepared.model_hint)
            .unwrap_or_else(|| MODEL_ID.to_owned());
        stream::response(rx, model, prepared.include_usage, state.clock.now_secs())
    } else {
        completion(rx, state.clock.as_ref()).await
    };
    if let Ok(value) = HeaderValue::from_str(conversation.as_str()) {
        resp.headers_mut().insert(CONVERSATION_HEADER, value);
    }
    resp
}

async fn completion(rx: steward_core::TurnStream, clock: &dyn Clock) -> Response {
    let view = TurnView::collect(rx).await;
    match view.end.clone() {
        Some(TurnEnd::Final {
            mut text,
            usage,
            model,
        }) => {
            // Every tool call shows what it touched: a reply alone never hides a request.
            let mut tools = view.finished_tools().peekable();
            if tools.peek().is_some() {
                text.push('\n');
                for t in tools {
                    text.push('\n');
                    text.push_str(&view_line(t));
                }
            }
            for card in &view.cards {
                text.push_str(&approval_note(card));
            }
            let id = completion_id(view.turn_id.as_ref().map(TurnId::as_str));
            let body = json!({
                "id": id,
                "object": "chat.completion",
                // When the answer was complete, as OpenAI stamps it.
                "created": clock.now_secs(),
                "model": model,
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                    "logprobs": null,
                }],
                "usage": {
                    "prompt_tokens": usage.input_tokens,
                    "completion_tokens": usage.output_tokens,
                    "total_tokens": usage.total(),
                },
            });
            (StatusCode::OK, Json(body)).into_response()
        }
        Some(TurnEnd::Failed {
            kind,
            message,
            retryable,
        }) => ApiError::failed_turn(kind, message, retryable)
            .flavor(Flavor::OpenAi)
            .into_response(),
        Some(TurnEnd::Vanished) | None => {
            tracing::warn!("turn stream closed without a terminal event");
            ApiError::internal(VANISHED_MESSAGE)
                .flavor(Flavor::OpenAi)
                .into_response()
        }
    }
}

/// How a pending approval reads inside assistant content: plain OpenAI clients have no
/// other way to learn that something awaits a decision, or how to give one.
fn approval_note(card: &ActionCard) -> String {
    format!(
        "\n\n[approval needed] {}\nConfirm: POST /api/v1/approvals/{}/confirm with {{\"revision\": {}}}",
        card.text, card.action_id, card.revision
    )
}

fn completion_id(turn_id: Option<&str>) -> String {
    match turn_id {
        Some(id) => format!("chatcmpl-{id}"),
        None => format!("chatcmpl-{}", uuid::Uuid::new_v4()),
    }
}
