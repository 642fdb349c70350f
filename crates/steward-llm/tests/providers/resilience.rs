//! `Models::chat` retry, Retry-After, fallback, cancellation and secrecy.

use crate::fake::*;
use serde_json::json;
use std::time::Duration;
use steward_llm::{LlmError, ModelRef, Models, ProviderKind, RetryPolicy};
use tokio_util::sync::CancellationToken;

fn ok_text(text: &str) -> Reply {
    Reply::ok(json!({
        "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1}
    }))
}

fn openai(server: &FakeServer, stream: bool) -> Models {
    models(vec![config(
        "openai",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        stream,
    )])
}

fn primary() -> ModelRef {
    ModelRef::parse("openai:main-model").unwrap()
}

#[tokio::test]
async fn rate_limited_twice_then_success_after_exactly_three_requests() {
    let server = FakeServer::start(vec![
        Reply::status(429, r#"{"error":{"message":"slow down"}}"#),
        Reply::status(429, r#"{"error":{"message":"slow down"}}"#),
        ok_text("finally"),
    ])
    .await;
    let resp = openai(&server, false)
        .chat(
            &primary(),
            None,
            &sample_request(),
            None,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(resp.text, "finally");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let server = FakeServer::start(vec![
        Reply::Json {
            status: 429,
            body: "{}".into(),
            headers: vec![("retry-after", "1".into())],
        },
        ok_text("ok"),
    ])
    .await;
    openai(&server, false)
        .chat(
            &primary(),
            None,
            &sample_request(),
            None,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let gap = reqs[1].at.duration_since(reqs[0].at);
    // Backoff alone is at most 20 ms here, so only Retry-After explains a wait this long.
    assert!(gap >= Duration::from_millis(950), "waited only {gap:?}");
}

#[tokio::test]
async fn always_failing_primary_falls_back_to_the_fallback_model() {
    let bad = FakeServer::start(vec![Reply::status(500, "upstream exploded")]).await;
    let good = FakeServer::start(vec![ok_text("from the backup")]).await;
    let m = models(vec![
        config(
            "openai",
            ProviderKind::OpenAi,
            &format!("{}/v1", bad.base),
            false,
        ),
        config(
            "backup",
            ProviderKind::OpenAi,
            &format!("{}/v1", good.base),
            false,
        ),
    ]);
    let fallback = ModelRef::parse("backup:small-model").unwrap();
    let resp = m
        .chat(
            &primary(),
            Some(&fallback),
            &sample_request(),
            None,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(resp.text, "from the backup");
    assert_eq!(resp.model, "backup:small-model");
    assert_eq!(
        bad.requests().len(),
        3,
        "primary gets 1 + max_retries attempts"
    );
    let asked = good.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].body["model"], "small-model");
}

#[tokio::test]
async fn connection_refused_is_a_retryable_connect_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let m = models(vec![config(
        "openai",
        ProviderKind::OpenAi,
        &format!("http://127.0.0.1:{port}/v1"),
        false,
    )]);
    let err = m
        .chat(
            &primary(),
            None,
            &sample_request(),
            None,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Connect { .. }), "{err:?}");
    assert!(err.is_retryable());
    assert!(
        err.to_string()
            .contains("could not reach model provider openai"),
        "{err}"
    );
}

#[tokio::test]
async fn unauthorized_is_not_retried_names_the_env_var_and_hides_the_key() {
    // The error body echoes the key, as some servers do.
    let echo = format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#);
    let cases = [
        (ProviderKind::OpenAi, "openai", "/v1", "OPENAI_API_KEY"),
        (
            ProviderKind::Anthropic,
            "anthropic",
            "",
            "ANTHROPIC_API_KEY",
        ),
        (ProviderKind::Gemini, "gemini", "", "GEMINI_API_KEY"),
    ];
    for (kind, name, suffix, var) in cases {
        let server = FakeServer::start(vec![Reply::status(401, &echo)]).await;
        let m = models(vec![config(
            name,
            kind,
            &format!("{}{suffix}", server.base),
            false,
        )]);
        let model = ModelRef::parse(&format!("{name}:some-model")).unwrap();
        let err = m
            .chat(
                &model,
                None,
                &sample_request(),
                None,
                &CancellationToken::new(),
            )
            .await
            .unwrap_err();
        assert_eq!(
            server.requests().len(),
            1,
            "{name}: 401 must not be retried"
        );
        assert!(matches!(err, LlmError::Http { status: 401, .. }), "{err:?}");
        assert!(!err.is_retryable());
        let shown = err.to_string();
        assert!(shown.contains(var), "{shown}");
        assert!(shown.contains("Incorrect API key provided"), "{shown}");
        assert!(!shown.contains(KEY), "key leaked in Display: {shown}");
        assert!(!format!("{err:?}").contains(KEY), "key leaked in Debug");
        assert!(
            !format!("{m:?}").contains(KEY),
            "key leaked in Models Debug"
        );
    }
}

#[tokio::test]
async fn cancellation_during_a_slow_response_returns_cancelled() {
    // The server would answer successfully after 60 s; only cancellation can end it sooner
    // with an error, and the request timeout (20 s) would give Timeout, not Cancelled.
    let server = FakeServer::start(vec![Reply::Slow(
        Duration::from_secs(60),
        json!({"choices": [{"message": {"content": "late"}, "finish_reason": "stop"}]}).to_string(),
    )])
    .await;
    let m = openai(&server, false);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let err = m
        .chat(&primary(), None, &sample_request(), None, &cancel)
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Cancelled), "{err:?}");
}

