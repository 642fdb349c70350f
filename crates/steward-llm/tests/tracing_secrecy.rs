//! Tracing output of model calls: spans carry provider, model, attempt and status, and
//! never the key or message contents. Its own test binary, because tracing caches
//! per-callsite interest process-wide and tests on other threads without a subscriber
//! would make the span look disabled here.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
#[path = "providers/fake.rs"]
mod fake;

use fake::*;
use serde_json::json;
use steward_llm::{ModelRef, ProviderKind};
use tokio_util::sync::CancellationToken;

/// Captures formatted tracing output.
#[derive(Clone, Default)]
struct Capture(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn model_call_spans_record_attempts_and_status_but_never_key_or_content() {
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let echo = format!(r#"{{"error":{{"message":"overloaded, key {KEY}"}}}}"#);
    let server = FakeServer::start(vec![
        Reply::status(503, &echo),
        Reply::ok(json!({"choices": [{"message": {"content": "fine"}, "finish_reason": "stop"}]})),
    ])
    .await;
    models(vec![config(
        "openai",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        false,
    )])
    .chat(
        &ModelRef::parse("openai:main-model").unwrap(),
        None,
        &sample_request(),
        None,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    let log = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("model_call"), "{log}");
    assert!(
        log.contains("attempt=1") && log.contains("attempt=2"),
        "{log}"
    );
    assert!(
        log.contains("status=503") && log.contains("status=200"),
        "{log}"
    );
    assert!(
        log.contains("provider=openai") && log.contains("model=main-model"),
        "{log}"
    );
    assert!(!log.contains(KEY), "key in logs: {log}");
    assert!(
        !log.contains("What time is it?"),
        "message content in logs: {log}"
    );
}
