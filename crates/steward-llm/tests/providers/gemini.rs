//! Gemini generateContent wire format against the fake server.

use crate::fake::*;
use serde_json::{Value, json};
use steward_llm::{FinishReason, ModelRef, ProviderKind};
use steward_protocol::Usage;
use tokio_util::sync::CancellationToken;

fn model() -> ModelRef {
    ModelRef::parse("gemini:gemini-test").unwrap()
}

fn text_chunk(text: &str) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]})
}

#[tokio::test]
async fn request_body_shape_key_in_header_only_and_plain_reply() {
    let server = FakeServer::start(vec![Reply::ok(json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "thinking...", "thought": true},
            {"text": "It is noon."}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 6, "thoughtsTokenCount": 10}
    }))])
    .await;
    let m = models(vec![config(
        "gemini",
        ProviderKind::Gemini,
        &server.base,
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
    assert_eq!(
        resp.text, "It is noon.",
        "thought parts are not answer text"
    );
    assert_eq!(resp.finish, FinishReason::Stop);
    assert_eq!(
        resp.usage,
        Usage {
            input_tokens: 50,
            output_tokens: 16
        }
    );
    assert_eq!(resp.model, "gemini:gemini-test");

    let r = &server.requests()[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1beta/models/gemini-test:generateContent");
    assert_eq!(r.header("x-goog-api-key").as_deref(), Some(KEY));
    let query = r.query.clone().unwrap_or_default();
    assert!(
        !query.contains(KEY) && !query.contains("key="),
        "key leaked into URL: {query}"
    );
    let b = &r.body;
    assert_eq!(
        b["systemInstruction"],
        json!({"parts": [{"text": "You are Steward."}]})
    );
    assert_eq!(
        b["contents"],
        json!([
            {"role": "user", "parts": [{"text": "What time is it?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "clock", "args": {"tz": "UTC"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "clock", "response": {"content": "12:00"}}}]}
        ])
    );
    let decl = &b["tools"][0]["functionDeclarations"][0];
    assert_eq!(decl["name"], "clock");
    assert_eq!(decl["description"], "Current time");
    assert!(decl["parameters"].get("additionalProperties").is_none());
    assert!(decl["parameters"].get("$schema").is_none());
    assert_eq!(decl["parameters"]["properties"]["tz"]["type"], "string");
    assert_eq!(
        b["generationConfig"],
        json!({"maxOutputTokens": 256, "temperature": 0.5})
    );
}

#[tokio::test]
async fn tool_call_reply_gets_synthesized_stable_ids() {
    let server = FakeServer::start(vec![Reply::ok(json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "clock", "args": {"tz": "UTC"}}},
            {"functionCall": {"name": "notes", "args": {}}}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4}
    }))])
    .await;
    let resp = models(vec![config(
        "gemini",
        ProviderKind::Gemini,
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
    let ids: Vec<&str> = resp.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, vec!["call_0", "call_1"]);
    assert_eq!(resp.tool_calls[0].name, "clock");
    let args: Value = serde_json::from_str(&resp.tool_calls[0].arguments).unwrap();
    assert_eq!(args, json!({"tz": "UTC"}));
    assert_eq!(resp.tool_calls[1].arguments, "{}");
}

#[tokio::test]
async fn streamed_text_then_function_call_with_events_split_across_writes() {
    let final_chunk = json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "clock", "args": {"tz": "America/New_York"}}}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 70, "candidatesTokenCount": 12}
    })
    .to_string();
    let (a, b) = final_chunk.split_at(final_chunk.len() / 2);
    let server = FakeServer::start(vec![Reply::sse_raw(vec![
        format!("data: {}\r\n\r\n", text_chunk("One ")),
        format!("data: {}\r\n\r\n", text_chunk("moment.")),
        format!("data: {a}"),
        format!("{b}\r\n\r\n"),
    ])])
    .await;
    let pieces = Pieces::default();
    let sink = |s: &str| pieces.push(s);
    let resp = models(vec![config(
        "gemini",
        ProviderKind::Gemini,
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
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1beta/models/gemini-test:streamGenerateContent");
    assert_eq!(r.query.as_deref(), Some("alt=sse"));
    assert_eq!(r.header("x-goog-api-key").as_deref(), Some(KEY));
    assert_eq!(pieces.all(), vec!["One ", "moment."]);
    assert_eq!(resp.text, "One moment.");
    assert_eq!(resp.finish, FinishReason::ToolCalls);
    assert_eq!(resp.tool_calls.len(), 1);
    assert_eq!(resp.tool_calls[0].id, "call_0");
    let args: Value = serde_json::from_str(&resp.tool_calls[0].arguments).unwrap();
    assert_eq!(args, json!({"tz": "America/New_York"}));
    assert_eq!(
        resp.usage,
        Usage {
            input_tokens: 70,
            output_tokens: 12
        }
    );
}

#[tokio::test]
async fn streamed_max_tokens_is_length() {
    let server = FakeServer::start(vec![Reply::sse_data(&[
        text_chunk("Once upon"),
        json!({"candidates": [{"content": {"parts": [{"text": " a time"}]}, "finishReason": "MAX_TOKENS"}],
               "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 256}}),
    ])])
    .await;
    let sink = |_: &str| {};
    let resp = models(vec![config(
        "gemini",
        ProviderKind::Gemini,
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
    assert_eq!(resp.text, "Once upon a time");
    assert_eq!(resp.finish, FinishReason::Length);
    assert_eq!(resp.usage.output_tokens, 256);
}
