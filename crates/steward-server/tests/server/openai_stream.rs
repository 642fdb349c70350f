//! The OpenAI-compatible API, streaming: chunk order and shapes, usage, failures.

use crate::support::{Fake, SseEvent, TURN_ID, parse_sse, start, started};
use serde_json::{Value, json};
use steward_protocol::{FailureKind, TurnEvent};

const CHAT: &str = "/v1/chat/completions";

async fn stream(fake: std::sync::Arc<Fake>, include_usage: Option<bool>) -> Vec<SseEvent> {
    let server = start(fake).await;
    let mut body = json!({"stream": true, "messages": [{"role": "user", "content": "hi"}]});
    if let Some(u) = include_usage {
        body["stream_options"] = json!({"include_usage": u});
    }
    let resp = server.post(CHAT, &body).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    assert!(
        resp.headers()["x-steward-conversation"]
            .to_str()
            .unwrap()
            .starts_with("openai-")
    );
    parse_sse(&resp.text().await.unwrap())
}

fn chunks(events: &[SseEvent]) -> Vec<Value> {
    events
        .iter()
        .take_while(|e| e.data != "[DONE]")
        .map(|e| serde_json::from_str(&e.data).unwrap())
        .collect()
}

#[tokio::test]
async fn streams_role_then_deltas_then_stop_then_done() {
    let events = stream(Fake::standard(), None).await;
    assert!(
        events.iter().all(|e| e.name.is_none()),
        "plain data lines only"
    );
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let chunks = chunks(&events);
    assert_eq!(chunks.len() + 1, events.len(), "nothing after [DONE]");
    for c in &chunks {
        assert_eq!(c["object"], "chat.completion.chunk");
        assert_eq!(c["id"], format!("chatcmpl-{TURN_ID}"));
        assert!(c["created"].as_u64().is_some());
    }
    let deltas: Vec<_> = chunks
        .iter()
        .map(|c| c["choices"][0]["delta"].clone())
        .collect();
    // Each tool call shows, on a line of its own, what it touched.
    assert_eq!(
        deltas,
        [
            json!({"role": "assistant"}),
            json!({"content": "Hel"}),
            json!({"content": "\n[tool] clock (ok)\n"}),
            json!({"content": "\n[tool] web_fetch (failed): GET https://example.com/\n"}),
            json!({"content": "lo!"}),
            json!({}),
        ]
    );
    let finish: Vec<_> = chunks
        .iter()
        .map(|c| c["choices"][0]["finish_reason"].clone())
        .collect();
    assert_eq!(
        finish,
        [
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            json!("stop")
        ]
    );
    assert_eq!(chunks[5]["model"], "fake:model-1");
    assert!(chunks.iter().all(|c| c.get("usage").is_none()));
}

#[tokio::test]
async fn include_usage_adds_a_usage_chunk_before_done() {
    let events = stream(Fake::standard(), Some(true)).await;
    let chunks = chunks(&events);
    let usage = chunks.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(
        usage["usage"],
        json!({"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18})
    );
    assert_eq!(
        chunks[chunks.len() - 2]["choices"][0]["finish_reason"],
        "stop"
    );

    let without = chunks_of(stream(Fake::standard(), Some(false)).await);
    assert!(without.iter().all(|c| c.get("usage").is_none()));
}

fn chunks_of(events: Vec<SseEvent>) -> Vec<Value> {
    chunks(&events)
}

#[tokio::test]
async fn failure_mid_stream_is_an_error_line_then_done() {
    let events = stream(Fake::failing(FailureKind::Model), Some(true)).await;
    let n = events.len();
    assert_eq!(events[n - 1].data, "[DONE]");
    let err: Value = serde_json::from_str(&events[n - 2].data).unwrap();
    assert_eq!(
        err,
        json!({"error": {"message": "scripted Model failure", "type": "model", "code": null}})
    );
    let chunks: Vec<Value> = events[..n - 2]
        .iter()
        .map(|e| serde_json::from_str(&e.data).unwrap())
        .collect();
    let deltas: Vec<_> = chunks
        .iter()
        .map(|c| c["choices"][0]["delta"].clone())
        .collect();
    assert_eq!(
        deltas,
        [json!({"role": "assistant"}), json!({"content": "partial"})]
    );
}

#[tokio::test]
async fn stream_closing_early_is_an_error_line_then_done() {
    let fake = Fake::new(|inb| vec![started(inb), TurnEvent::TextDelta { text: "x".into() }]);
    let events = stream(fake, None).await;
    let n = events.len();
    assert_eq!(events[n - 1].data, "[DONE]");
    let err: Value = serde_json::from_str(&events[n - 2].data).unwrap();
    assert_eq!(err["error"]["type"], "internal");
}
