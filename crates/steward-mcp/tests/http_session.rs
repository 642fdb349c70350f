//! The streamable-HTTP client against a loopback fixture that records every request: the
//! session it was given ends with `DELETE` + `Mcp-Session-Id` when Steward leaves (a probe,
//! a manager shutting down), and the ways a server can be unreachable or refuse us read as
//! a person would say them, with the URL's key nowhere.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use steward_mcp::{McpManager, ServerSpec, Transport, probe};

const SESSION: &str = "session-7f3a";
const KEY: &str = "url-key-canary-4417";

/// (method, path, Mcp-Session-Id header) of every request the fixture got.
type Seen = Arc<Mutex<Vec<(String, String, Option<String>)>>>;

/// A minimal MCP server: answers `initialize` (handing out a session id), `tools/list` and
/// `ping` with JSON, accepts notifications, has no GET stream, records `DELETE`. `/mcp` only:
/// `/auth` answers 401, anything else 404.
async fn fixture() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new().fallback(handle).with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), seen)
}

async fn handle(
    State(seen): State<Seen>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let session = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    seen.lock()
        .unwrap()
        .push((method.to_string(), uri.path().to_owned(), session));
    match uri.path() {
        "/mcp" => {}
        "/auth" => return (StatusCode::UNAUTHORIZED, "no").into_response(),
        _ => return (StatusCode::NOT_FOUND, "nothing here").into_response(),
    }
    match method {
        Method::DELETE => StatusCode::OK.into_response(),
        Method::GET => StatusCode::METHOD_NOT_ALLOWED.into_response(),
        Method::POST => {
            let msg: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let Some(id) = msg.get("id").cloned() else {
                return StatusCode::ACCEPTED.into_response();
            };
            let result = match msg["method"].as_str() {
                Some("initialize") => json!({
                    "protocolVersion": msg["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "recorder", "version": "1"}
                }),
                Some("tools/list") => json!({"tools": [{
                    "name": "noop", "description": "does nothing",
                    "inputSchema": {"type": "object"}
                }]}),
                _ => json!({}),
            };
            let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
            (
                [
                    ("content-type", "application/json"),
                    ("mcp-session-id", SESSION),
                ],
                body,
            )
                .into_response()
        }
        _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
    }
}

fn spec(url: String) -> ServerSpec {
    let mut spec = ServerSpec::new(
        "rec",
        Transport::Http {
            url,
            headers: BTreeMap::new(),
        },
    );
    spec.timeout = Duration::from_secs(5);
    spec
}

fn deletes(seen: &Seen) -> Vec<Option<String>> {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|(m, _, _)| m == "DELETE")
        .map(|(_, _, s)| s.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_ends_its_session_with_delete() {
    let (base, seen) = fixture().await;
    let report = probe(&spec(format!("{base}/mcp"))).await;
    let tools = report.result.expect("probe connects");
    assert_eq!(tools.len(), 1);
    assert_eq!(deletes(&seen), [Some(SESSION.to_owned())]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manager_shutting_down_ends_its_session_with_delete() {
    let (base, seen) = fixture().await;
    let mgr = McpManager::start(vec![spec(format!("{base}/mcp"))]);
    let started = Instant::now();
    while !mgr.statuses()[0].is_connected() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never connected"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(deletes(&seen), [], "no DELETE while the session is in use");
    assert!(mgr.shutdown_and_wait(Duration::from_secs(10)).await);
    assert_eq!(deletes(&seen), [Some(SESSION.to_owned())]);
}

async fn probe_error(url: String) -> String {
    let report = probe(&spec(url)).await;
    let err = report.result.expect_err("the probe must fail");
    assert!(!err.contains(KEY), "the URL's key leaked: {err}");
    err
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_servers_are_explained_plainly() {
    // A port nobody listens on (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = probe_error(format!("http://127.0.0.1:{port}/mcp?api_key={KEY}")).await;
    assert_eq!(
        err,
        format!(
            "could not connect to 127.0.0.1:{port} (connection refused) — is the server running?"
        )
    );

    let (base, _seen) = fixture().await;
    let host_port = base.trim_start_matches("http://");
    let err = probe_error(format!("{base}/wrong?api_key={KEY}")).await;
    assert!(
        err.starts_with(&format!(
            "the server at {host_port} has no MCP endpoint at `/wrong` (HTTP 404 Not Found)"
        )),
        "{err}"
    );
    let err = probe_error(format!("{base}/auth?api_key={KEY}")).await;
    assert!(
        err.starts_with(&format!(
            "the server at {host_port} refused the credentials (HTTP 401 Unauthorized)"
        )),
        "{err}"
    );
    // https to a plain-HTTP port: a TLS failure, said so.
    let err = probe_error(format!("https://{host_port}/mcp?api_key={KEY}")).await;
    assert!(
        err.starts_with(&format!("TLS with {host_port} failed (")),
        "{err}"
    );
}
