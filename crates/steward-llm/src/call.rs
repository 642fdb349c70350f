//! The shape of one model call, shared by the three wire formats: choosing streamed or
//! whole, the guarded send, feeding a stream to its accumulator or parsing the whole body,
//! echoing whole text to the sink, recording usage, and the probe. Also the state every
//! streamed answer keeps (`Streamed`) and the mid-stream error mapping two formats share.
//!
//! Owns: the order of those steps. Does not own: request bodies, URLs, response types or
//! event meanings (each format module implements `Wire` for that), nor HTTP plumbing
//! (`http`) or retries (`models`).

use crate::http::{Http, StreamHandler};
use crate::sse::SseEvent;
use crate::{ChatResponse, LlmError, TextSink};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use steward_protocol::Usage;
use tokio_util::sync::CancellationToken;

/// One wire format's reading of answers; implemented by each provider type.
pub(crate) trait Wire {
    /// A tool call as it is assembled while streaming.
    type Call;
    /// The non-streamed response body.
    type Whole: DeserializeOwned;
    /// Fold one stream event in; `Ok(true)` means the answer is complete. Errors leave
    /// `provider` empty; `Http` fills it in.
    fn on_event(acc: &mut Streamed<'_, Self>, ev: SseEvent) -> Result<bool, LlmError>;
    /// The finished streamed answer.
    fn response(acc: Streamed<'_, Self>, model: String) -> ChatResponse;
    /// A whole (non-streamed) answer. Decode errors leave `provider` empty.
    fn from_whole(whole: Self::Whole, model: String) -> Result<ChatResponse, LlmError>;
}

/// A streamed answer being built: what all three formats keep while reading events.
pub(crate) struct Streamed<'a, W: Wire + ?Sized> {
    on_text: Option<TextSink<'a>>,
    pub text: String,
    pub calls: Vec<W::Call>,
    pub usage: Usage,
    /// The provider's own word for why it stopped, once it has said so.
    pub finish: Option<String>,
}

impl<'a, W: Wire + ?Sized> Streamed<'a, W> {
    pub fn new(on_text: Option<TextSink<'a>>) -> Self {
        Streamed {
            on_text,
            text: String::new(),
            calls: Vec::new(),
            usage: Usage::default(),
            finish: None,
        }
    }

    /// Pass a piece of answer text to the sink and keep it; empty pieces are dropped so
    /// sinks never see them.
    pub fn push_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(sink) = self.on_text {
            sink(text);
        }
        self.text.push_str(text);
    }

    pub fn into_response(self, model: String) -> ChatResponse {
        W::response(self, model)
    }
}

impl<W: Wire + ?Sized> StreamHandler for Streamed<'_, W> {
    fn on_event(&mut self, ev: SseEvent) -> Result<bool, LlmError> {
        W::on_event(self, ev)
    }

    fn complete(&self) -> bool {
        // A body may close without an end marker once a finish reason has arrived.
        self.finish.is_some()
    }

    fn has_output(&self) -> bool {
        !self.text.is_empty()
    }
}

/// Whether this call streams (the provider allows it and someone listens), noted on the
/// current span.
fn streaming(http: &Http, on_text: Option<TextSink<'_>>) -> bool {
    let streaming = http.stream && on_text.is_some();
    tracing::Span::current().record("streaming", streaming);
    streaming
}

/// One chat call: POST `body(streaming)` to `url(streaming)`, then either drive the stream
/// into a `Streamed` or parse the whole body, so sinks see text either way.
pub(crate) async fn chat<W: Wire>(
    http: &Http,
    model: &str,
    on_text: Option<TextSink<'_>>,
    cancel: &CancellationToken,
    url: impl FnOnce(bool) -> Result<String, LlmError>,
    body: impl FnOnce(bool) -> Value,
) -> Result<ChatResponse, LlmError> {
    let streaming = streaming(http, on_text);
    let url = url(streaming)?;
    let rb = http.post_json(&url, &body(streaming))?;
    let model_name = format!("{}:{model}", http.name);
    let resp = if streaming {
        let mut acc = Streamed::<W>::new(on_text);
        http.guarded(cancel, async {
            let resp = http.send(rb).await?;
            http.drive_stream(resp, &mut acc).await
        })
        .await?;
        acc.into_response(model_name)
    } else {
        let whole: W::Whole = http
            .guarded(cancel, async { http.json(http.send(rb).await?).await })
            .await?;
        let resp = W::from_whole(whole, model_name).map_err(|e| match e {
            LlmError::Decode { message, .. } => http.decode(&message),
            other => other,
        })?;
        emit_whole(on_text, &resp.text);
        resp
    };
    record_usage(resp.usage);
    Ok(resp)
}

/// Record a call's token usage on the current `model_call` span (opened by `models`).
fn record_usage(u: Usage) {
    let span = tracing::Span::current();
    span.record("input_tokens", u.input_tokens);
    span.record("output_tokens", u.output_tokens);
}

/// Call `on_text` once with a whole non-streamed answer, so sinks see text either way.
fn emit_whole(on_text: Option<TextSink<'_>>, text: &str) {
    if let Some(sink) = on_text
        && !text.is_empty()
    {
        sink(text);
    }
}

/// Cheap reachability + auth check: GET `base_url` + `path` and accept any success.
pub(crate) async fn probe(http: &Http, path: &str) -> Result<(), LlmError> {
    let url = format!("{}{path}", http.base_url);
    let rb = http.get(&url)?;
    http.guarded(&CancellationToken::new(), async {
        http.send(rb).await.map(|_| ())
    })
    .await
}

/// A stream event or chunk that could not be read; `Http` fills in the provider.
pub(crate) fn decode_error(message: String) -> LlmError {
    LlmError::Decode {
        provider: String::new(),
        message,
    }
}

/// The HTTP status an `{"error": {"code": ..}}` object names, or 500 if it names none.
pub(crate) fn code_status(err: &Value) -> u16 {
    err.get("code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| (400..=599).contains(c))
        .unwrap_or(500)
}

/// An error object sent mid-stream, as the `Http` error it stands for; `Http` fills in
/// the provider and redacts.
pub(crate) fn stream_error(status: u16, err: &Value) -> LlmError {
    let body = json!({ "error": err }).to_string();
    LlmError::Http {
        provider: String::new(),
        status,
        message: crate::http::error_excerpt(body.as_bytes()),
        retry_after: None,
    }
}
