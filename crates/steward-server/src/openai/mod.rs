//! The OpenAI-compatible API: `POST /v1/chat/completions` and `GET /v1/models`, so
//! existing OpenAI clients and eval harnesses can talk to Steward.
//!
//! Owns: the request shape, choosing the conversation (header, then `user`, then fresh),
//! the non-streaming `chat.completion` reply (approval cards appended to the content as
//! "[approval needed]" notes). Does not own: the streaming chunks
//! (`stream.rs`) or conversation history (Steward keeps it; earlier messages are ignored).

mod stream;

use crate::AppState;
use crate::body::{check_text, fresh_conversation, parse_conversation, parse_json};
use crate::error::{ApiError, Flavor, VANISHED_MESSAGE, failure_kind_str, failure_status};
use crate::trace::record_conversation;
use crate::turn::{End, collect, tool_line};
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::{SystemTime, UNIX_EPOCH};
use steward_protocol::{ActionCard, ConversationId, Inbound, Principal, Surface};

/// Names the conversation on requests and echoes it on responses.
pub(crate) const CONVERSATION_HEADER: HeaderName =
    HeaderName::from_static("x-steward-conversation");

/// The one model Steward exposes; the real provider is Steward's business.
const MODEL_ID: &str = "steward";

#[derive(Deserialize)]
struct ChatRequest {
    #[serde(default)]
    model: Option<String>,
    messages: Vec<ChatMessage>,
    #[serde(default)]
    stream: Option<bool>,
    #[serde(default)]
    stream_options: Option<StreamOptions>,
    #[serde(default)]
    user: Option<String>,
}

#[derive(Deserialize)]
struct ChatMessage {
    role: String,
    /// Kept loose: only the last message's content is read, and earlier ones may use
    /// shapes (tool calls, images, null) Steward has no use for.
    #[serde(default)]
    content: Option<Value>,
}

#[derive(Deserialize)]
struct StreamOptions {
    #[serde(default)]
    include_usage: Option<bool>,
}

pub(crate) async fn list_models() -> Json<Value> {
    Json(json!({
        "object": "list",
        "data": [{"id": MODEL_ID, "object": "model", "owned_by": "steward"}],
    }))
}

pub(crate) async fn chat_completions(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match prepare(&headers, body) {
        Ok(prepared) => run(state, prepared).await,
        Err(err) => err.flavor(Flavor::OpenAi).into_response(),
    }
}

struct Prepared {
    conversation: ConversationId,
    text: String,
    stream: bool,
    include_usage: bool,
    model_hint: Option<String>,
}

fn prepare(headers: &HeaderMap, body: Result<Bytes, BytesRejection>) -> Result<Prepared, ApiError> {
    let req: ChatRequest = parse_json(headers, body)?;
    let Some(last) = req.messages.last() else {
        return Err(ApiError::bad_request("messages must not be empty"));
    };
    if last.role != "user" {
        return Err(ApiError::bad_request(
            "the last message must have role \"user\"",
        ));
    }
    let text = content_text(last.content.as_ref())?;
    check_text(&text)?;
    let conversation = choose_conversation(headers, req.user.as_deref())?;
    Ok(Prepared {
        conversation,
        text,
        stream: req.stream.unwrap_or(false),
        include_usage: req
            .stream_options
            .and_then(|o| o.include_usage)
            .unwrap_or(false),
        model_hint: req.model,
    })
}

/// Text of a message whose content is a string or an array of `{"type":"text"}` parts.
fn content_text(content: Option<&Value>) -> Result<String, ApiError> {
    match content {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => {
            let mut texts = Vec::with_capacity(parts.len());
            for part in parts {
                match (part.get("type").and_then(Value::as_str), part.get("text")) {
                    (Some("text"), Some(Value::String(t))) => texts.push(t.as_str()),
                    (Some("text"), _) => {
                        return Err(ApiError::bad_request(
                            "a text content part needs a string \"text\"",
                        ));
                    }
                    _ => {
                        return Err(ApiError::bad_request(
                            "only content parts of type \"text\" are supported",
                        ));
                    }
                }
            }
            Ok(texts.join("\n"))
        }
        None | Some(Value::Null) => Err(ApiError::bad_request("the last message has no content")),
        Some(_) => Err(ApiError::bad_request(
            "content must be a string or an array of content parts",
        )),
    }
}

fn choose_conversation(
    headers: &HeaderMap,
    user: Option<&str>,
) -> Result<ConversationId, ApiError> {
    if let Some(value) = headers.get(&CONVERSATION_HEADER) {
        // Non-visible-ASCII header bytes cannot be a valid id; say which rule they break.
        let raw = value.to_str().map_err(|_| {
            ApiError::bad_request(
                "invalid X-Steward-Conversation header: conversation id may contain only letters, digits and . _ : -",
            )
        })?;
        return parse_conversation(raw, "X-Steward-Conversation header");
    }
    match user {
        Some(raw) => parse_conversation(raw, "user field (used as the conversation id)"),
        None => fresh_conversation("openai"),
    }
}

async fn run(state: AppState, prepared: Prepared) -> Response {
    let conversation = prepared.conversation;
    record_conversation(&conversation);
    let rx = state.assistant.submit(Inbound {
        conversation: conversation.clone(),
        principal: Principal::owner(),
        surface: Surface::OpenAiApi,
        text: prepared.text,
    });
    let mut resp = if prepared.stream {
        let model = state
            .model_label
            .as_deref()
            .map(str::to_owned)
            .or(prepared.model_hint)
            .unwrap_or_else(|| MODEL_ID.to_owned());
        stream::response(rx, model, prepared.include_usage)
    } else {
        completion(rx).await
    };
    if let Ok(value) = HeaderValue::from_str(conversation.as_str()) {
        resp.headers_mut().insert(CONVERSATION_HEADER, value);
    }
    resp
}

async fn completion(rx: steward_core::TurnStream) -> Response {
    let collected = collect(rx).await;
    match collected.end {
        End::Final {
            mut text,
            usage,
            model,
        } => {
            // Every tool call shows what it touched: a reply alone never hides a request.
            if !collected.tool_calls.is_empty() {
                text.push('\n');
                for t in &collected.tool_calls {
                    text.push('\n');
                    text.push_str(&tool_line(&t.name, t.ok, t.touched.as_deref()));
                }
            }
            for card in &collected.approvals {
                text.push_str(&approval_note(card));
            }
            let id = completion_id(collected.turn_id.as_deref());
            let body = json!({
                "id": id,
                "object": "chat.completion",
                "created": unix_now(),
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
        End::Failed { kind, message, .. } => {
            ApiError::new(failure_status(kind), failure_kind_str(kind), message)
                .flavor(Flavor::OpenAi)
                .into_response()
        }
        End::Vanished => {
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

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_forms() {
        assert_eq!(content_text(Some(&json!("hi"))).unwrap(), "hi");
        let parts = json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]);
        assert_eq!(content_text(Some(&parts)).unwrap(), "a\nb");
        assert!(content_text(Some(&json!([{"type": "image_url", "image_url": {}}]))).is_err());
        assert!(content_text(Some(&json!([{"type": "text"}]))).is_err());
        assert!(content_text(Some(&json!(42))).is_err());
        assert!(content_text(None).is_err());
    }
}
