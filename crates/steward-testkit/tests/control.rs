//! The control routes (`/_fake/*`) a test in another language scripts the fake model with:
//! queued steps are answered in order in every format, the default and reset work, recorded
//! requests come back without credentials, a paced reply arrives piece by piece, and
//! malformed, oversized and hostile scripts are refused without queueing anything.

use crate::common;

use std::time::{Duration, Instant};

use common::{client, parse_sse};
use serde_json::{Value, json};
use steward_testkit::FakeModel;

async fn control(
    fake: &FakeModel,
    method: reqwest::Method,
    path: &str,
    body: &str,
) -> (u16, Value) {
    let resp = client()
        .request(method, format!("{}{path}", fake.base_url()))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let value = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap()
    };
    (status, value)
}

async fn push(fake: &FakeModel, steps: Value) -> (u16, Value) {
    let body = json!({ "steps": steps }).to_string();
    control(fake, reqwest::Method::POST, "/_fake/steps", &body).await
}

async fn openai(fake: &FakeModel, body: Value) -> reqwest::Response {
    client()
        .post(format!("{}/chat/completions", fake.openai_base_url()))
        .header("authorization", "Bearer sk-secret-key")
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn openai_text(fake: &FakeModel) -> String {
    let v: Value = openai(fake, json!({"model": "m", "messages": []}))
        .await
        .json()
        .await
        .unwrap();
    v["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn queued_steps_answer_in_order_then_the_default() {
    let fake = FakeModel::start().await.unwrap();
    let (status, body) = push(
        &fake,
        json!([
            {"reply": {"text": "first"}},
            {"error": {"status": 429, "message": "slow down", "retry_after": "7"}},
            {"reply": {"tool_calls": [{"name": "db_query", "arguments": "{\"sql\":\"SELECT 1\"}"}]}}
        ]),
    )
    .await;
    assert_eq!((status, body), (200, json!({"queued": 3})));
    assert_eq!(openai_text(&fake).await, "first");
    let limited = openai(&fake, json!({"model": "m"})).await;
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "7");
    let v: Value = openai(&fake, json!({"model": "m"}))
        .await
        .json()
        .await
        .unwrap();
    let call = &v["choices"][0]["message"]["tool_calls"][0]["function"];
    assert_eq!(call["name"], "db_query");
    assert_eq!(call["arguments"], "{\"sql\":\"SELECT 1\"}");
    assert_eq!(openai_text(&fake).await, "ok", "then the initial default");

    let (status, _) = control(
        &fake,
        reqwest::Method::PUT,
        "/_fake/default",
        r#"{"text": "fallback"}"#,
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(openai_text(&fake).await, "fallback");
    assert_eq!(openai_text(&fake).await, "fallback", "never consumed");
}

#[tokio::test]
async fn recorded_requests_come_back_without_credentials_and_reset_clears_them() {
    let fake = FakeModel::start().await.unwrap();
    openai(
        &fake,
        json!({"model": "gpt-x", "messages": [{"role": "user", "content": "hello"}]}),
    )
    .await;
    let gemini = client()
        .post(format!(
            "{}/v1beta/models/g:generateContent?key=goog-secret&alt=json",
            fake.base_url()
        ))
        .json(&json!({"contents": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(gemini.status(), 200);
    let (status, body) = control(&fake, reqwest::Method::GET, "/_fake/requests", "").await;
    assert_eq!(status, 200);
    let list = body["requests"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["format"], "openai");
    assert_eq!(list[0]["model"], "gpt-x");
    assert_eq!(list[0]["body"]["messages"][0]["content"], "hello");
    assert_eq!(list[1]["format"], "gemini");
    assert_eq!(list[1]["query"], "key=<redacted>&alt=json");
    let text = body.to_string();
    assert!(
        !text.contains("sk-secret-key") && !text.contains("goog-secret"),
        "{text}"
    );

    push(&fake, json!([{"reply": {"text": "queued before reset"}}])).await;
    let (status, _) = control(&fake, reqwest::Method::POST, "/_fake/reset", "").await;
    assert_eq!(status, 204);
    assert_eq!(fake.request_count(), 0);
    assert_eq!(openai_text(&fake).await, "ok", "the queue was emptied");
}

#[tokio::test]
async fn a_paced_reply_streams_piece_by_piece() {
    let fake = FakeModel::start().await.unwrap();
    push(
        &fake,
        json!([{"reply": {"text": "abcdef", "chunk_chars": 2, "chunk_delay_ms": 120}}]),
    )
    .await;
    let started = Instant::now();
    let mut resp = openai(&fake, json!({"model": "m", "stream": true})).await;
    let mut arrivals = Vec::new();
    let mut raw = String::new();
    while let Some(chunk) = resp.chunk().await.unwrap() {
        arrivals.push(started.elapsed());
        raw.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    let text: String = parse_sse(&raw)
        .iter()
        .filter(|e| e.data != "[DONE]")
        .filter_map(|e| {
            e.json()["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(text, "abcdef");
    // Role, three text pieces, finish, [DONE]: six writes 120 ms apart.
    assert!(arrivals.len() >= 4, "{arrivals:?}");
    let spread = *arrivals.last().unwrap() - arrivals[0];
    assert!(spread >= Duration::from_millis(400), "{arrivals:?}");
}

#[tokio::test]
async fn malformed_oversized_and_hostile_scripts_queue_nothing() {
    let fake = FakeModel::start().await.unwrap();
    let post = reqwest::Method::POST;
    for (body, want) in [
        ("not json", 400),
        ("{\"steps\": [", 400),
        ("[]", 422),
        (r#"{"steps": [{"reply": {"txt": "typo"}}]}"#, 422),
        (r#"{"steps": [{"launch": "missiles"}]}"#, 422),
        (r#"{"steps": [{"reply": {"text": 5}}]}"#, 422),
        (
            r#"{"steps": [{"delay": {"ms": 600001, "then": "hang"}}]}"#,
            422,
        ),
        (r#"{"steps": [{"reply": {"chunk_delay_ms": 10001}}]}"#, 422),
        (
            r#"{"steps": [{"error": {"status": 7, "message": "x"}}]}"#,
            422,
        ),
        (
            r#"{"steps": [{"reply": {"text": "ok"}}], "admin": true}"#,
            422,
        ),
    ] {
        let (status, v) = control(&fake, post.clone(), "/_fake/steps", body).await;
        assert_eq!(status, want, "{body}: {v}");
        assert!(v["error"]["message"].is_string(), "{v}");
    }
    // Nested past serde's recursion limit: refused, not a stack overflow.
    let deep = format!(
        "{{\"steps\": [{}\"hang\"{}]}}",
        "{\"delay\": {\"ms\": 1, \"then\": ".repeat(200),
        "}}".repeat(200)
    );
    let (status, _) = control(&fake, post.clone(), "/_fake/steps", &deep).await;
    assert!(status == 400 || status == 422, "{status}");
    let many = json!({"steps": vec![json!("hang"); 1001]}).to_string();
    let (status, _) = control(&fake, post.clone(), "/_fake/steps", &many).await;
    assert_eq!(status, 413);
    let huge = format!(
        "{{\"steps\": [{{\"reply\": {{\"text\": \"{}\"}}}}]}}",
        "x".repeat(1024 * 1024)
    );
    let (status, _) = control(&fake, post.clone(), "/_fake/steps", &huge).await;
    assert_eq!(status, 413);
    let (status, _) = control(&fake, reqwest::Method::PUT, "/_fake/default", "{\"x\":1}").await;
    assert_eq!(status, 422);
    // Nothing of the above was queued: the next request gets the default.
    assert_eq!(openai_text(&fake).await, "ok");
    let (status, _) = control(&fake, reqwest::Method::GET, "/_fake/steps", "").await;
    assert_eq!(status, 405);
}
