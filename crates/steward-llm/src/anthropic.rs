//! Anthropic Messages API: request body (content blocks, role alternation), plain and
//! streamed answers, probe.
//!
//! Owns: this one wire format. Does not own: HTTP plumbing (`http`), retries (`models`).

use crate::PartBytes;
use crate::call::{self, Streamed, Wire};
use crate::http::Http;
use crate::parts::{self, PartSupport};
use crate::sse::SseEvent;
use crate::{
    ChatRequest, ChatResponse, FinishReason, LlmError, ModelProvider, ProviderConfig, TextSink,
};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_protocol::{MimeType, PartKind, Role, ToolCall, Usage};
use tokio_util::sync::CancellationToken;

const API_VERSION: &str = "2023-06-01";
/// Anthropic requires max_tokens; used when the request leaves it open.
const DEFAULT_MAX_TOKENS: u32 = 4096;

pub(crate) struct Anthropic {
    http: Http,
    parts: PartSupport,
}

impl Anthropic {
    pub fn new(cfg: &ProviderConfig) -> Result<Self, LlmError> {
        let mut auth: Vec<(&'static str, String)> =
            vec![("anthropic-version", API_VERSION.to_owned())];
        if let Some(k) = cfg.api_key.as_ref().filter(|k| !k.is_empty()) {
            auth.push(("x-api-key", k.clone()));
        }
        Ok(Anthropic {
            http: Http::new(cfg, &auth)?,
            parts: PartSupport::of(cfg),
        })
    }
}

/// Tool arguments as the `input` object Anthropic requires. Malformed or non-object text
/// is wrapped rather than dropped, so the model can see what it sent.
fn input_object(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return json!({});
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => v,
        _ => json!({ "_raw": raw }),
    }
}

/// Messages as Anthropic wants them: content blocks, tool results inside user turns, and
/// consecutive same-role turns merged because the API requires strict alternation.
pub(crate) fn messages(msgs: &[steward_protocol::Message], bytes: &PartBytes) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in msgs {
        let (role, blocks) = match m.role {
            Role::User if !m.attachments.is_empty() => ("user", user_blocks(m, bytes)),
            Role::User => (
                "user",
                text_block(&m.content).into_iter().collect::<Vec<_>>(),
            ),
            Role::Assistant => {
                let mut blocks: Vec<Value> = text_block(&m.content).into_iter().collect();
                blocks.extend(m.tool_calls.iter().map(|c| {
                    json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input_object(&c.arguments)})
                }));
                ("assistant", blocks)
            }
            Role::Tool => (
                "user",
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": m.tool_call_id.as_deref().unwrap_or_default(),
                    "content": m.content,
                })],
            ),
        };
        // Anthropic rejects empty content, so blockless turns are dropped before merging.
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    out.into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

/// A user message with parts: `image` and `document` blocks (base64 sources; a plain-text
/// document as a `text` source) first, as Anthropic advises, then the text with placeholders
/// for parts not sent. Audio has no block: `accepts` refuses it before the call.
fn user_blocks(m: &steward_protocol::Message, bytes: &PartBytes) -> Vec<Value> {
    let (text, mut blocks) = parts::encode_parts(m, bytes, |a, data| {
        let media_type = a.mime_type().as_str();
        let source = match (a.kind(), media_type) {
            (PartKind::Image, _) | (PartKind::File, "application/pdf") => {
                json!({"type": "base64", "media_type": media_type, "data": parts::base64(data)})
            }
            (PartKind::File, "text/plain") => json!({
                "type": "text",
                "media_type": media_type,
                "data": std::str::from_utf8(data).ok()?,
            }),
            _ => return None,
        };
        let mut block = if a.kind() == PartKind::Image {
            json!({"type": "image", "source": source})
        } else {
            json!({"type": "document", "source": source})
        };
        if let (PartKind::File, Some(name)) = (a.kind(), a.name()) {
            block["title"] = json!(name.as_str());
        }
        Some(block)
    });
    blocks.extend(text_block(&text));
    blocks
}

fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

