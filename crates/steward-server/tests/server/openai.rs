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
    assert_eq!(
        seen[0].principal,
        Principal::authenticated(crate::support::owner_id())
    );
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
async fn any_user_string_maps_to_a_valid_stable_conversation() {
    let server = start(Fake::standard()).await;
    let mut seen = std::collections::HashSet::new();
    for id in hostile_ids().into_iter().filter(|id| !id.is_empty()) {
        let mut body = chat(json!("hi"));
        body["user"] = json!(id);
        let first = server.post(CHAT, &body).await;
        assert_eq!(first.status(), 200, "user {id:?}");
        let conv = first.headers()["x-steward-conversation"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(conv.starts_with("user-"), "user {id:?} → {conv}");
        assert!(conv.len() <= 128 && conv.is_ascii(), "{conv}");
        let again = server.post(CHAT, &body).await;
        assert_eq!(
            again.headers()["x-steward-conversation"],
            conv.as_str(),
            "stable"
        );
        assert!(seen.insert(conv), "distinct users, distinct conversations");
    }
    // An empty `user` names nobody: a fresh conversation.
    let mut body = chat(json!("hi"));
    body["user"] = json!("");
    let resp = server.post(CHAT, &body).await;
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["x-steward-conversation"]
            .to_str()
            .unwrap()
            .starts_with("openai-")
    );
}

