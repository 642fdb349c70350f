//! OpenAI-compatible wire format against the fake server.

use crate::fake::*;
use serde_json::json;
use steward_llm::{ChatRequest, FinishReason, ModelRef, ProviderKind};
use steward_protocol::{Message, Usage};
use tokio_util::sync::CancellationToken;

fn model() -> ModelRef {
    ModelRef::parse("openai:gpt-test").unwrap()
}

#[tokio::test]
async fn request_body_shape_auth_and_plain_reply_without_streaming() {
    let server = FakeServer::start(vec![Reply::ok(json!({
        "choices": [{"message": {"role": "assistant", "content": "It is noon."}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 42, "completion_tokens": 7}
    }))])
    .await;
    let base = format!("{}/v1", server.base);
    // stream: false must hold even though a text sink is given.
    let m = models(vec![config("openai", ProviderKind::OpenAi, &base, false)]);
    let pieces = Pieces::default();
    let sink = |s: &str| pieces.push(s);
    let resp = m
        .chat(
            &model(),
            None,
            &sample_request(),
            Some(&sink),
            &CancellationToken::new(),
        )
        .await
        .unwrap();

    assert_eq!(resp.text, "It is noon.");
    assert_eq!(resp.finish, FinishReason::Stop);
    assert_eq!(resp.model, "openai:gpt-test");
    assert_eq!(
        resp.usage,
        Usage {
            input_tokens: 42,
            output_tokens: 7
        }
    );
    assert!(resp.tool_calls.is_empty());
    assert_eq!(pieces.all(), vec!["It is noon.".to_owned()]);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        r.header("authorization").as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    let b = &r.body;
    assert_eq!(b["model"], "gpt-test");
    assert!(
        b.get("stream").is_none(),
        "non-streaming request must not ask for a stream"
    );
    assert_eq!(b["max_tokens"], 256);
    assert_eq!(b["temperature"], 0.5);
    let msgs = b["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 4);
    assert_eq!(
        msgs[0],
        json!({"role": "system", "content": "You are Steward."})
    );
    assert_eq!(
        msgs[1],
        json!({"role": "user", "content": "What time is it?"})
    );
    assert_eq!(
        msgs[2],
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "clock", "arguments": "{\"tz\":\"UTC\"}"}}
        ]})
    );
    assert_eq!(
        msgs[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "12:00"})
    );
    let tools = b["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["type"], "function");
    assert_eq!(tools[0]["function"]["name"], "clock");
    assert_eq!(tools[0]["function"]["description"], "Current time");
    assert_eq!(
        tools[0]["function"]["parameters"]["properties"]["tz"]["type"],
        "string"
    );
}

#[tokio::test]
async fn no_key_means_no_auth_header_and_no_tools_means_no_tools_field() {
    let server = FakeServer::start(vec![Reply::ok(json!({
        "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]
    }))])
    .await;
    let mut cfg = config(
        "ollama",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        true,
    );
    cfg.api_key = None;
    let req = ChatRequest {
        system: String::new(),
        messages: vec![Message::user("hello")],
        tools: Vec::new(),
        max_output_tokens: None,
        temperature: None,
        parts: Default::default(),
    };
    let resp = models(vec![cfg])
        .chat(
            &ModelRef::parse("ollama:qwen3:8b").unwrap(),
            None,
            &req,
            None,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(resp.text, "hi");
    assert_eq!(resp.model, "ollama:qwen3:8b");
    let r = &server.requests()[0];
    assert!(r.header("authorization").is_none());
    assert_eq!(r.body["model"], "qwen3:8b");
    assert!(r.body.get("tools").is_none());
    assert!(r.body.get("max_tokens").is_none());
    // No sink given: streaming is pointless, so the plain endpoint is used.
    assert!(r.body.get("stream").is_none());
    assert_eq!(
        r.body["messages"],
        json!([{"role": "user", "content": "hello"}])
    );
}

#[tokio::test]
async fn tool_call_reply_keeps_raw_arguments_even_when_malformed() {
    let server = FakeServer::start(vec![Reply::ok(json!({
        "choices": [{"message": {"content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "clock", "arguments": "{\"tz\": \"UTC\""}},
            {"id": "call_b", "type": "function", "function": {"name": "notes", "arguments": "{}"}}
        ]}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 9}
    }))])
    .await;
    let m = models(vec![config(
        "openai",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        false,
    )]);
    let resp = m
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
    assert_eq!(resp.text, "");
    assert_eq!(resp.tool_calls.len(), 2);
    assert_eq!(resp.tool_calls[0].id, "call_a");
    assert_eq!(resp.tool_calls[0].name, "clock");
    assert_eq!(resp.tool_calls[0].arguments, "{\"tz\": \"UTC\"");
    assert_eq!(resp.tool_calls[1].name, "notes");
    assert_eq!(resp.usage.total(), 12);
}

