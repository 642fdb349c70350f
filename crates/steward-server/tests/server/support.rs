//! Test support: the fake assistant, starting a server, and parsing SSE bodies.

use crate::desk::FakeDesk;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use steward_core::{ApprovalDesk, Assistant, TurnStream};
use steward_protocol::{FailureKind, Inbound, ToolCall, TurnEvent, Usage};
use steward_server::{ConnLimits, ServerConfig, router, serve_with};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;

pub const TOKEN: &str = "test-token-0123456789";
/// Whom `TOKEN` authenticates in these tests.
pub const OWNER: &str = "owner";

pub fn owner_id() -> steward_protocol::PrincipalId {
    steward_protocol::PrincipalId::parse(OWNER).unwrap()
}

/// The server's configuration: `TOKEN` authenticates `OWNER`.
pub fn config() -> ServerConfig {
    ServerConfig::new(TOKEN, owner_id())
}
pub const TURN_ID: &str = "turn-7";

type Script = Box<dyn Fn(&Inbound) -> Vec<TurnEvent> + Send + Sync>;

/// Records every `Inbound` and answers with scripted events.
pub struct Fake {
    seen: Mutex<Vec<Inbound>>,
    script: Script,
    /// When set, the last scripted event waits for this gate.
    gate: Mutex<Option<oneshot::Receiver<()>>>,
    pub submitted: Notify,
    /// What `model_label` answers; tests change it while the server runs.
    model: Mutex<Option<String>>,
}

impl Fake {
    pub fn new(script: impl Fn(&Inbound) -> Vec<TurnEvent> + Send + Sync + 'static) -> Arc<Self> {
        Arc::new(Self {
            seen: Mutex::new(Vec::new()),
            script: Box::new(script),
            gate: Mutex::new(None),
            submitted: Notify::new(),
            model: Mutex::new(None),
        })
    }

    /// Holds back the last event of the first submitted turn until `gate` fires.
    pub fn gated(
        script: impl Fn(&Inbound) -> Vec<TurnEvent> + Send + Sync + 'static,
        gate: oneshot::Receiver<()>,
    ) -> Arc<Self> {
        let fake = Self::new(script);
        *fake.gate.lock().unwrap() = Some(gate);
        fake
    }

    pub fn standard() -> Arc<Self> {
        Self::new(standard_events)
    }

    pub fn failing(kind: FailureKind) -> Arc<Self> {
        Self::new(move |inb| {
            vec![
                started(inb),
                TurnEvent::TextDelta {
                    text: "partial".into(),
                },
                failed(kind),
            ]
        })
    }

    pub fn set_model(&self, label: Option<&str>) {
        *self.model.lock().unwrap() = label.map(str::to_owned);
    }

    pub fn seen(&self) -> Vec<Inbound> {
        self.seen.lock().unwrap().clone()
    }
}

impl Assistant for Fake {
    fn submit(&self, inbound: Inbound) -> TurnStream {
        let events = (self.script)(&inbound);
        self.seen.lock().unwrap().push(inbound);
        let gate = self.gate.lock().unwrap().take();
        let (tx, rx) = mpsc::channel(4);
        tokio::spawn(async move {
            let mut gate = gate;
            let last = events.len().saturating_sub(1);
            for (i, event) in events.into_iter().enumerate() {
                if i == last
                    && let Some(g) = gate.take()
                {
                    let _ = g.await;
                }
                if tx.send(event).await.is_err() {
                    return;
                }
            }
        });
        self.submitted.notify_one();
        rx
    }

    fn model_label(&self) -> Option<String> {
        self.model.lock().unwrap().clone()
    }
}

pub fn started(inb: &Inbound) -> TurnEvent {
    TurnEvent::Started {
        conversation_id: inb.conversation.clone(),
        turn_id: steward_protocol::TurnId::parse(TURN_ID).unwrap(),
    }
}

pub fn failed(kind: FailureKind) -> TurnEvent {
    TurnEvent::Failed {
        kind,
        message: format!("scripted {kind:?} failure"),
        retryable: matches!(kind, FailureKind::Model | FailureKind::Shutdown),
    }
}

pub fn final_event(text: &str) -> TurnEvent {
    TurnEvent::Final {
        text: text.into(),
        usage: Usage {
            input_tokens: 11,
            output_tokens: 7,
        },
        model: "fake:model-1".into(),
    }
}

