//! Credentials in a provider's `base_url` (userinfo, query values) never reach an error's
//! text or `Debug`, whether the failure is a refused connection or a server echoing them.

use crate::fake::*;
use steward_llm::{LlmError, ModelRef, ProviderKind};
use tokio_util::sync::CancellationToken;

const PASSWORD: &str = "pw-canary-7f3a";
const QUERY_KEY: &str = "qk-canary-91c2";

fn with_secrets(base: &str) -> String {
    let rest = base.strip_prefix("http://").unwrap();
    format!("http://user:{PASSWORD}@{rest}/v1?api-key={QUERY_KEY}")
}

async fn fail(base: String) -> LlmError {
    models(vec![config("openai", ProviderKind::OpenAi, &base, false)])
        .chat(
            &ModelRef::parse("openai:m").unwrap(),
            None,
            &sample_request(),
            None,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err()
}

fn assert_clean(err: &LlmError) {
    let text = format!("{err} {err:?}");
    assert!(!text.contains(PASSWORD), "password leaked: {text}");
    assert!(!text.contains(QUERY_KEY), "query key leaked: {text}");
}

#[tokio::test]
async fn a_refused_connection_does_not_show_the_urls_credentials() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let err = fail(with_secrets(&format!("http://127.0.0.1:{port}"))).await;
    assert!(matches!(err, LlmError::Connect { .. }), "{err:?}");
    assert_clean(&err);
    // Still useful: the host and the masked parts are named.
    assert!(
        err.to_string()
            .contains(&format!("http://…@127.0.0.1:{port}/v1?api-key=…")),
        "{err}"
    );
}

#[tokio::test]
async fn an_error_body_echoing_the_credentials_is_scrubbed() {
    let echo =
        format!(r#"{{"error":{{"message":"bad api-key {QUERY_KEY} for user:{PASSWORD}"}}}}"#);
    for status in [401, 500] {
        let server = FakeServer::start(vec![Reply::status(status, &echo)]).await;
        let err = fail(with_secrets(&server.base)).await;
        assert!(
            matches!(err, LlmError::Http { status: s, .. } if s == status),
            "{err:?}"
        );
        assert_clean(&err);
        assert!(err.to_string().contains("[redacted]"), "{err}");
        // The request really carried them, so the scrubbing is what hid them.
        let sent = server.requests();
        assert!(
            sent.iter()
                .any(|r| r.query.as_deref().is_some_and(|q| q.contains(QUERY_KEY))),
            "{sent:?}"
        );
    }
}
