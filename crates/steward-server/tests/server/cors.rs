//! CORS: none by default; configured origins get the headers (preflights answered before
//! auth), other origins none.

use crate::support::{Fake, TOKEN, client, start, start_with};
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, ORIGIN};
use steward_server::CorsOrigins;

const ALLOWED: &str = "https://chat.example.com";

async fn preflight(server: &crate::support::Server, origin: &str) -> reqwest::Response {
    client()
        .request(Method::OPTIONS, server.url("/v1/chat/completions"))
        .header(ORIGIN, origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type, x-stainless-retry-count",
        )
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn no_origin_is_allowed_by_default() {
    let server = start(Fake::standard()).await;
    let resp = preflight(&server, ALLOWED).await;
    assert!(resp.headers().get("access-control-allow-origin").is_none());
    let resp = client()
        .get(server.url("/v1/models"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(ORIGIN, ALLOWED)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn a_configured_origin_may_call_and_others_may_not() {
    let mut cfg = crate::support::config();
    cfg.cors_origins = CorsOrigins::parse(&format!("{ALLOWED}, http://localhost:3000")).unwrap();
    let server = start_with(Fake::standard(), cfg).await;

    // The preflight carries no token and is answered anyway.
    let resp = preflight(&server, ALLOWED).await;
    assert!(resp.status().is_success(), "{}", resp.status());
    let h = resp.headers();
    assert_eq!(h["access-control-allow-origin"], ALLOWED);
    let allowed_headers = h["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(
        allowed_headers.contains("authorization"),
        "{allowed_headers}"
    );
    assert!(
        h["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );

    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "application/json")
        .header(ORIGIN, ALLOWED)
        .body(r#"{"messages":[{"role":"user","content":"hi"}]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["access-control-allow-origin"], ALLOWED);
    let exposed = resp.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(exposed.contains("x-steward-conversation"), "{exposed}");

    // A 401 is readable by the allowed page too (it must learn its token is wrong).
    let resp = client()
        .get(server.url("/v1/models"))
        .header(ORIGIN, ALLOWED)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    assert_eq!(resp.headers()["access-control-allow-origin"], ALLOWED);

    // Another origin, and a look-alike: no CORS header at all.
    for other in [
        "https://evil.example",
        "https://chat.example.com.evil.example",
        "null",
    ] {
        let resp = preflight(&server, other).await;
        assert!(
            resp.headers().get("access-control-allow-origin").is_none(),
            "{other} must not be allowed"
        );
    }
    assert_eq!(server.fake.seen().len(), 1, "preflights submit nothing");
}