/// Started, text, two tools (one failing), more text, Final.
pub fn standard_events(inb: &Inbound) -> Vec<TurnEvent> {
    let call = |id: &str, name: &str| ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: "{}".into(),
    };
    let (clock, web) = (call("c1", "clock"), call("c2", "web_fetch"));
    vec![
        started(inb),
        TurnEvent::TextDelta { text: "Hel".into() },
        TurnEvent::ToolStarted {
            call_id: clock.id.clone(),
            name: clock.name.clone(),
            arguments: clock.arguments.clone(),
            touched: None,
        },
        TurnEvent::ToolFinished {
            call_id: clock.id,
            name: clock.name,
            ok: true,
            output: "12:00".into(),
        },
        TurnEvent::ToolStarted {
            call_id: web.id.clone(),
            name: web.name.clone(),
            arguments: web.arguments.clone(),
            touched: Some("GET https://example.com/".into()),
        },
        TurnEvent::ToolFinished {
            call_id: web.id,
            name: web.name,
            ok: false,
            output: "timeout".into(),
        },
        TurnEvent::TextDelta { text: "lo!".into() },
        final_event("Hello!"),
    ]
}

pub struct Server {
    pub base: String,
    pub fake: Arc<Fake>,
    pub desk: Arc<FakeDesk>,
    shutdown: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<std::io::Result<()>>,
}

pub async fn start(fake: Arc<Fake>) -> Server {
    start_full(fake, FakeDesk::empty(), crate::support::config()).await
}

pub async fn start_with(fake: Arc<Fake>, cfg: ServerConfig) -> Server {
    start_full(fake, FakeDesk::empty(), cfg).await
}

/// A server whose approval routes talk to `desk`.
pub async fn start_desk(desk: Arc<FakeDesk>) -> Server {
    start_full(Fake::standard(), desk, crate::support::config()).await
}

pub async fn start_full(fake: Arc<Fake>, desk: Arc<FakeDesk>, cfg: ServerConfig) -> Server {
    start_limited(fake, desk, cfg, ConnLimits::default()).await
}

/// A server with explicit connection limits.
pub async fn start_limited(
    fake: Arc<Fake>,
    desk: Arc<FakeDesk>,
    cfg: ServerConfig,
    limits: ConnLimits,
) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = router(
        fake.clone() as Arc<dyn Assistant>,
        desk.clone() as Arc<dyn ApprovalDesk>,
        cfg,
    );
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(serve_with(listener, app, limits, async move {
        let _ = rx.await;
    }));
    Server {
        base: format!("http://{addr}"),
        fake,
        desk,
        shutdown: Some(tx),
        task,
    }
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// POST JSON with the right token.
    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.post_raw(path, "application/json", body.to_string())
            .await
    }

    pub async fn post_raw(
        &self,
        path: &str,
        content_type: &str,
        body: String,
    ) -> reqwest::Response {
        client()
            .post(self.url(path))
            .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header(CONTENT_TYPE, content_type)
            .body(body)
            .send()
            .await
            .unwrap()
    }
}

impl Server {
    /// Any method with the right token and an optional raw JSON body.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&str>,
    ) -> reqwest::Response {
        let mut req = client()
            .request(method, self.url(path))
            .header(AUTHORIZATION, format!("Bearer {TOKEN}"));
        if let Some(body) = body {
            req = req
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_owned());
        }
        req.send().await.unwrap()
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.send(reqwest::Method::GET, path, None).await
    }
}

pub fn client() -> reqwest::Client {
    // reqwest is built without a bundled crypto provider; plain http still needs one set.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// One SSE event: its `event:` name (if any) and its joined `data:` lines.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub name: Option<String>,
    pub data: String,
}

pub fn parse_sse(body: &str) -> Vec<SseEvent> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut name = None;
            let mut data: Vec<&str> = Vec::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    name = Some(v.trim_start().to_owned());
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push(v.strip_prefix(' ').unwrap_or(v));
                }
            }
            (name.is_some() || !data.is_empty()).then(|| SseEvent {
                name,
                data: data.join("\n"),
            })
        })
        .collect()
}

pub async fn json_of(resp: reqwest::Response) -> Value {
    let text = resp.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}
