//! The Gemini generateContent face of the fake model, driven over real HTTP.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{client, parse_sse, parse_sse_prefix, read_body};
use serde_json::{Value, json};
use steward_testkit::{FakeModel, Reply, Step, WireFormat};

async fn post(fake: &FakeModel, model_method: &str, query: &str, body: Value) -> reqwest::Response {
    client()
        .post(format!(
            "{}/v1beta/models/{model_method}{query}",
            fake.base_url()
        ))
        .header("x-goog-api-key", "goog-test-key")
        .json(&body)
        .send()
        .await
        .unwrap()
}

fn request_body() -> Value {
    json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
}

#[tokio::test]
async fn generate_content_shape() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(
        Reply::text("Sunny.")
            .with_call("forecast", r#"{"days":2}"#)
            .with_usage(8, 4),
    );
    let response = post(&fake, "gemini-x:generateContent", "", request_body()).await;
    assert_eq!(response.status(), 200);
    let v: Value = response.json().await.unwrap();
    let candidate = &v["candidates"][0];
    assert_eq!(candidate["content"]["role"], "model");
    assert_eq!(candidate["content"]["parts"][0], json!({"text": "Sunny."}));
    assert_eq!(
        candidate["content"]["parts"][1],
        json!({"functionCall": {"name": "forecast", "args": {"days": 2}}})
    );
    assert_eq!(candidate["finishReason"], "STOP");
    assert_eq!(candidate["index"], 0);
    assert_eq!(
        v["usageMetadata"],
        json!({"promptTokenCount": 8, "candidatesTokenCount": 4, "totalTokenCount": 12})
    );
    assert_eq!(v["modelVersion"], "gemini-x");
}

#[tokio::test]
async fn sse_stream_splits_text_keeps_calls_whole_and_ends_with_usage() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(
        Reply::text("Grüße aus Köln")
            .with_call("a", r#"{"x":[1,2,3]}"#)
            .with_call("b", "")
            .with_usage(5, 15)
            .with_chunk_chars(4),
    );
    let response = post(
        &fake,
        "gemini-s:streamGenerateContent",
        "?alt=sse",
        request_body(),
    )
    .await;
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let (raw, cut) = read_body(response).await;
    assert!(!cut);
    assert!(raw.contains("\r\n\r\n"), "Gemini frames events with CRLF");
    let chunks: Vec<Value> = parse_sse(&raw).iter().map(|e| e.json()).collect();
    assert!(chunks.len() > 3);
    let mut text = String::new();
    let mut calls = Vec::new();
    for chunk in &chunks {
        for part in chunk["candidates"][0]["content"]["parts"]
            .as_array()
            .unwrap()
        {
            if let Some(t) = part["text"].as_str() {
                assert!(t.chars().count() <= 4);
                text.push_str(t);
            }
            if part.get("functionCall").is_some() {
                calls.push(part["functionCall"].clone());
            }
        }
    }
    assert_eq!(text, "Grüße aus Köln");
    assert_eq!(
        calls,
        [
            json!({"name": "a", "args": {"x": [1, 2, 3]}}),
            json!({"name": "b", "args": {}})
        ]
    );
    let (last, rest) = chunks.split_last().unwrap();
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    assert!(
        rest.iter()
            .all(|c| c["candidates"][0].get("finishReason").is_none())
    );
    assert_eq!(last["usageMetadata"]["candidatesTokenCount"], 15);
    assert_eq!(last["usageMetadata"]["totalTokenCount"], 20);
}

#[tokio::test]
async fn stream_without_alt_sse_is_one_json_array() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Reply::text("abcdefgh").with_chunk_chars(3));
    let response = post(&fake, "g:streamGenerateContent", "", request_body()).await;
    let (raw, cut) = read_body(response).await;
    assert!(!cut);
    let array: Vec<Value> = serde_json::from_str(&raw).unwrap();
    assert_eq!(array.len(), 3);
    let text: String = array
        .iter()
        .map(|c| {
            c["candidates"][0]["content"]["parts"][0]["text"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(text, "abcdefgh");
}

#[tokio::test]
async fn error_step_uses_gemini_error_shape() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Error {
        status: 429,
        message: "quota".into(),
        retry_after: Some("Wed, 21 Oct 2015 07:28:00 GMT".into()),
    });
    let response = post(&fake, "g:generateContent", "", request_body()).await;
    assert_eq!(response.status(), 429);
    assert_eq!(
        response.headers()["retry-after"],
        "Wed, 21 Oct 2015 07:28:00 GMT"
    );
    let v: Value = response.json().await.unwrap();
    assert_eq!(
        v,
        json!({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})
    );
}

#[tokio::test]
async fn broken_sse_stream_has_no_finish_reason() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::BrokenStream {
        text: "cut short".into(),
    });
    let response = post(&fake, "g:streamGenerateContent", "?alt=sse", request_body()).await;
    let (raw, cut) = read_body(response).await;
    assert!(cut);
    let chunks: Vec<Value> = parse_sse_prefix(&raw).iter().map(|e| e.json()).collect();
    assert!(
        chunks
            .iter()
            .all(|c| c["candidates"][0].get("finishReason").is_none())
    );
    let text: String = chunks
        .iter()
        .map(|c| {
            c["candidates"][0]["content"]["parts"][0]["text"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(text, "cut short");
}

#[tokio::test]
async fn records_model_from_path_and_query() {
    let fake = FakeModel::start().await.unwrap();
    read_body(
        post(
            &fake,
            "gemini-rec:streamGenerateContent",
            "?alt=sse&key=secret-q",
            request_body(),
        )
        .await,
    )
    .await;
    read_body(post(&fake, "gemini-rec2:generateContent", "", request_body()).await).await;
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let r = &requests[0];
    assert_eq!(r.format, WireFormat::Gemini);
    assert_eq!(r.path, "/v1beta/models/gemini-rec:streamGenerateContent");
    assert_eq!(r.query_param("alt"), Some("sse"));
    assert_eq!(r.model, "gemini-rec");
    assert!(r.streaming);
    assert_eq!(r.body, request_body());
    assert_eq!(r.header("x-goog-api-key"), Some("goog-test-key"));
    assert!(!format!("{r:?}").contains("secret-q"));
    assert_eq!(requests[1].model, "gemini-rec2");
    assert!(!requests[1].streaming);
}

#[tokio::test]
async fn unknown_method_is_a_gemini_404_and_consumes_nothing() {
    let fake = FakeModel::start().await.unwrap();
    let response = post(&fake, "g:embedContent", "", request_body()).await;
    assert_eq!(response.status(), 404);
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["error"]["status"], "NOT_FOUND");
    assert_eq!(fake.request_count(), 0);
}

#[tokio::test]
async fn models_list_has_gemini_shape() {
    let fake = FakeModel::start().await.unwrap();
    let v: Value = client()
        .get(format!("{}/v1beta/models", fake.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let models = v["models"].as_array().unwrap();
    assert!(!models.is_empty());
    for m in models {
        assert!(m["name"].as_str().unwrap().starts_with("models/"));
        let methods = m["supportedGenerationMethods"].as_array().unwrap();
        assert!(methods.contains(&json!("generateContent")));
    }
}
