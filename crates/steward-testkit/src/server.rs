//! The `FakeModel` handle and its HTTP server: binding, routing, recording each
//! model request and carrying out the scripted step (delay, hang, error, cut
//! stream or reply) before handing rendering to the format modules; the speech routes'
//! script and log (`speech`).
//!
//! Owns: lifecycle, routes and step execution. Does not own: the JSON shapes of
//! any format (see `openai`, `anthropic`, `gemini`) or the queue (see `state`).

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::to_bytes;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts};
use axum::response::Response;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::script::{RecordedRequest, Reply, SpeechRequest, Step, WireFormat};
use crate::state::Shared;
use crate::wire::{self, Ctx};
use crate::{anthropic, control, gemini, openai, speech};

/// Model ids the list endpoints advertise; requests may name any model.
const MODELS: [&str; 2] = ["fake-model", "fake-model-large"];
/// Generous so that large prompts in benchmarks are never refused.
const BODY_LIMIT: usize = 64 * 1024 * 1024;
/// Piece size for `Step::BrokenStream`, which has no `Reply` to carry one.
const BROKEN_CHUNK_CHARS: usize = 4;

/// A fake model server on 127.0.0.1 speaking the OpenAI, Anthropic and Gemini
/// wire formats. Clones share the same server; it stops when the last is dropped.
#[derive(Clone)]
pub struct FakeModel {
    addr: SocketAddr,
    shared: Arc<Shared>,
    _task: Arc<ServerTask>,
}

struct ServerTask(JoinHandle<()>);

impl Drop for ServerTask {
    fn drop(&mut self) {
        // Stops accepting; connections already open end with the runtime or client.
        self.0.abort();
    }
}

