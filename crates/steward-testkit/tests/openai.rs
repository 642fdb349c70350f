//! The OpenAI Chat Completions face of the fake model, driven over real HTTP.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{client, parse_sse, parse_sse_prefix, read_body};
use serde_json::{Value, json};
use steward_testkit::{FakeModel, Reply, Step, WireFormat};

async fn post(fake: &FakeModel, body: Value) -> reqwest::Response {
    client()
        .post(format!("{}/chat/completions", fake.openai_base_url()))
        .header("authorization", "Bearer sk-test-openai")
        .json(&body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn non_streaming_text_has_the_completion_shape() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("Hello there").with_usage(12, 3)));
    let response = post(
        &fake,
        json!({"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "gpt-x");
    assert!(v["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert!(v["created"].as_u64().unwrap() > 1_600_000_000);
    let choice = &v["choices"][0];
    assert_eq!(choice["index"], 0);
    assert_eq!(choice["message"]["role"], "assistant");
    assert_eq!(choice["message"]["content"], "Hello there");
    assert!(choice["message"].get("tool_calls").is_none());
    assert_eq!(choice["finish_reason"], "stop");
    assert_eq!(
        v["usage"],
        json!({"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15})
    );
}

#[tokio::test]
async fn non_streaming_tool_calls_keep_raw_arguments() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Reply::tool_call("get_time", r#"{"tz":"UTC"}"#).with_call("broken", "{not json"));
    let v: Value = post(&fake, json!({"model": "m", "messages": []}))
        .await
        .json()
        .await
        .unwrap();
    let message = &v["choices"][0]["message"];
    assert_eq!(message["content"], Value::Null);
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["type"], "function");
    assert_eq!(calls[0]["function"]["name"], "get_time");
    assert_eq!(calls[0]["function"]["arguments"], r#"{"tz":"UTC"}"#);
    assert_eq!(calls[1]["function"]["arguments"], "{not json");
    let (a, b) = (
        calls[0]["id"].as_str().unwrap(),
        calls[1]["id"].as_str().unwrap(),
    );
    assert!(a.starts_with("call_") && a != b);
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
}

#[tokio::test]
async fn streaming_text_and_tools_reassemble_with_usage_and_done() {
    let fake = FakeModel::start().await.unwrap();
    let reply = Reply::text("Héllo, wörld!")
        .with_call("search", r#"{"q":"rust sse","n":3}"#)
        .with_call("noop", "")
        .with_usage(7, 9)
        .with_chunk_chars(3);
    fake.push(reply);
    let body = json!({"model": "m", "messages": [], "stream": true, "stream_options": {"include_usage": true}});
    let response = post(&fake, body).await;
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let (raw, cut) = read_body(response).await;
    assert!(!cut);
    let events = parse_sse(&raw);
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|e| e.json())
        .collect();
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk")
    );
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");

    let mut text = String::new();
    let mut args: Vec<String> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut finish = None;
    for chunk in &chunks[..chunks.len() - 1] {
        let choice = &chunk["choices"][0];
        let delta = &choice["delta"];
        if let Some(piece) = delta["content"].as_str() {
            assert!(piece.chars().count() <= 3);
            text.push_str(piece);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().unwrap() as usize;
            if let Some(name) = call["function"]["name"].as_str() {
                assert_eq!(index, names.len());
                assert_eq!(call["type"], "function");
                assert!(call["id"].as_str().unwrap().starts_with("call_"));
                names.push(name.to_owned());
                args.push(String::new());
            } else {
                assert!(call.get("id").is_none());
            }
            args[index].push_str(call["function"]["arguments"].as_str().unwrap());
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            finish = Some(reason.to_owned());
        }
    }
    assert_eq!(text, "Héllo, wörld!");
    assert_eq!(names, ["search", "noop"]);
    assert_eq!(args, [r#"{"q":"rust sse","n":3}"#, ""]);
    assert_eq!(finish.as_deref(), Some("tool_calls"));
    let usage_chunk = chunks.last().unwrap();
    assert_eq!(usage_chunk["choices"], json!([]));
    assert_eq!(usage_chunk["usage"]["prompt_tokens"], 7);
    assert_eq!(usage_chunk["usage"]["completion_tokens"], 9);
    assert_eq!(usage_chunk["usage"]["total_tokens"], 16);
}

#[tokio::test]
async fn streaming_without_include_usage_sends_no_usage_chunk() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Reply::text("abc"));
    let (raw, _) = read_body(post(&fake, json!({"model": "m", "stream": true})).await).await;
    let events = parse_sse(&raw);
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|e| e.json())
        .collect();
    assert!(
        chunks
            .iter()
            .all(|c| c.get("usage").is_none() && c["choices"].as_array().unwrap().len() == 1)
    );
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "stop"
    );
}

#[tokio::test]
async fn tool_only_stream_announces_role_with_the_first_call() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Reply::tool_call("f", "{}"));
    let (raw, _) = read_body(post(&fake, json!({"model": "m", "stream": true})).await).await;
    let first = parse_sse(&raw)[0].json();
    let delta = &first["choices"][0]["delta"];
    assert_eq!(delta["role"], "assistant");
    assert_eq!(delta["tool_calls"][0]["function"]["name"], "f");
}

#[tokio::test]
async fn error_step_uses_openai_error_shape_and_retry_after() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Error {
        status: 429,
        message: "slow down".into(),
        retry_after: Some("7".into()),
    });
    fake.push(Step::error(503, "overloaded"));
    let response = post(&fake, json!({"model": "m", "stream": true})).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "7");
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["error"]["message"], "slow down");
    assert_eq!(v["error"]["type"], "requests");
    assert_eq!(v["error"]["code"], "rate_limit_exceeded");
    let response = post(&fake, json!({"model": "m"})).await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().get("retry-after").is_none());
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["error"]["type"], "server_error");
    assert_eq!(v["error"]["message"], "overloaded");
}

