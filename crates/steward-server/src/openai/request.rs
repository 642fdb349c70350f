//! Reading a `POST /v1/chat/completions` body into what the turn needs: the last user
//! message (its text and its image, audio and file parts), the client's instructions (its system and developer messages), the conversation
//! it chose, and the request key that makes a retry the same turn.
//!
//! Owns: the request shape, refusing fields Steward does not support (with a 400 naming the
//! field, never silence), mapping any `user` string to a conversation id, and the retry
//! marker. Does not own: running or answering the turn (`mod.rs`, `stream.rs`).

use crate::MAX_TEXT_BYTES;
use crate::body::{check_text, idempotency_key, parse_conversation, read_bytes};
use crate::error::ApiError;
use crate::parts::{PartRequest, parse_with_parts, split_data_url, too_large_body, uploads};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, HeaderName};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use steward_protocol::{ConversationId, PartLimits, RequestKey, Surface, Upload};

use super::CONVERSATION_HEADER;

/// The retry counter the Stainless-built SDKs (openai for Python and Node, anthropic) send:
/// `0` on the first attempt, then 1, 2, ...
const RETRY_COUNT_HEADER: HeaderName = HeaderName::from_static("x-stainless-retry-count");

/// Longest readable part of a conversation id made from a `user` value.
const USER_SLUG_CHARS: usize = 32;

/// An OpenAI chat completion request. Only the last message (it must be the user's) and the
/// system and developer messages are read: Steward keeps the conversation's history itself.
/// Fields Steward cannot honour (`n`, `tools`, `functions`, `tool_choice`, `function_call`,
/// `response_format`, `audio`, `modalities`, `logprobs`, `top_logprobs`) are refused with 400;
/// other unknown fields are ignored.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ChatCompletionRequest)]
pub(crate) struct ChatRequest {
    /// Ignored beyond a hint: Steward answers with its own model.
    #[serde(default)]
    model: Option<String>,
    messages: Vec<ChatMessage>,
    #[serde(default)]
    stream: Option<bool>,
    #[serde(default)]
    stream_options: Option<StreamOptions>,
    /// Names the conversation (when no `x-steward-conversation` header does).
    #[serde(default)]
    user: Option<String>,
    // Fields Steward cannot honour: read only to refuse them (`unsupported`).
    #[serde(default)]
    #[schema(ignore)]
    n: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    tools: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    functions: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    tool_choice: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    function_call: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    response_format: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    audio: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    modalities: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    logprobs: Option<Value>,
    #[serde(default)]
    #[schema(ignore)]
    top_logprobs: Option<Value>,
}

/// One message: `system`, `developer`, `user`, `assistant` or `tool`.
#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct ChatMessage {
    role: String,
    /// Kept loose: earlier messages may use shapes (tool calls, images, null) Steward has
    /// no use for; only the last message and the instructions are read.
    /// A string, or content parts (`text`, `image_url` with a `data:` URL, `input_audio`, `file`).
    #[serde(default)]
    #[schema(value_type = Option<Value>)]
    content: Option<Value>,
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct StreamOptions {
    #[serde(default)]
    include_usage: Option<bool>,
}

/// Which conversation the request runs in.
pub(super) enum Chosen {
    /// Named by the header or the `user` field.
    Named(ConversationId),
    /// Not named: a new one, unless a retry finds its first attempt's.
    Fresh,
}

pub(super) struct Prepared {
    pub(super) conversation: Chosen,
    pub(super) text: String,
    /// The last user message's images, audio and files.
    pub(super) attachments: Vec<Upload>,
    pub(super) instructions: Option<String>,
    pub(super) request: RequestKey,
    pub(super) stream: bool,
    pub(super) include_usage: bool,
    pub(super) model_hint: Option<String>,
}

