//! A scripted fake model server on 127.0.0.1:0 that records every request, plus helpers
//! to build `Models` against it.
//!
//! Owns: test plumbing only. Does not own: any assertion about a wire format.

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use steward_llm::{ChatRequest, Models, ProviderConfig, ProviderKind, RetryPolicy};
use steward_protocol::{Message, ToolCall, ToolSpec};

/// What the server answers to one request.
#[derive(Clone)]
pub enum Reply {
    Json {
        status: u16,
        body: String,
        headers: Vec<(&'static str, String)>,
    },
    /// An SSE body written piece by piece (each piece its own network write).
    Sse {
        pieces: Vec<String>,
        /// Abort the connection after the pieces instead of ending cleanly.
        then_break: bool,
        /// Stall (never end) after the pieces.
        then_hang: bool,
    },
    /// Wait this long, then answer 200 with the body.
    Slow(Duration, String),
}

impl Reply {
    pub fn ok(body: Value) -> Reply {
        Reply::Json {
            status: 200,
            body: body.to_string(),
            headers: Vec::new(),
        }
    }

    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Json {
            status,
            body: body.to_owned(),
            headers: Vec::new(),
        }
    }

    /// SSE from `data:` payloads, one event per piece; a JSON string is sent raw
    /// (for markers such as `[DONE]`).
    pub fn sse_data(datas: &[Value]) -> Reply {
        let line = |d: &Value| match d {
            Value::String(s) => format!("data: {s}\n\n"),
            other => format!("data: {other}\n\n"),
        };
        Reply::Sse {
            pieces: datas.iter().map(line).collect(),
            then_break: false,
            then_hang: false,
        }
    }

    pub fn sse_raw(pieces: Vec<String>) -> Reply {
        Reply::Sse {
            pieces,
            then_break: false,
            then_hang: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Value,
    pub at: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }
}

struct Shared {
    replies: Vec<Reply>,
    log: Mutex<Vec<Recorded>>,
}

pub struct FakeServer {
    pub base: String,
    shared: Arc<Shared>,
}

impl FakeServer {
    /// Request n gets reply n; the last reply repeats.
    pub async fn start(replies: Vec<Reply>) -> FakeServer {
        assert!(!replies.is_empty());
        let shared = Arc::new(Shared {
            replies,
            log: Mutex::new(Vec::new()),
        });
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeServer {
            base: format!("http://{addr}"),
            shared,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.log.lock().unwrap().clone()
    }
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let index = {
        let mut log = shared.log.lock().unwrap();
        log.push(Recorded {
            method: parts.method.to_string(),
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().map(str::to_owned),
            headers: parts.headers.clone(),
            body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            at: Instant::now(),
        });
        log.len() - 1
    };
    let reply = shared.replies[index.min(shared.replies.len() - 1)].clone();
    match reply {
        Reply::Json {
            status,
            body,
            headers,
        } => {
            let mut b = Response::builder()
                .status(StatusCode::from_u16(status).unwrap())
                .header("content-type", "application/json");
            for (k, v) in headers {
                b = b.header(k, v);
            }
            b.body(Body::from(body)).unwrap()
        }
        Reply::Slow(delay, body) => {
            tokio::time::sleep(delay).await;
            Response::builder()
                .header("content-type", "application/json")
                .body(Body::from(body))
                .unwrap()
        }
        Reply::Sse {
            pieces,
            then_break,
            then_hang,
        } => {
            let stream = futures_util::stream::unfold(
                (pieces.into_iter(), then_break, then_hang),
                |(mut it, brk, hang)| async move {
                    // A pause between pieces makes each one a separate network write.
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    match it.next() {
                        Some(p) => {
                            Some((Ok::<Bytes, std::io::Error>(Bytes::from(p)), (it, brk, hang)))
                        }
                        None if brk => {
                            Some((Err(std::io::Error::other("cut")), (it, false, false)))
                        }
                        None if hang => {
                            tokio::time::sleep(Duration::from_secs(3600)).await;
                            None
                        }
                        None => None,
                    }
                },
            );
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(stream))
                .unwrap()
        }
    }
}

pub const KEY: &str = "sk-test-SECRET-0123456789";

pub fn config(name: &str, kind: ProviderKind, base: &str, stream: bool) -> ProviderConfig {
    ProviderConfig {
        name: name.to_owned(),
        kind,
        base_url: base.to_owned(),
        api_key: Some(KEY.to_owned()),
        stream,
        request_timeout: Duration::from_secs(20),
        connect_timeout: Duration::from_secs(5),
        parts: None,
    }
}

pub fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(5),
    }
}

pub fn models(configs: Vec<ProviderConfig>) -> Models {
    Models::new(configs, fast_retry()).unwrap()
}

pub fn clock_call() -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: "clock".into(),
        arguments: r#"{"tz":"UTC"}"#.into(),
    }
}

/// A conversation with a completed tool round, and one tool whose schema carries keys
/// Gemini rejects.
pub fn sample_request() -> ChatRequest {
    let call = clock_call();
    ChatRequest {
        system: "You are Steward.".into(),
        messages: vec![
            Message::user("What time is it?"),
            Message::assistant("", vec![call.clone()]),
            Message::tool_result(&call, "12:00"),
        ],
        tools: vec![ToolSpec {
            name: "clock".into(),
            description: "Current time".into(),
            parameters: json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "additionalProperties": false,
                "properties": {"tz": {"type": "string"}},
            }),
        }],
        max_output_tokens: Some(256),
        temperature: Some(0.5),
        parts: Default::default(),
    }
}

/// Collects streamed text pieces.
#[derive(Default)]
pub struct Pieces(pub Mutex<Vec<String>>);

impl Pieces {
    pub fn push(&self, s: &str) {
        self.0.lock().unwrap().push(s.to_owned());
    }

    pub fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}