#[tokio::test]
async fn streamed_text_arrives_in_order_with_usage() {
    let server = FakeServer::start(vec![Reply::sse_raw(vec![
        ": keep-alive\n\n".into(),
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})),
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"content": "Hel"}}]})),
        // One event split across two network writes.
        "data: {\"choices\": [{\"index\": 0, \"delta\": {\"con".into(),
        "tent\": \"lo\"}}]}\r\n\r\n".into(),
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"content": " world"}, "finish_reason": "stop"}]})),
        format!("data: {}\n\n", json!({"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 3}})),
        "data: [DONE]\n\n".into(),
    ])])
    .await;
    let m = models(vec![config(
        "openai",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        true,
    )]);
    let pieces = Pieces::default();
    let sink = |s: &str| pieces.push(s);
    let resp = m
        .chat(
            &model(),
            None,
            &sample_request(),
            Some(&sink),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(pieces.all(), vec!["Hel", "lo", " world"]);
    assert_eq!(resp.text, "Hello world");
    assert_eq!(resp.finish, FinishReason::Stop);
    assert_eq!(
        resp.usage,
        Usage {
            input_tokens: 11,
            output_tokens: 3
        }
    );
    let body = &server.requests()[0].body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn streamed_tool_call_arguments_are_reassembled_exactly() {
    let chunk =
        |tc: serde_json::Value| json!({"choices": [{"index": 0, "delta": {"tool_calls": [tc]}}]});
    let server = FakeServer::start(vec![Reply::sse_data(&[
        chunk(json!({"index": 0, "id": "call_x", "type": "function", "function": {"name": "clock", "arguments": ""}})),
        chunk(json!({"index": 0, "function": {"arguments": "{\"tz\""}})),
        chunk(json!({"index": 0, "function": {"arguments": ": \"Europe/"}})),
        chunk(json!({"index": 1, "id": "call_y", "type": "function", "function": {"name": "notes", "arguments": "{\"q\":"}})),
        chunk(json!({"index": 0, "function": {"arguments": "Paris\"}"}})),
        chunk(json!({"index": 1, "function": {"arguments": " \"milk\"}"}})),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 15}}),
        json!("[DONE]"),
    ])])
    .await;
    let m = models(vec![config(
        "openai",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        true,
    )]);
    let sink = |_: &str| {};
    let resp = m
        .chat(
            &model(),
            None,
            &sample_request(),
            Some(&sink),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(resp.finish, FinishReason::ToolCalls);
    assert_eq!(resp.tool_calls.len(), 2);
    assert_eq!(resp.tool_calls[0].id, "call_x");
    assert_eq!(resp.tool_calls[0].name, "clock");
    assert_eq!(resp.tool_calls[0].arguments, "{\"tz\": \"Europe/Paris\"}");
    assert_eq!(resp.tool_calls[1].id, "call_y");
    assert_eq!(resp.tool_calls[1].arguments, "{\"q\": \"milk\"}");
    assert_eq!(
        resp.usage,
        Usage {
            input_tokens: 20,
            output_tokens: 15
        }
    );
}

#[tokio::test]
async fn probe_lists_models_with_auth() {
    let server = FakeServer::start(vec![
        Reply::ok(json!({"data": []})),
        Reply::status(401, r#"{"error":{"message":"bad key"}}"#),
    ])
    .await;
    let m = models(vec![config(
        "openai",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        true,
    )]);
    m.probe("openai").await.unwrap();
    let err = m.probe("openai").await.unwrap_err();
    assert!(
        matches!(err, steward_llm::LlmError::Http { status: 401, .. }),
        "{err:?}"
    );
    let reqs = server.requests();
    assert_eq!(
        (reqs[0].method.as_str(), reqs[0].path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(
        reqs[0].header("authorization").as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert!(m.probe("nope").await.is_err());
}