pub(super) fn prepare(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    limits: &PartLimits,
    max_body_bytes: usize,
) -> Result<Prepared, ApiError> {
    let bytes = read_bytes(body)?;
    let req: ChatRequest = parse_with_parts(headers, bytes.clone(), max_body_bytes)?;
    unsupported(&req)?;
    for (i, m) in req.messages.iter().enumerate() {
        if !matches!(
            m.role.as_str(),
            "system" | "developer" | "user" | "assistant" | "tool" | "function"
        ) {
            return Err(ApiError::bad_request(format!(
                "messages[{i}].role: unknown role (expected system, developer, user, assistant or tool)"
            )));
        }
    }
    let Some(last) = req.messages.last() else {
        return Err(ApiError::bad_request("messages must not be empty"));
    };
    if last.role != "user" {
        return Err(ApiError::bad_request(
            "the last message must have role \"user\"",
        ));
    }
    let (text, parts) = user_content(last.content.as_ref())?;
    // The route takes bodies big enough for parts; the rest must fit the body limit (parts
    // in earlier messages count as the rest: Steward keeps its own history).
    let parts_len: usize = parts.iter().map(PartRequest::encoded_len).sum();
    if bytes.len().saturating_sub(parts_len) > max_body_bytes {
        return Err(too_large_body());
    }
    if parts.is_empty() || !text.trim().is_empty() {
        check_text(&text)?;
    }
    let attachments = uploads(parts, limits)?;
    let instructions = instructions(&req.messages)?;
    let conversation = choose_conversation(headers, req.user.as_deref())?;
    let request = match idempotency_key(headers)? {
        Some(key) => key,
        None => {
            let retry = is_retry(headers);
            match &conversation {
                Chosen::Named(id) => steward_core::retry_key(
                    Surface::OpenAiApi,
                    id,
                    &text,
                    instructions.as_deref(),
                    retry,
                ),
                // The retry of a request that named no conversation is the same bytes.
                Chosen::Fresh => steward_core::fresh_retry_key(
                    Surface::OpenAiApi,
                    &String::from_utf8_lossy(&bytes),
                    retry,
                ),
            }
        }
    };
    Ok(Prepared {
        conversation,
        text,
        attachments,
        instructions,
        request,
        stream: req.stream.unwrap_or(false),
        include_usage: req
            .stream_options
            .and_then(|o| o.include_usage)
            .unwrap_or(false),
        model_hint: req.model,
    })
}

/// A field present with a value other than `null`.
fn set(v: &Option<Value>) -> Option<&Value> {
    v.as_ref().filter(|v| !v.is_null())
}

/// A 400 naming the first field Steward cannot honour. Fields it can safely ignore
/// (temperature, max_tokens, stop, seed, metadata, ...) are accepted and documented as such.
fn unsupported(req: &ChatRequest) -> Result<(), ApiError> {
    let refuse = |field: &str, why: &str| Err(ApiError::bad_request(format!("{field}: {why}")));
    if let Some(n) = set(&req.n)
        && n.as_u64() != Some(1)
    {
        return refuse(
            "n",
            "Steward gives one answer per request; leave n out or set it to 1",
        );
    }
    for (field, value) in [("tools", &req.tools), ("functions", &req.functions)] {
        if let Some(v) = set(value)
            && v.as_array().is_none_or(|a| !a.is_empty())
        {
            return refuse(
                field,
                "client-supplied tools are not supported: Steward runs its own tools (and asks \
                 before consequential ones); leave this field out",
            );
        }
    }
    for (field, value) in [
        ("tool_choice", &req.tool_choice),
        ("function_call", &req.function_call),
    ] {
        if let Some(v) = set(value)
            && !matches!(v.as_str(), Some("none" | "auto"))
        {
            return refuse(
                field,
                "only \"auto\" or \"none\" are supported (Steward chooses its own tools)",
            );
        }
    }
    if let Some(v) = set(&req.response_format)
        && v.get("type").and_then(Value::as_str) != Some("text")
    {
        return refuse(
            "response_format",
            "only {\"type\": \"text\"} is supported (no JSON mode or JSON schema)",
        );
    }
    if set(&req.audio).is_some() {
        return refuse("audio", "audio output is not supported");
    }
    if let Some(v) = set(&req.modalities)
        && v.as_array()
            .is_none_or(|a| a.iter().any(|m| m.as_str() != Some("text")))
    {
        return refuse("modalities", "only [\"text\"] is supported");
    }
    if set(&req.logprobs).is_some_and(|v| v.as_bool() != Some(false)) {
        return refuse("logprobs", "log probabilities are not available");
    }
    if set(&req.top_logprobs).is_some_and(|v| v.as_u64() != Some(0)) {
        return refuse("top_logprobs", "log probabilities are not available");
    }
    Ok(())
}