#[tokio::test]
async fn invalid_conversation_header_is_400() {
    let server = start(Fake::standard()).await;
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
    for (kind, status, name, retry) in [
        (FailureKind::NoModel, 503, "no_model", "false"),
        (FailureKind::Model, 502, "model", "true"),
        (FailureKind::ModelRejected, 422, "model_rejected", "false"),
        (FailureKind::ModelConfig, 503, "model_config", "false"),
        (FailureKind::Input, 400, "input", "false"),
        (FailureKind::Cancelled, 409, "cancelled", "false"),
    ] {
        let server = start(Fake::failing(kind)).await;
        let resp = post_with_header(&server, "c1", &chat(json!("hi"))).await;
        assert_eq!(resp.status(), status, "{kind:?}");
        assert_eq!(resp.headers()["x-steward-conversation"], "c1");
        // The SDKs obey this over the status: only a retry that can help is asked for.
        assert_eq!(resp.headers()["x-should-retry"], retry, "{kind:?}");
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
    let list = json_of(resp).await;
    assert_eq!(list["object"], "list");
    let model = &list["data"][0];
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(model["id"], "steward");
    assert_eq!(model["object"], "model");
    assert_eq!(model["owned_by"], "steward");
    // Required by the OpenAI schema: the SDKs' strict types refuse a model without it.
    assert!(
        model["created"].as_u64().unwrap() > 1_700_000_000,
        "{model}"
    );

    let one = client()
        .get(server.url("/v1/models/steward"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(one.status(), 200);
    assert_eq!(
        &json_of(one).await,
        model,
        "the same object listed and retrieved"
    );
    let missing = client()
        .get(server.url("/v1/models/gpt-4"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert_eq!(json_of(missing).await["error"]["type"], "model_not_found");
}

#[tokio::test]
async fn fields_steward_cannot_honour_get_a_400_naming_them() {
    let server = start(Fake::standard()).await;
    let tool = json!([{"type": "function", "function": {"name": "f", "parameters": {}}}]);
    let cases = [
        ("n", json!(2)),
        ("tools", tool.clone()),
        ("functions", tool),
        ("tool_choice", json!("required")),
        (
            "tool_choice",
            json!({"type": "function", "function": {"name": "f"}}),
        ),
        ("function_call", json!({"name": "f"})),
        ("response_format", json!({"type": "json_object"})),
        (
            "response_format",
            json!({"type": "json_schema", "json_schema": {}}),
        ),
        ("audio", json!({"voice": "alloy", "format": "wav"})),
        ("modalities", json!(["text", "audio"])),
        ("logprobs", json!(true)),
        ("top_logprobs", json!(3)),
    ];
    for (field, value) in cases {
        let mut body = chat(json!("hi"));
        body[field] = value.clone();
        let resp = server.post(CHAT, &body).await;
        assert_eq!(resp.status(), 400, "{field}={value}");
        assert_eq!(resp.headers()["x-should-retry"], "false");
        let msg = json_of(resp).await["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.starts_with(&format!("{field}: ")), "{field}: {msg}");
    }
    assert!(server.fake.seen().is_empty(), "nothing was submitted");
    // What they may carry when they ask for nothing Steward lacks.
    for (field, value) in [
        ("n", json!(1)),
        ("tools", json!([])),
        ("tool_choice", json!("auto")),
        ("response_format", json!({"type": "text"})),
        ("modalities", json!(["text"])),
        ("logprobs", json!(false)),
        ("temperature", json!(0.2)),
        ("audio", Value::Null),
    ] {
        let mut body = chat(json!("hi"));
        body[field] = value.clone();
        assert_eq!(
            server.post(CHAT, &body).await.status(),
            200,
            "{field}={value}"
        );
    }
}

#[tokio::test]
async fn system_and_developer_messages_become_the_turns_instructions() {
    let server = start(Fake::standard()).await;
    let body = json!({"messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "earlier"},
        {"role": "developer", "content": [{"type": "text", "text": "answer in French"}]},
        {"role": "user", "content": "hi"},
    ]});
    assert_eq!(server.post(CHAT, &body).await.status(), 200);
    let no_system = json!({"messages": [{"role": "user", "content": "hi"}]});
    assert_eq!(server.post(CHAT, &no_system).await.status(), 200);
    let seen = server.fake.seen();
    assert_eq!(seen[0].text, "hi");
    assert_eq!(
        seen[0].instructions.as_deref(),
        Some("be brief\n\nanswer in French")
    );
    assert_eq!(seen[1].instructions, None);
    // An unknown role is a client bug, named.
    let odd = json!({"messages": [{"role": "wizard", "content": "x"}, {"role": "user", "content": "hi"}]});
    let resp = server.post(CHAT, &odd).await;
    assert_eq!(resp.status(), 400);
    assert!(
        json_of(resp).await["error"]["message"]
            .as_str()
            .unwrap()
            .contains("messages[0].role")
    );
    // Oversized instructions: 413, nothing submitted.
    let huge = json!({"messages": [
        {"role": "system", "content": "x".repeat(70 * 1024)},
        {"role": "user", "content": "hi"},
    ]});
    assert_eq!(server.post(CHAT, &huge).await.status(), 413);
    assert_eq!(server.fake.seen().len(), 2);
}

#[tokio::test]
async fn every_request_is_keyed_and_a_marked_retry_asks_for_replay() {
    use steward_protocol::Replay;
    let server = start(Fake::standard()).await;
    let send = |retry: Option<&'static str>, key: Option<&'static str>| {
        let mut req = client()
            .post(server.url(CHAT))
            .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header(CONTENT_TYPE, "application/json")
            .header("X-Steward-Conversation", "keyed");
        if let Some(r) = retry {
            req = req.header("x-stainless-retry-count", r);
        }
        if let Some(k) = key {
            req = req.header("idempotency-key", k);
        }
        req.body(chat(json!("hi")).to_string()).send()
    };
    assert_eq!(send(Some("0"), None).await.unwrap().status(), 200);
    assert_eq!(send(Some("1"), None).await.unwrap().status(), 200);
    assert_eq!(send(None, Some("k-1")).await.unwrap().status(), 200);
    assert_eq!(send(Some("2"), Some("k-1")).await.unwrap().status(), 200);
    let seen = server.fake.seen();
    let keys: Vec<_> = seen.iter().map(|i| i.request.clone().unwrap()).collect();
    assert_eq!(
        keys[0].replay,
        Replay::Never,
        "a first attempt only records itself"
    );
    assert_eq!(keys[1].replay, Replay::IfRecent);
    assert_eq!(
        keys[0].id(),
        keys[1].id(),
        "a retry has its first attempt's key"
    );
    assert_eq!(keys[2].replay, Replay::Always);
    assert_eq!(
        keys[2], keys[3],
        "the Idempotency-Key wins over the retry marker"
    );
    assert_ne!(keys[2].id(), keys[0].id());
    // A key that is not one: 400 naming the header, nothing submitted.
    for bad in ["", "a b", &"k".repeat(256)] {
        let resp = client()
            .post(server.url(CHAT))
            .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header(CONTENT_TYPE, "application/json")
            .header("idempotency-key", bad)
            .body(chat(json!("hi")).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 400, "{bad:?}");
        let msg = json_of(resp).await["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.contains("Idempotency-Key"), "{msg}");
    }
    assert_eq!(server.fake.seen().len(), 4);
}

#[tokio::test]
async fn an_unnamed_request_with_a_key_gets_a_conversation_derived_from_it() {
    let server = start(Fake::standard()).await;
    let send = |key: &'static str| {
        client()
            .post(server.url(CHAT))
            .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header(CONTENT_TYPE, "application/json")
            .header("idempotency-key", key)
            .body(json!({"messages": [{"role": "user", "content": "hi"}]}).to_string())
            .send()
    };
    let conv = |r: reqwest::Response| {
        r.headers()["x-steward-conversation"]
            .to_str()
            .unwrap()
            .to_owned()
    };
    let a = conv(send("one").await.unwrap());
    let b = conv(send("one").await.unwrap());
    let c = conv(send("two").await.unwrap());
    assert!(a.starts_with("openai-"), "{a}");
    assert_eq!(
        a, b,
        "a retry with the same key lands in the same conversation"
    );
    assert_ne!(a, c);
}

#[tokio::test]
async fn created_comes_from_the_servers_clock() {
    use steward_protocol::ManualClock;
    let clock = ManualClock::at_ms(1_750_000_000_500);
    let mut cfg = steward_server::ServerConfig::new(TOKEN, crate::support::owner_id());
    cfg.clock = clock.clone();
    let server = crate::support::start_with(Fake::standard(), cfg).await;
    // Started later than the router was built: the model keeps its start time.
    clock.advance(std::time::Duration::from_secs(3600));
    let list = json_of(server.get("/v1/models").await).await;
    assert_eq!(list["data"][0]["created"], 1_750_000_000, "{list}");

    let whole = json_of(server.post(CHAT, &chat(json!("hi"))).await).await;
    assert_eq!(whole["created"], 1_750_003_600, "{whole}");

    clock.advance(std::time::Duration::from_secs(60));
    let body = json!({"stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let text = server.post(CHAT, &body).await.text().await.unwrap();
    let events = crate::support::parse_sse(&text);
    let created: Vec<Value> = events
        .iter()
        .filter(|e| e.data != "[DONE]")
        .map(|e| serde_json::from_str::<Value>(&e.data).unwrap()["created"].clone())
        .collect();
    assert!(!created.is_empty());
    assert!(created.iter().all(|c| *c == 1_750_003_660), "{created:?}");
}
