//! The multipath table's "turn projection" row: one scripted turn (steward-testkit's
//! `pinning_turn`) through every HTTP projection — the Steward JSON reply, its SSE stream, the
//! OpenAI reply and the OpenAI stream — shows the same answer, the same calls with what they
//! touched and how they ended, and the same card. (The terminal's painter is pinned by the
//! same script in `steward/src/chat.rs`.)

use crate::support::{Fake, json_of, parse_sse, start};
use serde_json::{Value, json};
use steward_testkit::pinning::{PINNED_CARD, PINNED_TEXT, PINNED_TOOLS, pinning_turn};

fn fake() -> std::sync::Arc<Fake> {
    Fake::new(|inb| pinning_turn(&inb.conversation))
}

/// The `[tool]` lines and the approval note the OpenAI content must carry.
fn openai_lines() -> Vec<String> {
    let mut lines: Vec<String> = PINNED_TOOLS
        .iter()
        .map(|(name, ok, touched)| {
            format!(
                "[tool] {name} ({}): {touched}",
                if *ok { "ok" } else { "failed" }
            )
        })
        .collect();
    lines.push(format!("POST /api/v1/approvals/{PINNED_CARD}/confirm"));
    lines
}

#[tokio::test]
async fn every_http_projection_shows_the_pinning_turn_alike() {
    let server = start(fake()).await;

    // Steward JSON.
    let body = json_of(
        server
            .post(
                "/api/v1/messages",
                &json!({"conversation_id": "pin", "text": "go"}),
            )
            .await,
    )
    .await;
    assert_eq!(body["reply"], PINNED_TEXT);
    let tools: Vec<(String, bool, String)> = body["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["ok"].as_bool().unwrap(),
                t["touched"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, bool, String)> = PINNED_TOOLS
        .iter()
        .map(|(n, ok, t)| ((*n).to_owned(), *ok, (*t).to_owned()))
        .collect();
    assert_eq!(tools, want);
    assert_eq!(body["approvals"][0]["action_id"], PINNED_CARD);

    // Steward SSE: every event, in order, the card among them.
    let resp = crate::support::client()
        .post(server.url("/api/v1/messages"))
        .header("authorization", format!("Bearer {}", crate::support::TOKEN))
        .header("accept", "text/event-stream")
        .json(&json!({"conversation_id": "pin", "text": "go"}))
        .send()
        .await
        .unwrap();
    let events = parse_sse(&resp.text().await.unwrap());
    let names: Vec<&str> = events.iter().filter_map(|e| e.name.as_deref()).collect();
    assert_eq!(names.first(), Some(&"started"));
    assert_eq!(names.last(), Some(&"final"));
    assert_eq!(
        names.iter().filter(|n| **n == "tool_finished").count(),
        PINNED_TOOLS.len()
    );
    assert_eq!(
        names.iter().filter(|n| **n == "approval_required").count(),
        1
    );

    // OpenAI, whole.
    let chat = json!({"messages": [{"role": "user", "content": "go"}]});
    let whole = json_of(server.post("/v1/chat/completions", &chat).await).await;
    let content = whole["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(content.starts_with(PINNED_TEXT), "{content}");
    for line in openai_lines() {
        assert!(content.contains(&line), "{line} missing from {content}");
    }

    // OpenAI, streamed: the same lines and the same card, and the answer's text.
    let mut streamed_req = chat.clone();
    streamed_req["stream"] = Value::Bool(true);
    let resp = server.post("/v1/chat/completions", &streamed_req).await;
    let chunks = parse_sse(&resp.text().await.unwrap());
    let streamed: String = chunks
        .iter()
        .filter(|c| c.data != "[DONE]")
        .filter_map(|c| serde_json::from_str::<Value>(&c.data).ok())
        .filter_map(|c| {
            c["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    for line in openai_lines() {
        assert!(
            streamed.contains(&line),
            "{line} missing from the stream: {streamed}"
        );
    }
    let text_only: String = streamed
        .lines()
        .filter(|l| {
            !l.starts_with("[tool]")
                && !l.starts_with("[approval needed]")
                && !l.starts_with("Confirm:")
        })
        .collect::<Vec<_>>()
        .join("");
    assert_eq!(text_only.trim(), PINNED_TEXT, "{streamed:?}");
}