#[tokio::test]
async fn broken_stream_sends_text_then_cuts_without_done() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::BrokenStream {
        text: "partial answer".into(),
    });
    let (raw, cut) = read_body(post(&fake, json!({"model": "m", "stream": true})).await).await;
    assert!(cut, "the body must end in a transport error");
    assert!(!raw.contains("[DONE]"));
    let events = parse_sse_prefix(&raw);
    let text: String = events
        .iter()
        .filter_map(|e| {
            e.json()["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(text, "partial answer");
    assert!(
        events
            .iter()
            .all(|e| e.json()["choices"][0]["finish_reason"].is_null())
    );
}

#[tokio::test]
async fn broken_non_streaming_body_is_truncated() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::BrokenStream {
        text: "partial answer".into(),
    });
    let (raw, cut) = read_body(post(&fake, json!({"model": "m"})).await).await;
    assert!(cut);
    assert!(serde_json::from_str::<Value>(&raw).is_err());
    assert!(raw.starts_with('{'));
}

#[tokio::test]
async fn records_headers_body_and_flags() {
    let fake = FakeModel::start().await.unwrap();
    let body =
        json!({"model": "gpt-rec", "messages": [{"role": "user", "content": "x"}], "stream": true});
    read_body(post(&fake, body.clone()).await).await;
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.format, WireFormat::OpenAi);
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.body, body);
    assert!(r.streaming);
    assert_eq!(r.model, "gpt-rec");
    assert_eq!(r.header("Authorization"), Some("Bearer sk-test-openai"));
    assert!(!format!("{r:?}").contains("sk-test-openai"));
}

#[tokio::test]
async fn models_list_has_openai_shape() {
    let fake = FakeModel::start().await.unwrap();
    let v: Value = client()
        .get(format!("{}/models", fake.openai_base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["object"], "list");
    let data = v["data"].as_array().unwrap();
    assert!(!data.is_empty());
    assert!(
        data.iter()
            .all(|m| m["object"] == "model" && m["id"].is_string())
    );
    assert_eq!(
        fake.request_count(),
        0,
        "listing models is not a model request"
    );
}

#[tokio::test]
async fn invalid_json_is_rejected_without_consuming_a_step() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Reply::text("kept"));
    let response = client()
        .post(format!("{}/chat/completions", fake.openai_base_url()))
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["error"]["type"], "invalid_request_error");
    assert_eq!(fake.requests()[0].body, Value::String("{oops".into()));
    let v: Value = post(&fake, json!({"model": "m"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "kept");
}
