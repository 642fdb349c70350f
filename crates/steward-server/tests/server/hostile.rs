//! Hostile and malformed input: bad JSON, wrong types, sizes, content types, ids, text.

use crate::support::{Fake, TOKEN, json_of, start, start_with};
use reqwest::header::AUTHORIZATION;
use serde_json::json;
use steward_server::MAX_TEXT_BYTES;

const MESSAGES: &str = "/api/v1/messages";

#[tokio::test]
async fn malformed_json_is_400_with_a_reason() {
    let server = start(Fake::standard()).await;
    for raw in [
        "{\"text\": \"hi\"",
        "not json",
        "",
        "{\"text\": \"hi\"} trailing",
    ] {
        let resp = server
            .post_raw(MESSAGES, "application/json", raw.to_owned())
            .await;
        assert_eq!(resp.status(), 400, "{raw:?}");
        let err = json_of(resp).await;
        assert_eq!(err["error"]["kind"], "bad_request");
        let msg = err["error"]["message"].as_str().unwrap();
        assert!(msg.starts_with("malformed JSON"), "{msg}");
    }
    assert!(server.fake.seen().is_empty());
}

#[tokio::test]
async fn wrong_shape_is_422_with_the_serde_message() {
    let server = start(Fake::standard()).await;
    for (body, needle) in [
        (json!({"conversation_id": "c"}), "missing field `text`"),
        (json!({"text": 5}), "invalid type"),
        (json!([1, 2]), "invalid type"),
    ] {
        let resp = server.post(MESSAGES, &body).await;
        assert_eq!(resp.status(), 422, "{body}");
        let msg = json_of(resp).await["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.contains(needle), "{msg}");
    }
    assert!(server.fake.seen().is_empty());
}

/// A body of exactly `len` bytes that is valid for the messages route.
fn padded_body(len: usize) -> String {
    let skeleton = json!({"text": "hi", "pad": ""}).to_string();
    let pad = "p".repeat(len - skeleton.len());
    let body = json!({"text": "hi", "pad": pad}).to_string();
    assert_eq!(body.len(), len);
    body
}

#[tokio::test]
async fn body_limit_is_exact_and_answers_json() {
    let mut cfg = crate::support::config();
    cfg.max_body_bytes = 4096;
    let server = start_with(Fake::standard(), cfg).await;

    let resp = server
        .post_raw(MESSAGES, "application/json", padded_body(4096))
        .await;
    assert_eq!(resp.status(), 200, "a body of exactly the limit is fine");

    let resp = server
        .post_raw(MESSAGES, "application/json", padded_body(4097))
        .await;
    assert_eq!(resp.status(), 413);
    assert_eq!(json_of(resp).await["error"]["kind"], "payload_too_large");

    let resp = server
        .post_raw(
            "/v1/chat/completions",
            "application/json",
            padded_body(4097),
        )
        .await;
    assert_eq!(resp.status(), 413);
    assert_eq!(json_of(resp).await["error"]["type"], "payload_too_large");
    assert_eq!(server.fake.seen().len(), 1);
}

#[tokio::test]
async fn wrong_or_missing_content_type_is_415() {
    let server = start(Fake::standard()).await;
    let body = json!({"text": "hi"}).to_string();
    for ct in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/jsonp",
    ] {
        let resp = server.post_raw(MESSAGES, ct, body.clone()).await;
        assert_eq!(resp.status(), 415, "{ct}");
        assert_eq!(
            json_of(resp).await["error"]["kind"],
            "unsupported_media_type"
        );
    }
    let resp = crate::support::client()
        .post(server.url(MESSAGES))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 415);
    let resp = server
        .post_raw(MESSAGES, "application/json; charset=utf-8", body)
        .await;
    assert_eq!(resp.status(), 200, "parameters on the JSON type are fine");
}

pub fn hostile_ids() -> Vec<String> {
    vec![
        "../x".into(),
        "x".repeat(200),
        String::new(),
        "a\u{202e}b".into(),
        "a b".into(),
        "a\nb".into(),
    ]
}

#[tokio::test]
async fn invalid_conversation_ids_are_400_and_not_submitted() {
    let server = start(Fake::standard()).await;
    for id in hostile_ids() {
        let resp = server
            .post(MESSAGES, &json!({"conversation_id": id, "text": "hi"}))
            .await;
        assert_eq!(resp.status(), 400, "{id:?}");
        let msg = json_of(resp).await["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            msg.starts_with("invalid conversation_id: conversation id"),
            "{msg}"
        );
    }
    assert!(server.fake.seen().is_empty());
}

#[tokio::test]
async fn empty_text_is_400_and_oversized_text_is_413() {
    let server = start(Fake::standard()).await;
    for text in ["", "   ", "\n\t "] {
        let resp = server.post(MESSAGES, &json!({"text": text})).await;
        assert_eq!(resp.status(), 400, "{text:?}");
        assert_eq!(json_of(resp).await["error"]["kind"], "bad_request");
    }
    let resp = server
        .post(MESSAGES, &json!({"text": "a".repeat(MAX_TEXT_BYTES + 1)}))
        .await;
    assert_eq!(resp.status(), 413);
    assert!(server.fake.seen().is_empty());

    let resp = server
        .post(MESSAGES, &json!({"text": "a".repeat(MAX_TEXT_BYTES)}))
        .await;
    assert_eq!(resp.status(), 200, "exactly the text limit is fine");
}
