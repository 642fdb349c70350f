//! Health without auth, and bearer auth on every API route.

use crate::desk::{FakeDesk, action};
use crate::support::{Fake, TOKEN, client, json_of, start, start_full, start_with};
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use serde_json::json;
use steward_core::Resolution;
use steward_protocol::ActionStatus;
use steward_server::ServerConfig;

#[tokio::test]
async fn health_answers_without_auth_or_model() {
    let server = start(Fake::standard()).await;
    let resp = client().get(server.url("/health")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let body = json_of(resp).await;
    assert_eq!(
        body,
        json!({"status": "ok", "version": env!("CARGO_PKG_VERSION"), "model": null})
    );
}

#[tokio::test]
async fn health_shows_the_model_label_of_the_moment() {
    let fake = Fake::standard();
    fake.set_model(Some("openai:gpt-test"));
    let server = start_with(fake.clone(), crate::support::config()).await;
    let body = json_of(client().get(server.url("/health")).send().await.unwrap()).await;
    assert_eq!(body["model"], "openai:gpt-test");
    // Rebound while the server runs (the Settings page): the next answer says so.
    fake.set_model(Some("anthropic:claude-test"));
    let body = json_of(client().get(server.url("/health")).send().await.unwrap()).await;
    assert_eq!(body["model"], "anthropic:claude-test");
}

fn routes() -> Vec<(Method, &'static str)> {
    vec![
        (Method::POST, "/api/v1/messages"),
        (Method::POST, "/v1/chat/completions"),
        (Method::GET, "/v1/models"),
        (Method::GET, "/api/v1/no-such-route"),
        (Method::GET, "/api/v1/approvals"),
        (Method::GET, "/api/v1/approvals?status=pending&limit=50"),
        (Method::GET, "/api/v1/approvals/a1"),
        (Method::POST, "/api/v1/approvals/a1/confirm"),
        (Method::POST, "/api/v1/approvals/a1/cancel"),
        (Method::POST, "/api/v1/approvals/a1/revise"),
        (Method::GET, "/api/v1/grants"),
        (Method::POST, "/api/v1/grants"),
        (Method::DELETE, "/api/v1/grants/g1"),
    ]
}

fn bad_credentials() -> Vec<Option<String>> {
    vec![
        None,
        Some(format!("Basic {TOKEN}")),
        Some("Basic dXNlcjpwYXNz".into()),
        Some("Bearer".into()),
        Some("Bearer ".into()),
        Some("Bearer wrong-token-0123456789".into()),
        Some(format!("Bearer {TOKEN}x")),
        Some(format!("Bearer {}", &TOKEN[..TOKEN.len() - 1])),
        Some(format!("Token {TOKEN}")),
        Some(format!("Bearer{TOKEN}")),
    ]
}

#[tokio::test]
async fn every_api_route_refuses_bad_credentials_before_submitting() {
    // A desk that would apply any decision: only auth stands between a caller and it.
    let desk = FakeDesk::new(vec![action("a1", ActionStatus::Pending)], |id, _| {
        Ok(Resolution::Applied {
            action: action(id, ActionStatus::Executed),
            follow_up: None,
        })
    });
    let server = start_full(Fake::standard(), desk, crate::support::config()).await;
    let body = json!({
        "text": "hi",
        "messages": [{"role": "user", "content": "hi"}],
        "arguments": {},
        "conversation_id": "c1",
        "tool": "send_email",
        "hours": 1,
    });
    for (method, path) in routes() {
        for cred in bad_credentials() {
            let mut req = client()
                .request(method.clone(), server.url(path))
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string());
            if let Some(c) = &cred {
                req = req.header(AUTHORIZATION, c);
            }
            let resp = req.send().await.unwrap();
            assert_eq!(resp.status(), 401, "{method} {path} with {cred:?}");
            assert_eq!(resp.headers()[WWW_AUTHENTICATE], "Bearer");
            let err = json_of(resp).await;
            assert_eq!(err["error"]["kind"], "unauthorized");
            assert_eq!(err["error"]["message"], "missing or invalid bearer token");
        }
    }
    assert!(server.fake.seen().is_empty(), "nothing may be submitted");
    assert!(
        server.desk.untouched(),
        "nothing may be resolved or granted"
    );
}

#[tokio::test]
async fn the_right_token_gets_through() {
    let server = start(Fake::standard()).await;
    for scheme in ["Bearer", "bearer"] {
        let resp = client()
            .get(server.url("/v1/models"))
            .header(AUTHORIZATION, format!("{scheme} {TOKEN}"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{scheme}");
    }
    let resp = server
        .post("/api/v1/messages", &json!({"text": "hi"}))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(server.fake.seen().len(), 1);
}

#[tokio::test]
async fn empty_configured_token_refuses_everyone() {
    let server = start_with(
        Fake::standard(),
        ServerConfig::new("", crate::support::owner_id()),
    )
    .await;
    let resp = client()
        .get(server.url("/v1/models"))
        .header(AUTHORIZATION, "Bearer  ")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
}

#[tokio::test]
async fn unknown_route_is_json_404_and_wrong_method_is_405() {
    let server = start(Fake::standard()).await;
    let resp = client().get(server.url("/nope")).send().await.unwrap();
    assert_eq!(resp.status(), 404);
    assert_eq!(json_of(resp).await["error"]["kind"], "not_found");

    let resp = client()
        .get(server.url("/api/v1/nope"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    assert_eq!(json_of(resp).await["error"]["kind"], "not_found");

    let resp = client()
        .get(server.url("/api/v1/messages"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 405);
    assert_eq!(json_of(resp).await["error"]["kind"], "method_not_allowed");
    assert!(server.fake.seen().is_empty());
}

#[test]
fn config_debug_hides_the_token() {
    let cfg = ServerConfig::new("super-secret-token-value", crate::support::owner_id());
    let shown = format!("{cfg:?}");
    assert!(!shown.contains("super-secret"), "{shown}");
    assert!(shown.contains("max_body_bytes"));
}

#[tokio::test]
async fn auth_is_checked_before_the_body() {
    let mut cfg = crate::support::config();
    cfg.max_body_bytes = 64;
    let server = start_with(Fake::standard(), cfg).await;
    // Each of these would be 415, 400 or 413 if the body were looked at first.
    for (ct, body) in [
        ("text/plain", "hi".to_owned()),
        ("application/json", "{not json".to_owned()),
        ("application/json", "x".repeat(65)),
    ] {
        let resp = client()
            .post(server.url("/api/v1/messages"))
            .header(CONTENT_TYPE, ct)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 401, "{ct}");
    }
    assert!(server.fake.seen().is_empty());
}
