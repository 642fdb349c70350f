//! What the server logs: a span per request with route, status, conversation and action
//! id, and never the token, the Authorization header, a body or an action's arguments.
//!
//! Its own test binary: tracing caches per-callsite interest process-wide, so a
//! thread-local subscriber can miss events while other tests hit the same callsites.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
#[path = "server/support.rs"]
mod support;

#[allow(dead_code)]
#[path = "server/desk.rs"]
mod desk;

use desk::{FakeDesk, SECRET_ARG, action};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde_json::json;
use std::io::Write;
use std::sync::{Arc, Mutex};
use steward_core::Resolution;
use steward_protocol::ActionStatus;
use support::{Fake, TOKEN, client, start_full};

#[derive(Clone)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// current_thread runtime (the tokio::test default): the server's tasks run on this
// thread, so the thread-local subscriber sees them.
#[tokio::test]
async fn logs_carry_route_status_and_conversation_but_no_secrets() {
    let capture = Capture(Arc::new(Mutex::new(Vec::new())));
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_env_filter(tracing_subscriber::EnvFilter::new("steward_server=trace"))
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let desk = FakeDesk::new(vec![], |id, _| {
        Ok(Resolution::Applied {
            action: action(id, ActionStatus::Executed),
            follow_up: None,
        })
    });
    let server = start_full(
        Fake::standard(),
        desk,
        steward_server::ServerConfig::new(
            TOKEN,
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
    )
    .await;
    let body = json!({"conversation_id": "log-conv", "text": "private-body-text"});
    let resp = server.post("/api/v1/messages", &body).await;
    assert_eq!(resp.status(), 200);
    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .header(AUTHORIZATION, "Bearer guessed-secret-value")
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);

    let resp = server
        .send(
            reqwest::Method::POST,
            "/api/v1/approvals/act-42/confirm",
            Some(r#"{"revision":0}"#),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let resp = server
        .send(
            reqwest::Method::POST,
            "/api/v1/approvals/act-43/revise",
            Some(&json!({"arguments": {"body": "revised-secret-arg"}}).to_string()),
        )
        .await;
    assert_eq!(resp.status(), 200);

    // Route families a hand-written label list used to miss, and a path no route has.
    for path in [
        "/v1/models/steward",
        "/api/v1/facts/home.city",
        "/api/v1/memory/search?q=x",
        "/nope-hostile-path-xyz",
    ] {
        server.get(path).await;
    }

    let logs = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    for route in [
        "/v1/models/{id}",
        "/api/v1/facts/{key}",
        "/api/v1/memory/search",
        "<unmatched>",
    ] {
        assert!(
            logs.contains(&format!("route=\"{route}\"")),
            "{route}: {logs}"
        );
    }
    assert!(!logs.contains("nope-hostile-path-xyz"), "{logs}");
    assert!(
        !logs.contains("home.city"),
        "the id is not part of the route: {logs}"
    );
    assert!(logs.contains("request finished"), "{logs}");
    assert!(logs.contains("route=\"/api/v1/messages\""), "{logs}");
    assert!(logs.contains("conversation=\"log-conv\""), "{logs}");
    assert!(logs.contains("status=200"), "{logs}");
    assert!(logs.contains("status=401"), "{logs}");
    assert!(logs.contains("action=\"act-42\""), "{logs}");
    assert!(logs.contains("action=\"act-43\""), "{logs}");
    assert!(
        logs.contains("route=\"/api/v1/approvals/{id}/confirm\""),
        "{logs}"
    );
    for secret in [
        TOKEN,
        "guessed-secret-value",
        "Bearer",
        "private-body-text",
        SECRET_ARG,
        "revised-secret-arg",
    ] {
        assert!(!logs.contains(secret), "{secret} leaked into logs:\n{logs}");
    }
}
