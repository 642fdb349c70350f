//! Security headers on every kind of response: an answer, a refusal without the token, an
//! unknown route, a wrong method, a body too big, a CORS preflight.

use crate::support::{Fake, TOKEN, client, start, start_with};
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, ORIGIN};
use steward_server::{CONTENT_SECURITY_POLICY_VALUE, CorsOrigins};

fn assert_secured(resp: &reqwest::Response, what: &str) {
    let h = resp.headers();
    assert_eq!(
        h.get("x-content-type-options").map(|v| v.to_str().unwrap()),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(
        h.get("referrer-policy").map(|v| v.to_str().unwrap()),
        Some("no-referrer"),
        "{what}"
    );
    let csp = h
        .get("content-security-policy")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    assert_eq!(csp, CONTENT_SECURITY_POLICY_VALUE, "{what}");
}

#[test]
fn the_policy_allows_no_inline_script_remote_load_or_framing() {
    let csp = CONTENT_SECURITY_POLICY_VALUE;
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} missing from {csp}");
    }
    for loose in ["'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:"] {
        assert!(!csp.contains(loose), "{loose} in {csp}");
    }
}

#[tokio::test]
async fn every_kind_of_response_carries_the_security_headers() {
    let server = start(Fake::standard()).await;
    let c = client();
    let bearer = format!("Bearer {TOKEN}");
    let ok = c.get(server.url("/health")).send().await.unwrap();
    assert_eq!(ok.status(), 200);
    assert_secured(&ok, "health");
    let models = c
        .get(server.url("/v1/models"))
        .header(AUTHORIZATION, &bearer)
        .send()
        .await
        .unwrap();
    assert_eq!(models.status(), 200);
    assert_secured(&models, "an API answer");
    let refused = c.get(server.url("/api/v1/approvals")).send().await.unwrap();
    assert_eq!(refused.status(), 401);
    assert_secured(&refused, "a 401");
    let unknown = c
        .get(server.url("/no/such/route"))
        .header(AUTHORIZATION, &bearer)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert_secured(&unknown, "a 404");
    let wrong = c
        .delete(server.url("/api/v1/messages"))
        .header(AUTHORIZATION, &bearer)
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 405);
    assert_secured(&wrong, "a 405");
    let big = c
        .post(server.url("/api/v1/approvals/x/cancel"))
        .header(AUTHORIZATION, &bearer)
        .header(CONTENT_TYPE, "application/json")
        .body(vec![b' '; 4 * 1024 * 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(big.status(), 413);
    assert_secured(&big, "a 413");
}

#[tokio::test]
async fn a_cors_preflight_carries_them_too() {
    let origin = "https://chat.example.com";
    let mut cfg = crate::support::config();
    cfg.cors_origins = CorsOrigins::parse(origin).unwrap();
    let server = start_with(Fake::standard(), cfg).await;
    let resp = client()
        .request(Method::OPTIONS, server.url("/v1/chat/completions"))
        .header(ORIGIN, origin)
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    assert_secured(&resp, "a preflight");
}