impl std::fmt::Debug for FakeModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeModel")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl FakeModel {
    /// Binds 127.0.0.1 on a free port and serves in a background task.
    pub async fn start() -> std::io::Result<FakeModel> {
        FakeModel::start_on(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await
    }

    pub async fn start_on(addr: SocketAddr) -> std::io::Result<FakeModel> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::new());
        let app = router(shared.clone());
        // Small request/response exchanges would otherwise wait on Nagle's algorithm.
        let listener = listener.tap_io(|stream| {
            let _ = stream.set_nodelay(true);
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(FakeModel {
            addr,
            shared,
            _task: Arc::new(ServerTask(task)),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: the base URL for Anthropic and Gemini clients.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL for OpenAI-compatible clients.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Enqueues a step; each model request, in any format, takes the oldest one.
    pub fn push(&self, step: impl Into<Step>) {
        self.shared.push([step.into()]);
    }

    pub fn push_many(&self, steps: impl IntoIterator<Item = Step>) {
        self.shared.push(steps);
    }

    /// The reply used whenever the queue is empty; initially `Reply::text("ok")`.
    pub fn set_default(&self, reply: Reply) {
        self.shared.set_default(reply);
    }

    /// Turns request recording on or off (on by default). Long benchmarks turn it
    /// off so the log does not grow without bound; while off, nothing is counted.
    pub fn set_recording(&self, on: bool) {
        self.shared.set_recording(on);
    }

    /// Every model request so far, in arrival order. Model-list requests are not
    /// model requests and are not recorded.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests()
    }

    /// What the fake transcriber hears in every upload from now on.
    pub fn set_transcript(&self, text: &str) {
        self.shared.with_speech(|s| s.transcript = text.to_owned());
    }

    /// Refuse every transcription from now on with `status` and `message` (OpenAI's error
    /// shape); `None` answers again.
    pub fn set_transcript_error(&self, refusal: Option<(u16, &str)>) {
        self.shared
            .with_speech(|s| s.transcript_error = refusal.map(|(c, m)| (c, m.to_owned())));
    }

    /// The audio the fake speaker answers with from now on.
    pub fn set_speech_audio(&self, audio: &[u8]) {
        self.shared.with_speech(|s| s.audio = audio.to_vec());
    }

    /// Every request to the speech routes so far (not model requests), in arrival order.
    pub fn speech_requests(&self) -> Vec<SpeechRequest> {
        self.shared.with_speech(|s| s.requests.clone())
    }

    pub fn request_count(&self) -> usize {
        self.shared.request_count()
    }

    /// True once at least `n` requests were recorded, false if `timeout` passes first.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let mut rx = self.shared.subscribe();
        matches!(
            tokio::time::timeout(timeout, rx.wait_for(|count| *count >= n)).await,
            Ok(Ok(_))
        )
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .merge(control::routes())
        .route("/v1/chat/completions", post(openai_chat))
        .route("/v1/messages", post(anthropic_messages))
        .route("/v1/models", get(list_models))
        .route("/v1/audio/transcriptions", post(speech::transcribe))
        .route("/v1/audio/speech", post(speech::speak))
        .route("/v1beta/models", get(gemini_models))
        .route("/v1beta/models/{tail}", post(gemini_call).get(gemini_model))
        .fallback(not_found)
        .with_state(shared)
}

async fn openai_chat(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    model_request(&shared, WireFormat::OpenAi, None, request).await
}

async fn anthropic_messages(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    model_request(&shared, WireFormat::Anthropic, None, request).await
}

/// The last segment is `{model}:{method}`; routers cannot split on the colon, so
/// the whole segment is matched and split here.
async fn gemini_call(
    State(shared): State<Arc<Shared>>,
    Path(tail): Path<String>,
    request: Request,
) -> Response {
    let Some((model, method)) = tail.rsplit_once(':') else {
        return error(
            WireFormat::Gemini,
            StatusCode::NOT_FOUND,
            "method not found",
            None,
        );
    };
    let streaming = match method {
        "generateContent" => false,
        "streamGenerateContent" => true,
        _ => {
            let message = format!("method {method} is not supported by the fake model");
            return error(WireFormat::Gemini, StatusCode::NOT_FOUND, &message, None);
        }
    };
    let target = GeminiTarget {
        model: model.to_owned(),
        streaming,
    };
    model_request(&shared, WireFormat::Gemini, Some(target), request).await
}

async fn gemini_model(Path(tail): Path<String>) -> Response {
    gemini::model(&tail)
}

async fn gemini_models() -> Response {
    gemini::models(&MODELS)
}

/// OpenAI and Anthropic share this path; Anthropic clients always send
/// `anthropic-version`, which picks their shape.
async fn list_models(headers: HeaderMap) -> Response {
    if headers.contains_key("anthropic-version") {
        anthropic::models(&MODELS)
    } else {
        openai::models(&MODELS)
    }
}

async fn not_found(request: Request) -> Response {
    let format = if request.uri().path().starts_with("/v1beta") {
        WireFormat::Gemini
    } else {
        WireFormat::OpenAi
    };
    let message = format!("no route for {} {}", request.method(), request.uri().path());
    error(format, StatusCode::NOT_FOUND, &message, None)
}

struct GeminiTarget {
    model: String,
    streaming: bool,
}

async fn model_request(
    shared: &Shared,
    format: WireFormat,
    gemini: Option<GeminiTarget>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(bytes) = to_bytes(body, BODY_LIMIT).await else {
        return error(
            format,
            StatusCode::BAD_REQUEST,
            "could not read request body",
            None,
        );
    };
    let body: Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(_) => {
            // Recorded so a test can see what its client sent, but a real service
            // rejects this before any model work, so no step is consumed.
            let raw = Value::String(String::from_utf8_lossy(&bytes).into_owned());
            shared.record_only(record(&parts, format, raw, false, String::new()));
            let message = "We could not parse the JSON body of your request.";
            return error(format, StatusCode::BAD_REQUEST, message, None);
        }
    };
    let (model, streaming) = match gemini {
        Some(target) => (target.model, target.streaming),
        None => (
            body["model"].as_str().unwrap_or_default().to_owned(),
            body["stream"].as_bool().unwrap_or(false),
        ),
    };
    let include_usage = body["stream_options"]["include_usage"].as_bool() == Some(true);
    let sse = parts
        .uri
        .query()
        .is_some_and(|q| q.split('&').any(|pair| pair == "alt=sse"));
    let recorded = shared
        .is_recording()
        .then(|| record(&parts, format, body, streaming, model.clone()));
    let (step, id) = shared.take(recorded);
    let ctx = Ctx {
        model,
        streaming,
        id,
        include_usage,
        sse,
    };
    perform(step, format, &ctx).await
}

fn record(
    parts: &Parts,
    format: WireFormat,
    body: Value,
    streaming: bool,
    model: String,
) -> RecordedRequest {
    let headers = parts
        .headers
        .iter()
        .map(|(k, v)| {
            let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
            (k.as_str().to_owned(), value)
        })
        .collect();
    RecordedRequest {
        format,
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers,
        body,
        streaming,
        model,
    }
}

async fn perform(mut step: Step, format: WireFormat, ctx: &Ctx) -> Response {
    loop {
        step = match step {
            Step::Delay { ms, then } => {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                *then
            }
            Step::Hang => return std::future::pending::<Response>().await,
            Step::Error {
                status,
                message,
                retry_after,
            } => {
                let status =
                    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                return error(format, status, &message, retry_after.as_deref());
            }
            Step::BrokenStream { text } => {
                return match format {
                    WireFormat::OpenAi => openai::broken(ctx, &text, BROKEN_CHUNK_CHARS),
                    WireFormat::Anthropic => anthropic::broken(ctx, &text, BROKEN_CHUNK_CHARS),
                    WireFormat::Gemini => gemini::broken(ctx, &text, BROKEN_CHUNK_CHARS),
                };
            }
            Step::Reply(reply) => {
                let response = match format {
                    WireFormat::OpenAi => openai::reply(ctx, &reply),
                    WireFormat::Anthropic => anthropic::reply(ctx, &reply),
                    WireFormat::Gemini => gemini::reply(ctx, &reply),
                };
                return match (ctx.streaming, reply.chunk_delay_ms) {
                    (true, ms) if ms > 0 => wire::paced(response, Duration::from_millis(ms)),
                    _ => response,
                };
            }
        };
    }
}

fn error(
    format: WireFormat,
    status: StatusCode,
    message: &str,
    retry_after: Option<&str>,
) -> Response {
    let body = match format {
        WireFormat::OpenAi => openai::error_body(status, message),
        WireFormat::Anthropic => anthropic::error_body(status, message),
        WireFormat::Gemini => gemini::error_body(status, message),
    };
    let mut response = wire::json(status, &body);
    // A value that cannot be a header is dropped rather than failing the response.
    if let Some(value) = retry_after.and_then(|v| HeaderValue::from_str(v).ok()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}