/// The client's system and developer messages, in order: its instructions for this turn.
fn instructions(messages: &[ChatMessage]) -> Result<Option<String>, ApiError> {
    let mut parts = Vec::new();
    for m in messages {
        if matches!(m.role.as_str(), "system" | "developer") {
            let text = content_text(m.content.as_ref())?;
            if !text.trim().is_empty() {
                parts.push(text);
            }
        }
    }
    if parts.is_empty() {
        return Ok(None);
    }
    let joined = parts.join("\n\n");
    if joined.len() > MAX_TEXT_BYTES {
        return Err(ApiError::too_large(format!(
            "the system messages are longer than {MAX_TEXT_BYTES} bytes together"
        )));
    }
    Ok(Some(joined))
}

/// Text of a message whose content is a string or an array of `{"type":"text"}` parts.
pub(super) fn content_text(content: Option<&Value>) -> Result<String, ApiError> {
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
        None | Some(Value::Null) => Err(ApiError::bad_request("the message has no content")),
        Some(_) => Err(ApiError::bad_request(
            "content must be a string or an array of content parts",
        )),
    }
}

/// The last user message: its text, and its `image_url` (a data URL), `input_audio`
/// ({data, format}: wav or mp3) and `file` ({file_data: a data URL, filename}) parts. A remote
/// image URL or an uploaded file id is refused: Steward never fetches a part for the model.
fn user_content(content: Option<&Value>) -> Result<(String, Vec<PartRequest>), ApiError> {
    let Some(Value::Array(items)) = content else {
        return Ok((content_text(content)?, Vec::new()));
    };
    let mut texts = Vec::new();
    let mut parts = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let bad = |why: &str| ApiError::bad_request(format!("content[{i}]: {why}"));
        let str_at = |v: &Value, path: &[&str]| {
            path.iter()
                .try_fold(v, |v, k| v.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match item.get("type").and_then(Value::as_str) {
            Some("image_url") => {
                let url = str_at(item, &["image_url", "url"])
                    .ok_or_else(|| bad("an image_url part needs image_url.url"))?;
                let (mime, data) = split_data_url(&url).ok_or_else(|| {
                    bad("only data: URLs (data:<type>;base64,...) are accepted; Steward does not fetch images")
                })?;
                parts.push(PartRequest::new(mime, None, data));
            }
            Some("input_audio") => {
                let data = str_at(item, &["input_audio", "data"])
                    .ok_or_else(|| bad("an input_audio part needs input_audio.data"))?;
                let mime = match str_at(item, &["input_audio", "format"]).as_deref() {
                    Some("wav") => "audio/wav",
                    Some("mp3") => "audio/mpeg",
                    _ => return Err(bad("input_audio.format must be \"wav\" or \"mp3\"")),
                };
                parts.push(PartRequest::new(mime, None, &data));
            }
            Some("file") => {
                let url = str_at(item, &["file", "file_data"]).ok_or_else(|| {
                    bad("a file part needs file.file_data (uploaded file ids are not supported)")
                })?;
                let (mime, data) = split_data_url(&url)
                    .ok_or_else(|| bad("file.file_data must be a data: URL"))?;
                let name = str_at(item, &["file", "filename"]);
                parts.push(PartRequest::new(mime, name.as_deref(), data));
            }
            Some("text") => texts.push(content_text(Some(&Value::Array(vec![item.clone()])))?),
            _ => {
                return Err(bad(
                    "only content parts of type text, image_url, input_audio and file are supported",
                ));
            }
        }
    }
    Ok((texts.join("\n"), parts))
}

fn choose_conversation(headers: &HeaderMap, user: Option<&str>) -> Result<Chosen, ApiError> {
    if let Some(value) = headers.get(&CONVERSATION_HEADER) {
        // Non-visible-ASCII header bytes cannot be a valid id; say which rule they break.
        let raw = value.to_str().map_err(|_| {
            ApiError::bad_request(
                "invalid X-Steward-Conversation header: conversation id may contain only letters, digits and . _ : -",
            )
        })?;
        return parse_conversation(raw, "X-Steward-Conversation header").map(Chosen::Named);
    }
    match user {
        Some(raw) if !raw.is_empty() => user_conversation(raw).map(Chosen::Named),
        _ => Ok(Chosen::Fresh),
    }
}

/// Any `user` string the API allows names a stable conversation: a value that is already a
/// valid id is used as it is (so existing conversations keep their history); anything else
/// (`alice@example.com`, `user 42`, `ü-user`, 10 KB of text) becomes `user-<readable>-<hash>`.
pub(super) fn user_conversation(raw: &str) -> Result<ConversationId, ApiError> {
    if let Ok(id) = ConversationId::parse(raw) {
        return Ok(id);
    }
    let mut slug = String::new();
    for c in raw.chars() {
        if slug.chars().count() >= USER_SLUG_CHARS {
            break;
        }
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let hash = Sha256::digest(raw.as_bytes());
    let short: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    let id = if slug.is_empty() {
        format!("user-{short}")
    } else {
        format!("user-{slug}-{short}")
    };
    // Only ASCII letters, digits and '-', at most 55 bytes: valid; mapped, not unwrapped.
    ConversationId::parse(&id).map_err(|_| ApiError::internal("could not name the conversation"))
}

/// A retry the client marked as such (the Stainless SDKs count their attempts).
fn is_retry(headers: &HeaderMap) -> bool {
    headers
        .get(&RETRY_COUNT_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u32>().ok())
        .is_some_and(|n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

    #[test]
    fn any_user_string_names_a_stable_valid_conversation() {
        assert_eq!(user_conversation("alice").unwrap().as_str(), "alice");
        let a = user_conversation("alice@example.com").unwrap();
        assert!(a.as_str().starts_with("user-alice-example-com-"), "{a}");
        assert_eq!(a, user_conversation("alice@example.com").unwrap(), "stable");
        assert_ne!(a, user_conversation("alice@example.org").unwrap());
        assert!(
            user_conversation("user 42")
                .unwrap()
                .as_str()
                .starts_with("user-user-42-")
        );
        let u = user_conversation("ü-user").unwrap();
        assert!(u.as_str().starts_with("user-user-"), "{u}");
        assert_ne!(u, user_conversation("u-user").unwrap());
        assert!(
            user_conversation("日本")
                .unwrap()
                .as_str()
                .starts_with("user-")
        );
        let long = user_conversation(&"x ".repeat(5000)).unwrap();
        assert!(long.as_str().len() <= 60, "{long}");
    }

    #[test]
    fn retry_marker() {
        let mut h = HeaderMap::new();
        assert!(!is_retry(&h));
        h.insert(RETRY_COUNT_HEADER, "0".parse().unwrap());
        assert!(!is_retry(&h));
        h.insert(RETRY_COUNT_HEADER, "2".parse().unwrap());
        assert!(is_retry(&h));
        h.insert(RETRY_COUNT_HEADER, "x".parse().unwrap());
        assert!(!is_retry(&h));
    }
}
