//! The Telegram routes of the HTTP side: `POST /telegram/webhook` checks the secret header
//! before reading the body (wrong, missing or repeated: 401 and the sink never called), caps
//! the body, and hands it to the `WebhookSink`; without webhook mode it is a 404. The Mini
//! App's `Authorization: tma <initData>` authenticates `/api/` routes only, and only what the
//! `MiniAppCheck` admits, decisions made with it are recorded as from Telegram; its page
//! carries its own policy (Telegram's bridge script, framing by Telegram's web client), and
//! every other page keeps `frame-ancestors 'none'`.

use crate::desk::{FakeDesk, action};
use crate::support::*;
use std::sync::{Arc, Mutex};
use steward_core::{Resolution, TurnStream};
use steward_protocol::{ActionStatus, Surface};
use steward_server::{MiniAppCheck, ServerConfig, WebhookSink};

const SECRET: &str = "the-webhook-secret_42";

#[derive(Default)]
struct Sink {
    bodies: Mutex<Vec<Vec<u8>>>,
}

#[async_trait::async_trait]
impl WebhookSink for Sink {
    fn secret_ok(&self, offered: Option<&[u8]>) -> bool {
        offered == Some(SECRET.as_bytes())
    }

    async fn accept(&self, body: &[u8]) -> bool {
        self.bodies.lock().unwrap().push(body.to_vec());
        body.starts_with(b"{\"update_id\"")
    }
}

struct Check;

impl MiniAppCheck for Check {
    fn admits(&self, init_data: &str) -> bool {
        init_data == "user=good&hash=ok"
    }
}

fn with_telegram(sink: &Arc<Sink>) -> ServerConfig {
    let mut cfg = config();
    cfg.telegram_webhook = Some(sink.clone());
    cfg.mini_app = Some(Arc::new(Check));
    cfg
}

#[tokio::test]
async fn the_webhook_checks_its_secret_before_the_body_and_hands_updates_on() {
    let sink = Arc::new(Sink::default());
    let server = start_with(Fake::standard(), with_telegram(&sink)).await;
    let c = client();
    let url = server.url("/telegram/webhook");
    let update =
        r#"{"update_id":1,"message":{"message_id":1,"date":0,"chat":{"id":1,"type":"private"}}}"#;

    for secret in [None, Some("wrong"), Some("the-webhook-secret_4"), Some("")] {
        let mut req = c.post(&url).body(update);
        if let Some(s) = secret {
            req = req.header("x-telegram-bot-api-secret-token", s);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 401, "{secret:?}");
    }
    // Twice the header, even with the right value once: refused.
    let twice = c
        .post(&url)
        .header("x-telegram-bot-api-secret-token", SECRET)
        .header("x-telegram-bot-api-secret-token", "other")
        .body(update)
        .send()
        .await
        .unwrap();
    assert_eq!(twice.status(), 401);
    // The bearer token is not this route's credential either.
    let bearer = c
        .post(&url)
        .bearer_auth(TOKEN)
        .body(update)
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), 401);
    assert!(
        sink.bodies.lock().unwrap().is_empty(),
        "nothing was read or handed on"
    );

    let ok = c
        .post(&url)
        .header("x-telegram-bot-api-secret-token", SECRET)
        .body(update)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(
        sink.bodies.lock().unwrap().as_slice(),
        [update.as_bytes().to_vec()]
    );

    let junk = c
        .post(&url)
        .header("x-telegram-bot-api-secret-token", SECRET)
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(junk.status(), 400);
    let huge = c
        .post(&url)
        .header("x-telegram-bot-api-secret-token", SECRET)
        .body(vec![b' '; steward_server::MAX_WEBHOOK_BODY + 1])
        .send()
        .await
        .unwrap();
    assert_eq!(huge.status(), 413);
    assert_eq!(
        sink.bodies.lock().unwrap().len(),
        2,
        "the oversized body was not handed on"
    );
}

#[tokio::test]
async fn without_webhook_mode_the_route_is_not_there() {
    let server = start(Fake::standard()).await;
    let resp = client()
        .post(server.url("/telegram/webhook"))
        .header("x-telegram-bot-api-secret-token", SECRET)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
}

#[tokio::test]
async fn the_mini_app_credential_opens_the_steward_api_only_and_decides_as_telegram() {
    let pending = action("act-1", ActionStatus::Pending);
    let desk = FakeDesk::new(vec![pending.clone()], |_, _| {
        Ok(Resolution::Applied {
            action: action("act-1", ActionStatus::Cancelled),
            follow_up: None::<TurnStream>,
        })
    });
    let sink = Arc::new(Sink::default());
    let server = start_full(Fake::standard(), desk.clone(), with_telegram(&sink)).await;
    let c = client();
    let good = "tma user=good&hash=ok";

    let count = c
        .get(server.url("/api/v1/approvals/count"))
        .header("authorization", good)
        .send()
        .await
        .unwrap();
    assert_eq!(count.status(), 200);
    for bad in [
        "tma user=good&hash=no",
        "tma ",
        "TMA user=evil",
        "tma user=good&hash=ok ",
    ] {
        let resp = c
            .get(server.url("/api/v1/approvals/count"))
            .header("authorization", bad)
            .send()
            .await
            .unwrap();
        let want = if bad == "tma user=good&hash=ok " {
            200
        } else {
            401
        };
        assert_eq!(resp.status(), want, "{bad:?}");
    }
    // Not the OpenAI API, not MCP: those take the bearer token only.
    for path in ["/v1/models", "/mcp"] {
        let resp = c
            .get(server.url(path))
            .header("authorization", good)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 401, "{path}");
    }
    // No CSRF token needed (not a cookie), and the decision is recorded as from Telegram.
    let cancel = c
        .post(server.url("/api/v1/approvals/act-1/cancel"))
        .header("authorization", good)
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(cancel.status(), 200);
    let calls = desk.resolves();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].surface, Surface::Telegram);
}

#[tokio::test]
async fn the_mini_app_page_has_its_own_policy_and_every_other_page_keeps_its_own() {
    let server = start(Fake::standard()).await;
    let c = client();
    let page = c.get(server.url("/miniapp/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(csp, steward_server::MINI_APP_CONTENT_SECURITY_POLICY);
    assert!(
        csp.contains("script-src 'self' https://telegram.org;"),
        "{csp}"
    );
    assert!(
        csp.contains("frame-ancestors https://web.telegram.org"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe"), "{csp}");
    let body = page.text().await.unwrap();
    assert!(body.contains("/app/miniapp/main.js"));
    for path in [
        "/",
        "/app/main.js",
        "/app/miniapp/main.js",
        "/api/v1/approvals/count",
    ] {
        let resp = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(
            resp.headers()["content-security-policy"],
            steward_server::CONTENT_SECURITY_POLICY_VALUE,
            "{path}"
        );
    }
}