fn body(model: &str, req: &ChatRequest, stream: bool) -> Value {
    let mut body = json!({
        "model": model,
        "max_tokens": req.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages(&req.messages, &req.parts),
    });
    if !req.system.is_empty() {
        body["system"] = json!(req.system);
    }
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        body["tools"] = Value::Array(tools);
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    if stream {
        body["stream"] = json!(true);
    }
    body
}

#[async_trait::async_trait]
impl ModelProvider for Anthropic {
    fn name(&self) -> &str {
        &self.http.name
    }

    async fn chat(
        &self,
        model: &str,
        req: &ChatRequest,
        on_text: Option<TextSink<'_>>,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        call::chat::<Self>(
            &self.http,
            model,
            on_text,
            cancel,
            |_| Ok(format!("{}/v1/messages", self.http.base_url)),
            |streaming| body(model, req, streaming),
        )
        .await
    }

    async fn probe(&self) -> Result<(), LlmError> {
        call::probe(&self.http, "/v1/models").await
    }

    fn accepts(&self, mime: MimeType) -> bool {
        self.parts.accepts(mime)
    }
}

#[derive(Deserialize, Default, Clone, Copy)]
struct AnUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

impl AnUsage {
    /// Anthropic counts cached prompt tokens separately; they are still input.
    fn input(&self) -> Option<u64> {
        let parts = [
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
        ];
        parts
            .iter()
            .any(Option::is_some)
            .then(|| parts.iter().flatten().sum())
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    #[serde(other)]
    Other,
}

// pub(crate) only because it is named in the `Wire` impl.
#[derive(Deserialize)]
pub(crate) struct MessageResponse {
    #[serde(default)]
    content: Vec<Block>,
    stop_reason: Option<String>,
    #[serde(default)]
    usage: AnUsage,
}

fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("end_turn") | Some("stop_sequence") | None => FinishReason::Stop,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("max_tokens") => FinishReason::Length,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

fn from_message(m: MessageResponse, model: String) -> ChatResponse {
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for block in m.content {
        match block {
            Block::Text { text: t } => text.push_str(&t),
            Block::ToolUse { id, name, input } => tool_calls.push(ToolCall {
                id,
                name,
                arguments: input.to_string(),
            }),
            Block::Other => {}
        }
    }
    ChatResponse {
        text,
        tool_calls,
        usage: Usage {
            input_tokens: m.usage.input().unwrap_or(0),
            output_tokens: m.usage.output_tokens.unwrap_or(0),
        },
        model,
        finish: finish_reason(m.stop_reason.as_deref()),
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StreamEvent {
    MessageStart {
        message: StartMessage,
    },
    ContentBlockStart {
        index: usize,
        content_block: Block,
    },
    ContentBlockDelta {
        index: usize,
        delta: BlockDelta,
    },
    MessageDelta {
        #[serde(default)]
        delta: MessageDeltaBody,
        #[serde(default)]
        usage: AnUsage,
    },
    MessageStop,
    Error {
        error: Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct StartMessage {
    #[serde(default)]
    usage: AnUsage,
}

#[derive(Deserialize, Default)]
struct MessageDeltaBody {
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    #[serde(other)]
    Other,
}

/// A tool_use block being streamed: `partial_json` pieces concatenate to the arguments.
// pub(crate) only because it is named in the `Wire` impl.
pub(crate) struct PendingCall {
    index: usize,
    call: ToolCall,
    /// The block's initial `input`, used only when no partial JSON ever arrives.
    initial: Value,
    got_json: bool,
}

type Accumulator<'a> = Streamed<'a, Anthropic>;

impl Wire for Anthropic {
    type Call = PendingCall;
    type Whole = MessageResponse;

    fn on_event(acc: &mut Accumulator<'_>, ev: SseEvent) -> Result<bool, LlmError> {
        let parsed: StreamEvent = serde_json::from_str(&ev.data).map_err(|e| {
            call::decode_error(format!("invalid stream event {:?} ({e})", ev.event))
        })?;
        match parsed {
            StreamEvent::MessageStart { message } => {
                if let Some(i) = message.usage.input() {
                    acc.usage.input_tokens = i;
                }
                if let Some(o) = message.usage.output_tokens {
                    acc.usage.output_tokens = o;
                }
            }
            StreamEvent::ContentBlockStart {
                index,
                content_block: Block::ToolUse { id, name, input },
            } => acc.calls.push(PendingCall {
                index,
                call: ToolCall {
                    id,
                    name,
                    arguments: String::new(),
                },
                initial: if input.is_null() { json!({}) } else { input },
                got_json: false,
            }),
            StreamEvent::ContentBlockStart {
                content_block: Block::Text { text },
                ..
            } => acc.push_text(&text),
            StreamEvent::ContentBlockStart { .. } => {}
            StreamEvent::ContentBlockDelta { index, delta } => match delta {
                BlockDelta::TextDelta { text } => acc.push_text(&text),
                BlockDelta::InputJsonDelta { partial_json } => {
                    if let Some(p) = acc.calls.iter_mut().rev().find(|p| p.index == index) {
                        p.call.arguments.push_str(&partial_json);
                        p.got_json = true;
                    }
                }
                BlockDelta::Other => {}
            },
            StreamEvent::MessageDelta { delta, usage } => {
                if delta.stop_reason.is_some() {
                    acc.finish = delta.stop_reason;
                }
                // Counts in message_delta are cumulative, so they replace earlier ones.
                if let Some(o) = usage.output_tokens {
                    acc.usage.output_tokens = o;
                }
                if let Some(i) = usage.input() {
                    acc.usage.input_tokens = i;
                }
            }
            StreamEvent::MessageStop => return Ok(true),
            StreamEvent::Error { error } => return Err(stream_error(&error)),
            StreamEvent::Other => {}
        }
        Ok(false)
    }

    fn response(acc: Accumulator<'_>, model: String) -> ChatResponse {
        let tool_calls = acc
            .calls
            .into_iter()
            .map(|p| {
                let mut call = p.call;
                if !p.got_json {
                    call.arguments = p.initial.to_string();
                }
                call
            })
            .collect();
        ChatResponse {
            text: acc.text,
            tool_calls,
            usage: acc.usage,
            model,
            finish: finish_reason(acc.finish.as_deref()),
        }
    }

    fn from_whole(m: MessageResponse, model: String) -> Result<ChatResponse, LlmError> {
        Ok(from_message(m, model))
    }
}

/// A mid-stream `error` event, mapped to the HTTP status Anthropic uses for that type.
fn stream_error(err: &Value) -> LlmError {
    let status = match err.get("type").and_then(Value::as_str) {
        Some("overloaded_error") => 529,
        Some("rate_limit_error") => 429,
        Some("invalid_request_error") => 400,
        Some("authentication_error") => 401,
        Some("permission_error") => 403,
        Some("not_found_error") => 404,
        Some("request_too_large") => 413,
        _ => 500,
    };
    call::stream_error(status, err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use steward_protocol::Message;

    #[test]
    fn merges_tool_results_into_one_user_turn() {
        let a = ToolCall {
            id: "t1".into(),
            name: "clock".into(),
            arguments: "not json".into(),
        };
        let b = ToolCall {
            id: "t2".into(),
            name: "clock".into(),
            arguments: String::new(),
        };
        let msgs = vec![
            Message::user("hi"),
            Message::assistant("", vec![a.clone(), b.clone()]),
            Message::tool_result(&a, "one"),
            Message::tool_result(&b, "two"),
            Message::user("thanks"),
        ];
        let out = messages(&msgs, &PartBytes::default());
        assert_eq!(out.len(), 3);
        assert_eq!(out[1]["content"][0]["input"], json!({"_raw": "not json"}));
        assert_eq!(out[1]["content"][1]["input"], json!({}));
        assert_eq!(out[2]["role"], "user");
        let blocks = out[2]["content"].as_array().unwrap();
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0]["tool_use_id"], "t1");
        assert_eq!(blocks[1]["tool_use_id"], "t2");
        assert_eq!(blocks[2]["text"], "thanks");
    }
}
