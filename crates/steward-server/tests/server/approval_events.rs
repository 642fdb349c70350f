//! `ApprovalRequired` events on every turn surface: the JSON `approvals` list, the SSE
//! `approval_required` event, and the "[approval needed]" note in OpenAI content.

use crate::desk::{card, to_json};
use crate::support::{Fake, TOKEN, client, final_event, json_of, parse_sse, start, started};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::{Value, json};
use steward_protocol::{ActionCard, FailureKind, Inbound, TurnEvent};

fn cards() -> [ActionCard; 2] {
    [
        card("a1", "send_email to bob: \"hi\""),
        card("a2", "delete_file notes.txt"),
    ]
}

fn approval_events(inb: &Inbound) -> Vec<TurnEvent> {
    let [one, two] = cards();
    vec![
        started(inb),
        TurnEvent::TextDelta {
            text: "I need your OK.".into(),
        },
        TurnEvent::ApprovalRequired { card: one },
        TurnEvent::ApprovalRequired { card: two },
        final_event("I need your OK."),
    ]
}

fn note(c: &ActionCard) -> String {
    format!(
        "\n\n[approval needed] {}\nConfirm: POST /api/v1/approvals/{}/confirm with {{\"revision\": {}}}",
        c.text, c.action_id, c.revision
    )
}

#[tokio::test]
async fn json_reply_lists_cards_in_order() {
    let server = start(Fake::new(approval_events)).await;
    let resp = server
        .post("/api/v1/messages", &json!({"text": "email bob"}))
        .await;
    assert_eq!(resp.status(), 200);
    let body = json_of(resp).await;
    let want: Vec<Value> = cards().iter().map(to_json).collect();
    assert_eq!(body["approvals"], json!(want));
    assert_eq!(body["reply"], "I need your OK.");
}

#[tokio::test]
async fn failed_json_reply_still_lists_cards() {
    let server = start(Fake::new(|inb| {
        let [one, _] = cards();
        vec![
            started(inb),
            TurnEvent::ApprovalRequired { card: one },
            crate::support::failed(FailureKind::Budget),
        ]
    }))
    .await;
    let resp = server
        .post("/api/v1/messages", &json!({"text": "email bob"}))
        .await;
    assert_eq!(resp.status(), 504);
    let body = json_of(resp).await;
    assert_eq!(body["approvals"], json!([to_json(&cards()[0])]));
}

#[tokio::test]
async fn sse_emits_approval_required() {
    let server = start(Fake::new(approval_events)).await;
    let resp = client()
        .post(server.url("/api/v1/messages"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .body(json!({"text": "email bob"}).to_string())
        .send()
        .await
        .unwrap();
    let events = parse_sse(&resp.text().await.unwrap());
    let names: Vec<_> = events.iter().filter_map(|e| e.name.as_deref()).collect();
    assert_eq!(
        names,
        [
            "started",
            "text_delta",
            "approval_required",
            "approval_required",
            "final"
        ]
    );
    let [one, two] = cards();
    for (event, want) in events[2..4].iter().zip([one, two]) {
        let parsed: TurnEvent = serde_json::from_str(&event.data).unwrap();
        assert_eq!(parsed, TurnEvent::ApprovalRequired { card: want });
    }
}

#[tokio::test]
async fn openai_content_carries_approval_notes() {
    let server = start(Fake::new(approval_events)).await;
    let resp = server
        .post(
            "/v1/chat/completions",
            &json!({"messages": [{"role": "user", "content": "email bob"}]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let body = json_of(resp).await;
    let [one, two] = cards();
    let want = format!("I need your OK.{}{}", note(&one), note(&two));
    assert_eq!(body["choices"][0]["message"]["content"], want);
}

#[tokio::test]
async fn openai_stream_sends_approval_notes_as_content() {
    let server = start(Fake::new(approval_events)).await;
    let resp = server
        .post(
            "/v1/chat/completions",
            &json!({"stream": true, "messages": [{"role": "user", "content": "email bob"}]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let events = parse_sse(&resp.text().await.unwrap());
    let contents: Vec<String> = events
        .iter()
        .take_while(|e| e.data != "[DONE]")
        .filter_map(|e| {
            let chunk: Value = serde_json::from_str(&e.data).unwrap();
            chunk["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    let [one, two] = cards();
    assert_eq!(
        contents,
        // Each note ends its line: text streamed after a card starts on a new one.
        [
            "I need your OK.".to_owned(),
            format!("{}\n", note(&one)),
            format!("{}\n", note(&two))
        ]
    );
    assert_eq!(events.last().unwrap().data, "[DONE]");
}