#[tokio::test]
async fn cancellation_mid_stream_returns_cancelled_and_skips_fallback() {
    let server = FakeServer::start(vec![Reply::Sse {
        pieces: vec![format!(
            "data: {}\n\n",
            json!({"choices": [{"delta": {"content": "partial"}}]})
        )],
        then_break: false,
        then_hang: true,
    }])
    .await;
    let backup = FakeServer::start(vec![ok_text("backup")]).await;
    let m = models(vec![
        config(
            "openai",
            ProviderKind::OpenAi,
            &format!("{}/v1", server.base),
            true,
        ),
        config(
            "backup",
            ProviderKind::OpenAi,
            &format!("{}/v1", backup.base),
            true,
        ),
    ]);
    let cancel = CancellationToken::new();
    let sink = |_: &str| cancel.cancel();
    let fallback = ModelRef::parse("backup:x").unwrap();
    let err = m
        .chat(
            &primary(),
            Some(&fallback),
            &sample_request(),
            Some(&sink),
            &cancel,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Cancelled), "{err:?}");
    assert!(backup.requests().is_empty());
}

#[tokio::test]
async fn stream_broken_after_text_is_an_error_and_not_retried() {
    let server = FakeServer::start(vec![
        Reply::Sse {
            pieces: vec![format!(
                "data: {}\n\n",
                json!({"choices": [{"delta": {"content": "Half an ans"}}]})
            )],
            then_break: true,
            then_hang: false,
        },
        ok_text("a second, different answer"),
    ])
    .await;
    let pieces = Pieces::default();
    let sink = |s: &str| pieces.push(s);
    let err = openai(&server, true)
        .chat(
            &primary(),
            None,
            &sample_request(),
            Some(&sink),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Decode { .. }), "{err:?}");
    assert!(!err.is_retryable());
    assert_eq!(pieces.all(), vec!["Half an ans"]);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn stream_broken_before_any_text_is_retried() {
    let server = FakeServer::start(vec![
        Reply::Sse {
            pieces: vec![": warming up\n\n".into()],
            then_break: true,
            then_hang: false,
        },
        Reply::sse_data(&[
            json!({"choices": [{"delta": {"content": "whole"}, "finish_reason": "stop"}]}),
            json!("[DONE]"),
        ]),
    ])
    .await;
    let pieces = Pieces::default();
    let sink = |s: &str| pieces.push(s);
    let resp = openai(&server, true)
        .chat(
            &primary(),
            None,
            &sample_request(),
            Some(&sink),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(resp.text, "whole");
    assert_eq!(pieces.all(), vec!["whole"]);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn unknown_provider_is_a_config_error_naming_known_ones() {
    let m = Models::new(
        vec![
            config(
                "openai",
                ProviderKind::OpenAi,
                "http://127.0.0.1:9/v1",
                true,
            ),
            config(
                "anthropic",
                ProviderKind::Anthropic,
                "http://127.0.0.1:9",
                true,
            ),
        ],
        RetryPolicy::default(),
    )
    .unwrap();
    assert_eq!(m.provider_names(), vec!["anthropic", "openai"]);
    m.check(&ModelRef::parse("openai:x").unwrap()).unwrap();
    let err = m.check(&ModelRef::parse("mistral:x").unwrap()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, LlmError::Config(_)));
    assert!(
        msg.contains("mistral") && msg.contains("anthropic, openai"),
        "{msg}"
    );
    let dup = Models::new(
        vec![
            config(
                "openai",
                ProviderKind::OpenAi,
                "http://127.0.0.1:9/v1",
                true,
            ),
            config(
                "openai",
                ProviderKind::OpenAi,
                "http://127.0.0.1:9/v1",
                true,
            ),
        ],
        RetryPolicy::default(),
    );
    assert!(matches!(dup, Err(LlmError::Config(_))));
}

#[tokio::test]
async fn request_timeout_is_a_retryable_timeout_error() {
    let server = FakeServer::start(vec![Reply::Slow(
        Duration::from_secs(60),
        json!({"choices": [{"message": {"content": "late"}, "finish_reason": "stop"}]}).to_string(),
    )])
    .await;
    let mut cfg = config(
        "openai",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        false,
    );
    cfg.request_timeout = Duration::from_millis(150);
    let err = models(vec![cfg])
        .chat(
            &primary(),
            None,
            &sample_request(),
            None,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Timeout { .. }), "{err:?}");
    assert!(err.is_retryable());
    assert_eq!(server.requests().len(), 3, "timeouts are retried");
}

