//! The OpenAI-compatible API, non-streaming: shapes, conversation choice, errors.

use crate::hostile::hostile_ids;
use crate::support::{Fake, TOKEN, TURN_ID, client, json_of, start};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde_json::{Value, json};
use steward_protocol::{FailureKind, Principal, Surface};

const CHAT: &str = "/v1/chat/completions";

fn chat(content: Value) -> Value {
    json!({
        "model": "whatever",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "x"}]},
            {"role": "user", "content": content},
        ],
    })
}

async fn post_with_header(
    server: &crate::support::Server,
    conv: &str,
    body: &Value,
) -> reqwest::Response {
    client()
        .post(server.url(CHAT))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "application/json")
        .header("X-Steward-Conversation", conv)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn non_streaming_reply_has_the_openai_shape() {
    let server = start(Fake::standard()).await;
    let resp = server.post(CHAT, &chat(json!("what time is it?"))).await;
    assert_eq!(resp.status(), 200);
    let conv = resp.headers()["x-steward-conversation"]
        .to_str()
        .unwrap()
        .to_owned();
    let body = json_of(resp).await;
    assert_eq!(body["id"], format!("chatcmpl-{TURN_ID}"));
    assert_eq!(body["object"], "chat.completion");
    assert!(body["created"].as_u64().is_some_and(|t| t > 1_600_000_000));
    assert_eq!(body["model"], "fake:model-1");
    assert_eq!(body["choices"].as_array().unwrap().len(), 1);
    assert_eq!(body["choices"][0]["index"], 0);
    assert_eq!(
        body["choices"][0]["message"],
        json!({"role": "assistant", "content":
            "Hello!\n\n[tool] clock (ok)\n[tool] web_fetch (failed): GET https://example.com/"})
    );
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        body["usage"],
        json!({"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18})
    );
    let seen = server.fake.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].text, "what time is it?",
        "only the last message is the turn"
    );
    assert_eq!(seen[0].surface, Surface::OpenAiApi);
    assert_eq!(seen[0].principal, Principal::owner());
    assert_eq!(seen[0].conversation.as_str(), conv);
}

#[tokio::test]
async fn content_may_be_an_array_of_text_parts() {
    let server = start(Fake::standard()).await;
    let parts = json!([{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]);
    let resp = server.post(CHAT, &chat(parts)).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(server.fake.seen()[0].text, "first\nsecond");

    let image = json!([{"type": "image_url", "image_url": {"url": "http://127.0.0.1/x.png"}}]);
    let resp = server.post(CHAT, &chat(image)).await;
    assert_eq!(resp.status(), 400);
    assert_eq!(server.fake.seen().len(), 1);
}

#[tokio::test]
async fn conversation_comes_from_header_then_user_then_fresh() {
    let server = start(Fake::standard()).await;
    let mut body = chat(json!("hi"));
    body["user"] = json!("from-user");

    let resp = post_with_header(&server, "from-header", &body).await;
    assert_eq!(resp.headers()["x-steward-conversation"], "from-header");
    let resp = server.post(CHAT, &body).await;
    assert_eq!(resp.headers()["x-steward-conversation"], "from-user");
    let a = server.post(CHAT, &chat(json!("hi"))).await;
    let b = server.post(CHAT, &chat(json!("hi"))).await;
    let a = a.headers()["x-steward-conversation"]
        .to_str()
        .unwrap()
        .to_owned();
    let b = b.headers()["x-steward-conversation"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        a.starts_with("openai-") && b.starts_with("openai-"),
        "{a} {b}"
    );
    assert_ne!(a, b, "a fresh conversation per request");

    let seen: Vec<_> = server
        .fake
        .seen()
        .iter()
        .map(|i| i.conversation.to_string())
        .collect();
    assert_eq!(seen, ["from-header", "from-user", a.as_str(), b.as_str()]);
}

#[tokio::test]
async fn invalid_conversation_from_header_or_user_is_400() {
    let server = start(Fake::standard()).await;
    for id in hostile_ids() {
        let mut body = chat(json!("hi"));
        body["user"] = json!(id);
        let resp = server.post(CHAT, &body).await;
        assert_eq!(resp.status(), 400, "user {id:?}");
        assert_eq!(json_of(resp).await["error"]["type"], "bad_request");
    }
    // Header values that HTTP can carry at all.
    for id in ["../x", &"x".repeat(200), "a b"] {
        let resp = post_with_header(&server, id, &chat(json!("hi"))).await;
        assert_eq!(resp.status(), 400, "header {id:?}");
        let msg = json_of(resp).await["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.contains("X-Steward-Conversation"), "{msg}");
    }
    // Raw non-ASCII bytes (an RTL override in UTF-8) in the header.
    let rtl = reqwest::header::HeaderValue::from_bytes("a\u{202e}b".as_bytes()).unwrap();
    let resp = client()
        .post(server.url(CHAT))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "application/json")
        .header("X-Steward-Conversation", rtl)
        .body(chat(json!("hi")).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    assert!(server.fake.seen().is_empty());
}

#[tokio::test]
async fn last_message_must_be_from_the_user() {
    let server = start(Fake::standard()).await;
    let bodies = [
        json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}),
        json!({"messages": [{"role": "system", "content": "hi"}]}),
        json!({"messages": []}),
        json!({"messages": [{"role": "user", "content": "  "}]}),
    ];
    for body in bodies {
        let resp = server.post(CHAT, &body).await;
        assert_eq!(resp.status(), 400, "{body}");
        let err = json_of(resp).await;
        assert!(err["error"]["message"].is_string());
        assert_eq!(err["error"]["code"], Value::Null);
    }
    let resp = server.post(CHAT, &json!({"model": "x"})).await;
    assert_eq!(resp.status(), 422, "missing messages");
    assert!(server.fake.seen().is_empty());
}

#[tokio::test]
async fn failures_use_the_openai_error_shape() {
    for (kind, status, name) in [
        (FailureKind::NoModel, 503, "no_model"),
        (FailureKind::Model, 502, "model"),
        (FailureKind::Input, 400, "input"),
    ] {
        let server = start(Fake::failing(kind)).await;
        let resp = post_with_header(&server, "c1", &chat(json!("hi"))).await;
        assert_eq!(resp.status(), status, "{kind:?}");
        assert_eq!(resp.headers()["x-steward-conversation"], "c1");
        let err = json_of(resp).await;
        assert_eq!(err["error"]["type"], name);
        assert_eq!(
            err["error"]["message"],
            format!("scripted {kind:?} failure")
        );
        assert_eq!(err["error"]["code"], Value::Null);
    }
}

#[tokio::test]
async fn models_lists_steward() {
    let server = start(Fake::standard()).await;
    let resp = client()
        .get(server.url("/v1/models"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        json_of(resp).await,
        json!({"object": "list", "data": [{"id": "steward", "object": "model", "owned_by": "steward"}]})
    );
}
