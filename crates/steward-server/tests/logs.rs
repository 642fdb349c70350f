//! What the server logs: a span per request with route, status, conversation and action
//! id, and never the token, the Authorization header, a body or an action's arguments; for
//! the web sign-in, that someone signed in or failed to, and never the password, a guess, the
//! session cookie or its CSRF token.
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

#[allow(dead_code)]
#[path = "server/web_support.rs"]
mod web_support;

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

    // The web sign-in, in the same test: one subscriber for the whole process's callsites.
    capture.0.lock().unwrap().clear();
    let web = web_support::start_web(web_support::WebOptions::default()).await;
    let guess = "guessed-password-value";
    let resp = web
        .sign_in_raw(&json!({"password": guess}), &[], None)
        .await;
    assert_eq!(resp.status(), 401);
    let resp = web
        .sign_in_raw(&json!({"token": "guessed-token-value-0123"}), &[], None)
        .await;
    assert_eq!(resp.status(), 401);
    let by_password = web.sign_in().await;
    let by_token = web.sign_in_with(&json!({"token": TOKEN}), &[]).await;
    web.conversation("log-web").await;
    let resp = web
        .with_cookie(
            reqwest::Method::PATCH,
            "/api/v1/conversations/log-web",
            &by_password.cookie,
            Some(&by_password.csrf),
            Some(&json!({"title": "t"})),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let resp = web
        .with_cookie(
            reqwest::Method::DELETE,
            "/api/v1/session",
            &by_token.cookie,
            None,
            None,
        )
        .await;
    assert_eq!(resp.status(), 403);
    assert_eq!(web.cookie_status("forged-cookie-value").await, 401);
    let logs = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("failed sign-in"), "{logs}");
    assert!(logs.contains("signed in"), "{logs}");
    assert!(
        logs.contains(&by_password.session_id),
        "session ids are public: {logs}"
    );
    assert!(logs.contains("CSRF"), "{logs}");
    for secret in [
        web_support::PASSWORD,
        guess,
        "guessed-token-value-0123",
        TOKEN,
        by_password.cookie.as_str(),
        by_password.csrf.as_str(),
        by_token.cookie.as_str(),
        by_token.csrf.as_str(),
        "forged-cookie-value",
    ] {
        assert!(!logs.contains(secret), "{secret} leaked into logs:\n{logs}");
    }
}

#[test]
fn the_server_config_debug_hides_the_token_and_the_sign_in() {
    let mut cfg = steward_server::ServerConfig::new(
        TOKEN,
        steward_protocol::PrincipalId::parse("owner").unwrap(),
    );
    cfg.trusted_proxy = true;
    let shown = format!("{cfg:?}");
    assert!(!shown.contains(TOKEN), "{shown}");
    assert!(
        shown.contains("sign_in: false") && shown.contains("trusted_proxy: true"),
        "{shown}"
    );
}
