//! Anthropic Messages wire format against the fake server.

use crate::fake::*;
use serde_json::{Value, json};
use steward_llm::{ChatRequest, FinishReason, ModelRef, ProviderKind};
use steward_protocol::{Message, Usage};
use tokio_util::sync::CancellationToken;

fn model() -> ModelRef {
    ModelRef::parse("anthropic:claude-test").unwrap()
}

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

#[tokio::test]
async fn request_body_shape_auth_and_plain_reply() {
    let server = FakeServer::start(vec![Reply::ok(json!({
        "id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "It is "}, {"type": "text", "text": "noon."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 30, "output_tokens": 4, "cache_read_input_tokens": 100}
    }))])
    .await;
    let m = models(vec![config(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base,
        false,
    )]);
    let mut req = sample_request();
    req.max_output_tokens = None;
    let resp = m
        .chat(&model(), None, &req, None, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(resp.text, "It is noon.");
    assert_eq!(resp.finish, FinishReason::Stop);
    // Cached prompt tokens are still input tokens.
    assert_eq!(
        resp.usage,
        Usage {
            input_tokens: 130,
            output_tokens: 4
        }
    );
    assert_eq!(resp.model, "anthropic:claude-test");

    let r = &server.requests()[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.header("x-api-key").as_deref(), Some(KEY));
    assert_eq!(r.header("anthropic-version").as_deref(), Some("2023-06-01"));
    assert!(r.header("authorization").is_none());
    let b = &r.body;
    assert_eq!(b["model"], "claude-test");
    assert_eq!(
        b["max_tokens"], 4096,
        "max_tokens is required; default applies"
    );
    assert_eq!(b["system"], "You are Steward.");
    assert!(b.get("stream").is_none());
    assert_eq!(
        b["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "What time is it?"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "clock", "input": {"tz": "UTC"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "12:00"}]}
        ])
    );
    let tools = b["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "clock");
    assert_eq!(tools[0]["description"], "Current time");
    assert_eq!(
        tools[0]["input_schema"]["properties"]["tz"]["type"],
        "string"
    );
}

#[tokio::test]
async fn consecutive_tool_results_and_user_text_share_one_user_turn() {
    let server = FakeServer::start(vec![Reply::ok(json!({
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1}
    }))])
    .await;
    let mut second = clock_call();
    second.id = "call_2".into();
    second.arguments = "{broken".into();
    let req = ChatRequest {
        system: String::new(),
        messages: vec![
            Message::user("hi"),
            Message::assistant("Checking.", vec![clock_call(), second.clone()]),
            Message::tool_result(&clock_call(), "12:00"),
            Message::tool_result(&second, "error: bad arguments"),
            Message::user("and?"),
        ],
        tools: Vec::new(),
        max_output_tokens: Some(100),
        temperature: None,
        parts: Default::default(),
    };
    models(vec![config(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base,
        false,
    )])
    .chat(&model(), None, &req, None, &CancellationToken::new())
    .await
    .unwrap();
    let b = &server.requests()[0].body;
    assert!(b.get("system").is_none());
    assert!(b.get("tools").is_none());
    assert_eq!(b["max_tokens"], 100);
    let msgs = b["messages"].as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, vec!["user", "assistant", "user"]);
    assert_eq!(
        msgs[1]["content"][0],
        json!({"type": "text", "text": "Checking."})
    );
    assert_eq!(msgs[1]["content"][2]["input"], json!({"_raw": "{broken"}));
    let last: Vec<&str> = msgs[2]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(last, vec!["tool_result", "tool_result", "text"]);
}

#[tokio::test]
async fn tool_call_reply() {
    let server = FakeServer::start(vec![Reply::ok(json!({
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_1", "name": "clock", "input": {"tz": "Europe/Paris"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 12, "output_tokens": 8}
    }))])
    .await;
    let resp = models(vec![config(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base,
        false,
    )])
    .chat(
        &model(),
        None,
        &sample_request(),
        None,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(resp.finish, FinishReason::ToolCalls);
    assert_eq!(resp.text, "Let me check.");
    assert_eq!(resp.tool_calls.len(), 1);
    assert_eq!(resp.tool_calls[0].id, "toolu_1");
    assert_eq!(resp.tool_calls[0].name, "clock");
    let args: Value = serde_json::from_str(&resp.tool_calls[0].arguments).unwrap();
    assert_eq!(args, json!({"tz": "Europe/Paris"}));
    assert_eq!(
        resp.usage,
        Usage {
            input_tokens: 12,
            output_tokens: 8
        }
    );
}

#[tokio::test]
async fn streamed_text_and_tool_call_with_split_json() {
    let delta = |i: u32, d: Value| {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": i, "delta": d}),
        )
    };
    let server = FakeServer::start(vec![Reply::sse_raw(vec![
        event("message_start", json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 25, "output_tokens": 1}}})),
        event("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        event("ping", json!({"type": "ping"})),
        delta(0, json!({"type": "text_delta", "text": "Let "})),
        delta(0, json!({"type": "text_delta", "text": "me check."})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        event("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_9", "name": "clock", "input": {}}})),
        delta(1, json!({"type": "input_json_delta", "partial_json": ""})),
        delta(1, json!({"type": "input_json_delta", "partial_json": "{\"tz\": \"Asi"})),
        delta(1, json!({"type": "input_json_delta", "partial_json": "a/Tokyo\"}"})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 17}})),
        event("message_stop", json!({"type": "message_stop"})),
    ])])
    .await;
    let pieces = Pieces::default();
    let sink = |s: &str| pieces.push(s);
    let resp = models(vec![config(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base,
        true,
    )])
    .chat(
        &model(),
        None,
        &sample_request(),
        Some(&sink),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(server.requests()[0].body["stream"], true);
    assert_eq!(pieces.all(), vec!["Let ", "me check."]);
    assert_eq!(resp.text, "Let me check.");
    assert_eq!(resp.finish, FinishReason::ToolCalls);
    assert_eq!(resp.tool_calls.len(), 1);
    assert_eq!(resp.tool_calls[0].id, "toolu_9");
    assert_eq!(resp.tool_calls[0].arguments, "{\"tz\": \"Asia/Tokyo\"}");
    assert_eq!(
        resp.usage,
        Usage {
            input_tokens: 25,
            output_tokens: 17
        }
    );
}

#[tokio::test]
async fn overloaded_error_event_before_output_is_retried() {
    let server = FakeServer::start(vec![
        Reply::sse_raw(vec![
            event("message_start", json!({"type": "message_start", "message": {"usage": {"input_tokens": 5}}})),
            event("error", json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
        ]),
        Reply::sse_raw(vec![
            event("message_start", json!({"type": "message_start", "message": {"usage": {"input_tokens": 5}}})),
            event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "fine"}})),
            event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}})),
            event("message_stop", json!({"type": "message_stop"})),
        ]),
    ])
    .await;
    let sink = |_: &str| {};
    let resp = models(vec![config(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base,
        true,
    )])
    .chat(
        &model(),
        None,
        &sample_request(),
        Some(&sink),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(resp.text, "fine");
    assert_eq!(server.requests().len(), 2);
}