#[tokio::test]
async fn probes_use_each_formats_models_endpoint_and_auth_header() {
    let cases = [
        (
            ProviderKind::Anthropic,
            "anthropic",
            "/v1/models",
            "x-api-key",
        ),
        (
            ProviderKind::Gemini,
            "gemini",
            "/v1beta/models",
            "x-goog-api-key",
        ),
    ];
    for (kind, name, path, header) in cases {
        let server = FakeServer::start(vec![Reply::ok(json!({"models": []}))]).await;
        let m = models(vec![config(name, kind, &server.base, true)]);
        m.probe(name).await.unwrap();
        let r = &server.requests()[0];
        assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", path));
        assert_eq!(r.header(header).as_deref(), Some(KEY));
        assert!(r.query.is_none());
    }
}

#[tokio::test]
async fn retryable_error_after_text_is_still_not_retried_nor_falls_back() {
    // A 503 is retryable in itself; what forbids the retry is that text was already shown.
    let server = FakeServer::start(vec![
        Reply::sse_data(&[
            json!({"choices": [{"delta": {"content": "Partial"}}]}),
            json!({"error": {"code": 503, "message": "upstream overloaded"}}),
        ]),
        ok_text("second answer"),
    ])
    .await;
    let backup = FakeServer::start(vec![ok_text("backup")]).await;
    let m = models(vec![
        config(
            "openai",
            ProviderKind::OpenAi,
            &format!("{}/v1", server.base),
            true,
        ),
        config(
            "backup",
            ProviderKind::OpenAi,
            &format!("{}/v1", backup.base),
            true,
        ),
    ]);
    let pieces = Pieces::default();
    let sink = |s: &str| pieces.push(s);
    let fallback = ModelRef::parse("backup:x").unwrap();
    let err = m
        .chat(
            &primary(),
            Some(&fallback),
            &sample_request(),
            Some(&sink),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Http { status: 503, .. }), "{err:?}");
    assert!(err.is_retryable());
    assert!(err.to_string().contains("upstream overloaded"), "{err}");
    assert_eq!(pieces.all(), vec!["Partial"]);
    assert_eq!(server.requests().len(), 1);
    assert!(backup.requests().is_empty());
}
