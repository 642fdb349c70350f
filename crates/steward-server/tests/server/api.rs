//! The Steward API: JSON replies, SSE streams, failure statuses.

use crate::support::{
    Fake, TOKEN, TURN_ID, client, json_of, parse_sse, standard_events, start, started,
};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::json;
use steward_protocol::{ConversationId, FailureKind, Principal, Surface, TurnEvent};

#[tokio::test]
async fn json_reply_carries_every_field() {
    let server = start(Fake::standard()).await;
    let resp = server
        .post(
            "/api/v1/messages",
            &json!({"conversation_id": "tg:42", "text": "what time is it?", "extra": 1}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let body = json_of(resp).await;
    assert_eq!(
        body,
        json!({
            "conversation_id": "tg:42",
            "turn_id": TURN_ID,
            "reply": "Hello!",
            "model": "fake:model-1",
            "usage": {"input_tokens": 11, "output_tokens": 7},
            "tool_calls": [
                {"name": "clock", "ok": true, "touched": null},
                {"name": "web_fetch", "ok": false, "touched": "GET https://example.com/"}
            ],
            "approvals": [],
        })
    );
    let seen = server.fake.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].conversation,
        ConversationId::parse("tg:42").unwrap()
    );
    assert_eq!(seen[0].text, "what time is it?");
    assert_eq!(seen[0].surface, Surface::Http);
    assert_eq!(
        seen[0].principal,
        Principal::authenticated(crate::support::owner_id())
    );
}

#[tokio::test]
async fn missing_conversation_gets_a_fresh_api_id() {
    let server = start(Fake::standard()).await;
    let a = json_of(
        server
            .post("/api/v1/messages", &json!({"text": "one"}))
            .await,
    )
    .await;
    let b = json_of(
        server
            .post(
                "/api/v1/messages",
                &json!({"text": "two", "conversation_id": null}),
            )
            .await,
    )
    .await;
    let (a, b) = (
        a["conversation_id"].as_str().unwrap(),
        b["conversation_id"].as_str().unwrap(),
    );
    assert!(a.starts_with("api-") && b.starts_with("api-"), "{a} {b}");
    assert_ne!(a, b);
    assert!(ConversationId::parse(a).is_ok());
    assert_eq!(server.fake.seen()[0].conversation.as_str(), a);
}

#[tokio::test]
async fn sse_streams_every_event_in_order() {
    let server = start(Fake::standard()).await;
    let resp = client()
        .post(server.url("/api/v1/messages"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .body(json!({"conversation_id": "c1", "text": "hi"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()[CONTENT_TYPE], "text/event-stream");
    let events = parse_sse(&resp.text().await.unwrap());
    let inbound = &server.fake.seen()[0];
    let expected = standard_events(inbound);
    assert_eq!(events.len(), expected.len(), "{events:?}");
    for (got, want) in events.iter().zip(&expected) {
        assert_eq!(got.name.as_deref(), Some(want.name()));
        let parsed: TurnEvent = serde_json::from_str(&got.data).unwrap();
        assert_eq!(&parsed, want);
    }
}

#[tokio::test]
async fn sse_ends_after_a_failure() {
    let server = start(Fake::failing(FailureKind::Budget)).await;
    let resp = client()
        .post(server.url("/api/v1/messages"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .body(json!({"text": "hi"}).to_string())
        .send()
        .await
        .unwrap();
    let events = parse_sse(&resp.text().await.unwrap());
    let names: Vec<_> = events.iter().map(|e| e.name.clone().unwrap()).collect();
    assert_eq!(names, ["started", "text_delta", "failed"]);
}

#[tokio::test]
async fn sse_reports_a_stream_that_closes_early() {
    let server = start(Fake::new(|inb| vec![started(inb)])).await;
    let resp = client()
        .post(server.url("/api/v1/messages"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .body(json!({"text": "hi"}).to_string())
        .send()
        .await
        .unwrap();
    let events = parse_sse(&resp.text().await.unwrap());
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1].name.as_deref(), Some("error"));
    let data: serde_json::Value = serde_json::from_str(&events[1].data).unwrap();
    assert_eq!(data["error"]["kind"], "internal");
}

#[tokio::test]
async fn failure_kinds_map_to_statuses() {
    let cases = [
        (FailureKind::NoModel, 503, "no_model"),
        (FailureKind::Model, 502, "model"),
        (FailureKind::ModelRejected, 422, "model_rejected"),
        (FailureKind::ModelConfig, 503, "model_config"),
        (FailureKind::Budget, 504, "budget"),
        (FailureKind::Store, 500, "store"),
        (FailureKind::Shutdown, 503, "shutdown"),
        (FailureKind::Input, 400, "input"),
        (FailureKind::Cancelled, 409, "cancelled"),
    ];
    for (kind, status, name) in cases {
        let server = start(Fake::failing(kind)).await;
        let resp = server
            .post(
                "/api/v1/messages",
                &json!({"conversation_id": "c9", "text": "hi"}),
            )
            .await;
        assert_eq!(resp.status(), status, "{kind:?}");
        let retryable = matches!(kind, FailureKind::Model | FailureKind::Shutdown);
        assert_eq!(
            resp.headers()["x-should-retry"],
            if retryable { "true" } else { "false" },
            "{kind:?}"
        );
        let body = json_of(resp).await;
        assert_eq!(body["conversation_id"], "c9");
        assert_eq!(body["turn_id"], TURN_ID);
        assert_eq!(body["error"]["kind"], name);
        assert_eq!(
            body["error"]["message"],
            format!("scripted {kind:?} failure")
        );
        assert_eq!(body["error"]["retryable"], retryable);
    }
}

#[tokio::test]
async fn stream_closing_without_terminal_event_is_500() {
    let server = start(Fake::new(|inb| {
        vec![
            started(inb),
            TurnEvent::TextDelta {
                text: "half".into(),
            },
        ]
    }))
    .await;
    let resp = server
        .post("/api/v1/messages", &json!({"text": "hi"}))
        .await;
    assert_eq!(resp.status(), 500);
    let body = json_of(resp).await;
    assert_eq!(body["error"]["kind"], "internal");
    assert_eq!(body["turn_id"], TURN_ID);
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
}
