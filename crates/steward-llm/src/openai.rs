//! OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, OpenRouter, LM Studio, Groq):
//! request body, plain and streamed answers, probe.
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
use steward_protocol::{Message, MimeType, PartKind, Role, ToolCall, Usage};
use tokio_util::sync::CancellationToken;

pub(crate) struct OpenAi {
    http: Http,
    /// api.openai.com rejects `max_tokens` for newer models; compatible servers often only
    /// know `max_tokens`.
    use_max_completion_tokens: bool,
    parts: PartSupport,
}

impl OpenAi {
    pub fn new(cfg: &ProviderConfig) -> Result<Self, LlmError> {
        let auth: Vec<(&'static str, String)> = cfg
            .api_key
            .iter()
            .filter(|k| !k.is_empty())
            .map(|k| ("authorization", format!("Bearer {k}")))
            .collect();
        let http = Http::new(cfg, &auth)?;
        let use_max_completion_tokens = http.base_url.contains("://api.openai.com");
        Ok(OpenAi {
            http,
            use_max_completion_tokens,
            parts: PartSupport::of(cfg),
        })
    }

    fn body(&self, model: &str, req: &ChatRequest, stream: bool) -> Value {
        let mut messages = Vec::with_capacity(req.messages.len() + 1);
        if !req.system.is_empty() {
            messages.push(json!({"role": "system", "content": req.system}));
        }
        for m in &req.messages {
            messages.push(match m.role {
                Role::User if !m.attachments.is_empty() => {
                    json!({"role": "user", "content": user_content(m, &req.parts)})
                }
                Role::User => json!({"role": "user", "content": m.content}),
                Role::Assistant if m.tool_calls.is_empty() => {
                    json!({"role": "assistant", "content": m.content})
                }
                Role::Assistant => {
                    let calls: Vec<Value> = m
                        .tool_calls
                        .iter()
                        .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                        .collect();
                    let content = (!m.content.is_empty()).then_some(m.content.as_str());
                    json!({"role": "assistant", "content": content, "tool_calls": calls})
                }
                Role::Tool => json!({
                    "role": "tool",
                    "tool_call_id": m.tool_call_id.as_deref().unwrap_or_default(),
                    "content": m.content,
                }),
            });
        }
        let mut body = json!({"model": model, "messages": messages});
        if !req.tools.is_empty() {
            let tools: Vec<Value> = req
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect();
            body["tools"] = Value::Array(tools);
        }
        if let Some(max) = req.max_output_tokens {
            let key = if self.use_max_completion_tokens {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
            body[key] = json!(max);
        }
        if let Some(t) = req.temperature {
            body["temperature"] = json!(t);
        }
        if stream {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    }
}

/// A user message with parts as a content array: the text (with placeholders for parts not
/// sent), then `image_url` (a data URL), `input_audio` ({data, format}: wav or mp3 only) and
/// `file` ({filename, file_data}: a PDF as a data URL) parts.
fn user_content(m: &Message, bytes: &PartBytes) -> Vec<Value> {
    let (text, parts) = parts::encode_parts(m, bytes, |a, data| {
        let b64 = parts::base64(data);
        match a.kind() {
            PartKind::Image => Some(json!({
                "type": "image_url",
                "image_url": {"url": parts::data_url(a.mime_type(), &b64)},
            })),
            PartKind::Audio => {
                let format = match a.mime_type().subtype() {
                    "wav" => "wav",
                    "mpeg" => "mp3",
                    _ => return None,
                };
                Some(json!({"type": "input_audio", "input_audio": {"data": b64, "format": format}}))
            }
            PartKind::File if a.mime_type().subtype() == "pdf" => Some(json!({
                "type": "file",
                "file": {
                    "filename": a.name().map_or("document.pdf", |n| n.as_str()),
                    "file_data": parts::data_url(a.mime_type(), &b64),
                },
            })),
            PartKind::File => None,
        }
    });
    let mut content = Vec::with_capacity(parts.len() + 1);
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    content.extend(parts);
    content
}

#[async_trait::async_trait]
impl ModelProvider for OpenAi {
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
            |_| Ok(format!("{}/chat/completions", self.http.base_url)),
            |streaming| self.body(model, req, streaming),
        )
        .await
    }

    async fn probe(&self) -> Result<(), LlmError> {
        call::probe(&self.http, "/models").await
    }

    fn accepts(&self, mime: MimeType) -> bool {
        self.parts.accepts(mime)
    }
}

// pub(crate) only because it is named in the `Wire` impl.
#[derive(Deserialize)]
pub(crate) struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<OaUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: Option<AssistantMessage>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct AssistantMessage {
    content: Option<String>,
    tool_calls: Option<Vec<OaToolCall>>,
}

#[derive(Deserialize)]
struct OaToolCall {
    id: Option<String>,
    function: OaFunction,
}

#[derive(Deserialize)]
struct OaFunction {
    name: Option<String>,
    /// A string per the spec; some servers send an object, which is kept as its JSON text.
    arguments: Option<Value>,
}

#[derive(Deserialize, Clone, Copy)]
struct OaUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

impl From<OaUsage> for Usage {
    fn from(u: OaUsage) -> Usage {
        Usage {
            input_tokens: u.prompt_tokens,
            output_tokens: u.completion_tokens,
        }
    }
}

fn raw_arguments(v: Option<Value>) -> String {
    match v {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn finish_reason(reason: Option<&str>, has_calls: bool) -> FinishReason {
    match reason {
        // Some servers say "stop" while returning tool calls; the calls are what matter.
        Some("stop") | None if has_calls => FinishReason::ToolCalls,
        Some("stop") | None => FinishReason::Stop,
        Some("tool_calls") | Some("function_call") => FinishReason::ToolCalls,
        Some("length") => FinishReason::Length,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

fn from_completion(c: Completion, model: String) -> ChatResponse {
    let usage = c.usage.map(Usage::from).unwrap_or_default();
    let Some(choice) = c.choices.into_iter().next() else {
        return ChatResponse {
            text: String::new(),
            tool_calls: Vec::new(),
            usage,
            model,
            finish: FinishReason::Other("no choices".to_owned()),
        };
    };
    let (text, calls) = match choice.message {
        Some(m) => (
            m.content.unwrap_or_default(),
            m.tool_calls.unwrap_or_default(),
        ),
        None => (String::new(), Vec::new()),
    };
    let tool_calls: Vec<ToolCall> = calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| ToolCall {
            id: c
                .id
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| format!("call_{i}")),
            name: c.function.name.unwrap_or_default(),
            arguments: raw_arguments(c.function.arguments),
        })
        .collect();
    let finish = finish_reason(choice.finish_reason.as_deref(), !tool_calls.is_empty());
    ChatResponse {
        text,
        tool_calls,
        usage,
        model,
        finish,
    }
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    usage: Option<OaUsage>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
    tool_calls: Option<Vec<DeltaToolCall>>,
}

#[derive(Deserialize)]
struct DeltaToolCall {
    index: Option<usize>,
    id: Option<String>,
    function: Option<DeltaFunction>,
}

#[derive(Deserialize)]
struct DeltaFunction {
    name: Option<String>,
    arguments: Option<Value>,
}

/// Builds the answer from streamed chunks; tool calls are keyed by their `index`.
type Accumulator<'a> = Streamed<'a, OpenAi>;

impl Accumulator<'_> {
    fn apply_call(&mut self, d: DeltaToolCall) {
        // Without an index, a chunk carrying an id starts a new call; otherwise it continues
        // the last one.
        let idx = match d.index {
            Some(i) => i,
            None if d.id.is_some() || self.calls.is_empty() => self.calls.len(),
            None => self.calls.len() - 1,
        };
        // Guard against absurd indexes from a broken server.
        if idx > self.calls.len() + 64 {
            return;
        }
        while self.calls.len() <= idx {
            self.calls.push(ToolCall {
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
            });
        }
        let call = &mut self.calls[idx];
        if let Some(id) = d.id.filter(|s| !s.is_empty()) {
            call.id = id;
        }
        if let Some(f) = d.function {
            if let Some(name) = f.name {
                call.name.push_str(&name);
            }
            call.arguments.push_str(&raw_arguments(f.arguments));
        }
    }
}

impl Wire for OpenAi {
    type Call = ToolCall;
    type Whole = Completion;

    fn on_event(acc: &mut Accumulator<'_>, ev: SseEvent) -> Result<bool, LlmError> {
        let data = ev.data.trim();
        // Some servers close without "[DONE]" once they have sent a finish reason;
        // `Streamed::complete` accepts that.
        if data == "[DONE]" {
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: Chunk = serde_json::from_str(data)
            .map_err(|e| call::decode_error(format!("invalid stream chunk ({e})")))?;
        if let Some(err) = chunk.error {
            // OpenRouter and others send `{"error": {...}}` mid-stream.
            return Err(call::stream_error(call::code_status(&err), &err));
        }
        if let Some(u) = chunk.usage {
            acc.usage = u.into();
        }
        for choice in chunk.choices {
            if let Some(reason) = choice.finish_reason {
                acc.finish = Some(reason);
            }
            let Some(delta) = choice.delta else { continue };
            if let Some(text) = delta.content {
                acc.push_text(&text);
            }
            for d in delta.tool_calls.unwrap_or_default() {
                acc.apply_call(d);
            }
        }
        Ok(false)
    }

    fn response(acc: Accumulator<'_>, model: String) -> ChatResponse {
        let tool_calls: Vec<ToolCall> = acc
            .calls
            .into_iter()
            .enumerate()
            .filter(|(_, c)| !c.name.is_empty() || !c.arguments.is_empty())
            .map(|(i, mut c)| {
                if c.id.is_empty() {
                    c.id = format!("call_{i}");
                }
                c
            })
            .collect();
        let finish = finish_reason(acc.finish.as_deref(), !tool_calls.is_empty());
        ChatResponse {
            text: acc.text,
            tool_calls,
            usage: acc.usage,
            model,
            finish,
        }
    }

    fn from_whole(c: Completion, model: String) -> Result<ChatResponse, LlmError> {
        Ok(from_completion(c, model))
    }
}
