//! OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, OpenRouter, LM Studio, Groq):
//! request body, plain and streamed answers, probe.
//!
//! Owns: this one wire format. Does not own: HTTP plumbing (`http`), retries (`models`).

use crate::http::{Http, StreamHandler, emit_whole};
use crate::sse::SseEvent;
use crate::{
    ChatRequest, ChatResponse, FinishReason, LlmError, ModelProvider, ProviderConfig, TextSink,
};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_protocol::{Role, ToolCall, Usage};
use tokio_util::sync::CancellationToken;

pub(crate) struct OpenAi {
    http: Http,
    /// api.openai.com rejects `max_tokens` for newer models; compatible servers often only
    /// know `max_tokens`.
    use_max_completion_tokens: bool,
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
        })
    }

    fn body(&self, model: &str, req: &ChatRequest, stream: bool) -> Value {
        let mut messages = Vec::with_capacity(req.messages.len() + 1);
        if !req.system.is_empty() {
            messages.push(json!({"role": "system", "content": req.system}));
        }
        for m in &req.messages {
            messages.push(match m.role {
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
        let streaming = self.http.stream && on_text.is_some();
        tracing::Span::current().record("streaming", streaming);
        let url = format!("{}/chat/completions", self.http.base_url);
        let rb = self.http.post_json(&url, &self.body(model, req, streaming));
        let model_name = format!("{}:{model}", self.http.name);
        let http = &self.http;
        let resp = if streaming {
            let mut acc = Accumulator::new(on_text);
            http.guarded(cancel, async {
                let resp = http.send(rb).await?;
                http.drive_stream(resp, &mut acc).await
            })
            .await?;
            acc.into_response(model_name)
        } else {
            let c: Completion = http
                .guarded(cancel, async { http.json(http.send(rb).await?).await })
                .await?;
            let resp = from_completion(c, model_name);
            emit_whole(on_text, &resp.text);
            resp
        };
        crate::models::record_usage(resp.usage);
        Ok(resp)
    }

    async fn probe(&self) -> Result<(), LlmError> {
        let url = format!("{}/models", self.http.base_url);
        let rb = self.http.get(&url);
        self.http
            .guarded(&CancellationToken::new(), async {
                self.http.send(rb).await.map(|_| ())
            })
            .await
    }
}

#[derive(Deserialize)]
struct Completion {
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
struct Accumulator<'a> {
    on_text: Option<TextSink<'a>>,
    text: String,
    calls: Vec<ToolCall>,
    usage: Usage,
    finish: Option<String>,
}

impl<'a> Accumulator<'a> {
    fn new(on_text: Option<TextSink<'a>>) -> Self {
        Accumulator {
            on_text,
            text: String::new(),
            calls: Vec::new(),
            usage: Usage::default(),
            finish: None,
        }
    }

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

    fn into_response(self, model: String) -> ChatResponse {
        let tool_calls: Vec<ToolCall> = self
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
        let finish = finish_reason(self.finish.as_deref(), !tool_calls.is_empty());
        ChatResponse {
            text: self.text,
            tool_calls,
            usage: self.usage,
            model,
            finish,
        }
    }
}

impl StreamHandler for Accumulator<'_> {
    fn on_event(&mut self, ev: SseEvent) -> Result<bool, LlmError> {
        let data = ev.data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| LlmError::Decode {
            provider: String::new(),
            message: format!("invalid stream chunk ({e})"),
        })?;
        if let Some(err) = chunk.error {
            return Err(stream_error(&err));
        }
        if let Some(u) = chunk.usage {
            self.usage = u.into();
        }
        for choice in chunk.choices {
            if let Some(reason) = choice.finish_reason {
                self.finish = Some(reason);
            }
            let Some(delta) = choice.delta else { continue };
            if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                if let Some(sink) = self.on_text {
                    sink(&text);
                }
                self.text.push_str(&text);
            }
            for d in delta.tool_calls.unwrap_or_default() {
                self.apply_call(d);
            }
        }
        Ok(false)
    }

    fn complete(&self) -> bool {
        // Some servers close without "[DONE]" once they have sent a finish reason.
        self.finish.is_some()
    }

    fn has_output(&self) -> bool {
        !self.text.is_empty()
    }
}

/// An `{"error": {...}}` object sent mid-stream (OpenRouter and others do this).
fn stream_error(err: &Value) -> LlmError {
    let status = err
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| (400..=599).contains(c))
        .unwrap_or(500);
    let body = json!({ "error": err }).to_string();
    LlmError::Http {
        provider: String::new(),
        status,
        message: crate::http::error_excerpt(body.as_bytes()),
        retry_after: None,
    }
}
