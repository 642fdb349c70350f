//! The Anthropic Messages face of the fake model, driven over real HTTP.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{client, parse_sse, parse_sse_prefix, read_body};
use serde_json::{Value, json};
use steward_testkit::{FakeModel, Reply, Step, WireFormat};

async fn post(fake: &FakeModel, body: Value) -> reqwest::Response {
    client()
        .post(format!("{}/v1/messages", fake.base_url()))
        .header("x-api-key", "sk-ant-test")
        .header("anthropic-version", "2023-06-01")
        .json(&body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn non_streaming_message_shape() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(
        Reply::text("Let me check.")
            .with_call("weather", r#"{"city":"Oslo"}"#)
            .with_usage(20, 6),
    );
    let response = post(
        &fake,
        json!({"model": "claude-x", "max_tokens": 64, "messages": []}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["type"], "message");
    assert_eq!(v["role"], "assistant");
    assert_eq!(v["model"], "claude-x");
    assert!(v["id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(
        v["content"][0],
        json!({"type": "text", "text": "Let me check."})
    );
    let tool = &v["content"][1];
    assert_eq!(tool["type"], "tool_use");
    assert!(tool["id"].as_str().unwrap().starts_with("toolu_"));
    assert_eq!(tool["name"], "weather");
    assert_eq!(tool["input"], json!({"city": "Oslo"}));
    assert_eq!(v["stop_reason"], "tool_use");
    assert_eq!(v["usage"], json!({"input_tokens": 20, "output_tokens": 6}));
}

#[tokio::test]
async fn non_streaming_text_ends_turn_and_bad_arguments_are_not_an_object() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Reply::text("plain"));
    fake.push(Reply::tool_call("f", "{broken").with_call("g", ""));
    let v: Value = post(&fake, json!({"model": "m"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v["stop_reason"], "end_turn");
    assert_eq!(v["content"].as_array().unwrap().len(), 1);
    let v: Value = post(&fake, json!({"model": "m"}))
        .await
        .json()
        .await
        .unwrap();
    let content = v["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "no text block when there is no text");
    assert!(!content[0]["input"].is_object());
    assert_eq!(content[1]["input"], json!({}));
}

#[tokio::test]
async fn streaming_events_reassemble_text_and_partial_json() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(
        Reply::text("Sure — looking ☃ up")
            .with_call("lookup", r#"{"key":"v","n":[1,2]}"#)
            .with_call("bad", "{unterminated")
            .with_usage(11, 22)
            .with_chunk_chars(5),
    );
    let response = post(&fake, json!({"model": "claude-s", "stream": true})).await;
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let (raw, cut) = read_body(response).await;
    assert!(!cut);
    let events = parse_sse(&raw);
    // Every event names itself twice: in `event:` and in the data's `type`.
    for e in &events {
        assert_eq!(e.event.as_deref(), e.json()["type"].as_str());
    }
    let names: Vec<&str> = events.iter().map(|e| e.event.as_deref().unwrap()).collect();
    assert_eq!(names[0], "message_start");
    assert_eq!(names[names.len() - 2..], ["message_delta", "message_stop"]);
    assert_eq!(names.iter().filter(|n| **n == "ping").count(), 1);

    let start = events[0].json();
    assert_eq!(start["message"]["model"], "claude-s");
    assert_eq!(start["message"]["usage"]["input_tokens"], 11);
    assert_eq!(start["message"]["content"], json!([]));

    let mut blocks: Vec<(Value, String, bool)> = Vec::new();
    for e in &events {
        let d = e.json();
        match e.event.as_deref().unwrap() {
            "content_block_start" => {
                assert_eq!(d["index"].as_u64().unwrap() as usize, blocks.len());
                blocks.push((d["content_block"].clone(), String::new(), false));
            }
            "content_block_delta" => {
                let block = &mut blocks[d["index"].as_u64().unwrap() as usize];
                assert!(!block.2, "delta after stop");
                let delta = &d["delta"];
                match delta["type"].as_str().unwrap() {
                    "text_delta" => block.1.push_str(delta["text"].as_str().unwrap()),
                    "input_json_delta" => block.1.push_str(delta["partial_json"].as_str().unwrap()),
                    other => panic!("unexpected delta {other}"),
                }
            }
            "content_block_stop" => blocks[d["index"].as_u64().unwrap() as usize].2 = true,
            _ => {}
        }
    }
    assert_eq!(blocks.len(), 3);
    assert!(blocks.iter().all(|b| b.2), "every block is stopped");
    assert_eq!(blocks[0].0, json!({"type": "text", "text": ""}));
    assert_eq!(blocks[0].1, "Sure — looking ☃ up");
    assert_eq!(blocks[1].0["type"], "tool_use");
    assert_eq!(blocks[1].0["name"], "lookup");
    assert_eq!(blocks[1].0["input"], json!({}));
    assert_eq!(blocks[1].1, r#"{"key":"v","n":[1,2]}"#);
    assert_eq!(
        blocks[2].1, "{unterminated",
        "malformed arguments are streamed as they are"
    );

    let delta = events[events.len() - 2].json();
    assert_eq!(delta["delta"]["stop_reason"], "tool_use");
    assert_eq!(delta["usage"]["output_tokens"], 22);
}

#[tokio::test]
async fn error_step_uses_anthropic_error_shape() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Error {
        status: 529,
        message: "Overloaded".into(),
        retry_after: Some("30".into()),
    });
    let response = post(&fake, json!({"model": "m", "stream": true})).await;
    assert_eq!(response.status(), 529);
    assert_eq!(response.headers()["retry-after"], "30");
    let v: Value = response.json().await.unwrap();
    assert_eq!(
        v,
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
}

#[tokio::test]
async fn broken_stream_has_no_message_stop() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::BrokenStream {
        text: "half a thought".into(),
    });
    let (raw, cut) = read_body(post(&fake, json!({"model": "m", "stream": true})).await).await;
    assert!(cut);
    let events = parse_sse_prefix(&raw);
    assert_eq!(events[0].event.as_deref(), Some("message_start"));
    assert!(events.iter().all(|e| {
        let name = e.event.as_deref().unwrap();
        name != "message_stop" && name != "message_delta" && name != "content_block_stop"
    }));
    let text: String = events
        .iter()
        .filter_map(|e| e.json()["delta"]["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(text, "half a thought");
}

#[tokio::test]
async fn records_anthropic_request() {
    let fake = FakeModel::start().await.unwrap();
    let body = json!({"model": "claude-rec", "max_tokens": 5, "messages": [{"role": "user", "content": "q"}]});
    post(&fake, body.clone()).await.bytes().await.unwrap();
    let r = &fake.requests()[0];
    assert_eq!(r.format, WireFormat::Anthropic);
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.body, body);
    assert!(!r.streaming);
    assert_eq!(r.model, "claude-rec");
    assert_eq!(r.header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn models_list_has_anthropic_shape_when_asked_by_an_anthropic_client() {
    let fake = FakeModel::start().await.unwrap();
    let v: Value = client()
        .get(format!("{}/v1/models", fake.base_url()))
        .header("anthropic-version", "2023-06-01")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let data = v["data"].as_array().unwrap();
    assert!(
        data.iter()
            .all(|m| m["type"] == "model" && m["id"].is_string())
    );
    assert_eq!(v["has_more"], false);
    assert_eq!(v["first_id"], data[0]["id"]);
}
