//! `POST /api/v1/session`: the cookie it sets (flags, Secure only behind a trusted proxy
//! saying https), hostile bodies, a missing password answered like a wrong one, and the
//! failed-sign-in limit per client (20 wrong, then 429 even for the right password, until the
//! window passes on the `ManualClock`; other clients unaffected; forged forwarding headers
//! count for nothing).

use crate::support::{TOKEN, json_of};
use crate::web_support::{PASSWORD, WebOptions, set_cookie, start_web};
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, RETRY_AFTER};
use serde_json::{Value, json};
use std::net::IpAddr;
use std::time::Duration;
use steward_protocol::Clock;

const MAX_AGE: &str = "Max-Age=2592000";

fn assert_contract_cookie(header: &str, value: &str, secure: bool) {
    let expected = format!("steward_session={value}; Path=/; HttpOnly; SameSite=Strict; {MAX_AGE}");
    if secure {
        assert_eq!(header, format!("{expected}; Secure"));
    } else {
        assert_eq!(header, expected);
    }
}

#[tokio::test]
async fn the_token_and_the_password_each_sign_in_with_a_strict_http_only_cookie() {
    let web = start_web(WebOptions::default()).await;
    let mut ids = Vec::new();
    for body in [json!({"token": TOKEN}), json!({"password": PASSWORD})] {
        let resp = web.sign_in_raw(&body, &[], None).await;
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()[CACHE_CONTROL], "no-store");
        let (value, header) = set_cookie(&resp).unwrap();
        assert_eq!(value.len(), 43, "{header}");
        assert_contract_cookie(&header, &value, false);
        let body = json_of(resp).await;
        let csrf = body["csrf_token"].as_str().unwrap();
        assert_eq!(csrf.len(), 43);
        assert_ne!(csrf, value, "the CSRF token is not the cookie");
        let session = &body["session"];
        let id = session["id"].as_str().unwrap();
        assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");
        let (created, expires) = (
            session["created_at"].as_i64().unwrap(),
            session["expires_at"].as_i64().unwrap(),
        );
        assert_eq!(expires - created, 30 * 86_400);
        assert_eq!(created, web.clock.now_secs());
        ids.push(id.to_owned());
    }
    assert_ne!(ids[0], ids[1], "a new session each time");
}

#[tokio::test]
async fn the_cookie_is_secure_only_behind_a_trusted_proxy_saying_https() {
    let password = json!({"password": PASSWORD});
    let trusted = start_web(WebOptions {
        trusted_proxy: true,
        ..WebOptions::default()
    })
    .await;
    for (proto, secure) in [
        ("https", true),
        ("HTTPS", true),
        ("http", false),
        ("http, https", true),
        ("https, http", false),
    ] {
        let resp = trusted
            .sign_in_raw(&password, &[("x-forwarded-proto", proto)], None)
            .await;
        assert_eq!(resp.status(), 200);
        let (value, header) = set_cookie(&resp).unwrap();
        assert_contract_cookie(&header, &value, secure);
    }
    let resp = trusted.sign_in_raw(&password, &[], None).await;
    let (value, header) = set_cookie(&resp).unwrap();
    assert_contract_cookie(&header, &value, false);

    // Anyone can send the header to a server that is reached directly.
    let direct = start_web(WebOptions::default()).await;
    let resp = direct
        .sign_in_raw(&password, &[("x-forwarded-proto", "https")], None)
        .await;
    let (value, header) = set_cookie(&resp).unwrap();
    assert_contract_cookie(&header, &value, false);
}

async fn error_of(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    assert!(
        resp.headers().get("set-cookie").is_none(),
        "a refusal sets no cookie"
    );
    (status, json_of(resp).await)
}

#[tokio::test]
async fn hostile_bodies_are_refused_without_echoing_them() {
    let web = start_web(WebOptions::default()).await;
    let secret = "hunter2-secret-value";
    let cases: Vec<(Value, u16)> = vec![
        (json!({"password": secret, "token": secret}), 400),
        (json!({}), 400),
        (json!({"password": null}), 400),
        (json!({"password": secret, "remember": true}), 400),
        (json!({"passwrd": secret}), 400),
        (json!({"password": 12345}), 400),
        (json!({"password": [secret]}), 400),
        (json!([secret]), 400),
        (json!(secret), 400),
    ];
    for (body, status) in cases {
        let (got, err) = error_of(web.sign_in_raw(&body, &[], None).await).await;
        assert_eq!(got, status, "{body}");
        assert_eq!(err["error"]["kind"], "bad_request", "{body}");
        let text = err.to_string();
        assert!(!text.contains(secret) && !text.contains("12345"), "{text}");
    }
    let raw = |ct: &'static str, body: String| {
        let url = web.url("/api/v1/session");
        async move {
            crate::support::client()
                .post(url)
                .header(CONTENT_TYPE, ct)
                .body(body)
                .send()
                .await
                .unwrap()
        }
    };
    let (status, err) = error_of(raw("application/json", format!("password={secret}")).await).await;
    assert_eq!(status, 400);
    assert!(!err.to_string().contains(secret));
    let (status, _) =
        error_of(raw("text/plain", json!({"password": PASSWORD}).to_string()).await).await;
    assert_eq!(
        status, 415,
        "only JSON: a cross-site form cannot post it without a preflight"
    );
    // Past the body limit (1 MiB): refused before any of it is parsed.
    let huge = json!({"password": "a".repeat(2 * 1024 * 1024)}).to_string();
    let (status, err) = error_of(raw("application/json", huge).await).await;
    assert_eq!(status, 413);
    assert_eq!(err["error"]["kind"], "payload_too_large");
    // Longer than any password may be, but under the body limit: simply wrong, quickly.
    let started = std::time::Instant::now();
    let long = json!({"password": "a".repeat(5000)});
    let (status, err) = error_of(web.sign_in_raw(&long, &[], None).await).await;
    assert_eq!(
        (status, err["error"]["kind"].as_str()),
        (401, Some("bad_credentials"))
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // A wrong token.
    let (status, err) = error_of(
        web.sign_in_raw(&json!({"token": format!("{TOKEN}x")}), &[], None)
            .await,
    )
    .await;
    assert_eq!(
        (status, err["error"]["kind"].as_str()),
        (401, Some("bad_credentials"))
    );
    let (status, _) = error_of(web.sign_in_raw(&json!({"token": ""}), &[], None).await).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn no_password_set_is_answered_exactly_like_a_wrong_one() {
    let with = start_web(WebOptions::default()).await;
    let without = start_web(WebOptions {
        no_password: true,
        ..WebOptions::default()
    })
    .await;
    let guess = json!({"password": "a wrong guess of a password"});
    let (s1, wrong) = error_of(with.sign_in_raw(&guess, &[], None).await).await;
    let (s2, unset) = error_of(without.sign_in_raw(&guess, &[], None).await).await;
    assert_eq!((s1, s2), (401, 401));
    assert_eq!(
        wrong, unset,
        "the body must not tell whether a password is set"
    );
    assert_eq!(wrong["error"]["kind"], "bad_credentials");
    assert!(
        wrong["error"]["message"]
            .as_str()
            .unwrap()
            .contains("steward user set-password")
    );
    // The token still signs in where no password is set.
    let ok = without
        .sign_in_raw(&json!({"token": TOKEN}), &[], None)
        .await;
    assert_eq!(ok.status(), 200);
}

fn loopback(last: u8) -> Option<IpAddr> {
    Some(IpAddr::from([127, 0, 0, last]))
}

#[tokio::test]
async fn twenty_failures_then_429_even_for_the_right_password_until_the_window_passes() {
    let web = start_web(WebOptions::default()).await;
    let wrong = json!({"password": "not the password at all"});
    let right = json!({"password": PASSWORD});
    for i in 0..20 {
        // Wrong tokens count the same as wrong passwords.
        let body = if i % 2 == 0 {
            wrong.clone()
        } else {
            json!({"token": "wrong-token-0123456789"})
        };
        let resp = web.sign_in_raw(&body, &[], loopback(1)).await;
        assert_eq!(resp.status(), 401, "attempt {}", i + 1);
    }
    let resp = web.sign_in_raw(&right, &[], loopback(1)).await;
    assert_eq!(
        resp.status(),
        429,
        "the 21st attempt, with the right password"
    );
    assert_eq!(resp.headers()[RETRY_AFTER], "900");
    let (_, err) = error_of(resp).await;
    assert_eq!(err["error"]["kind"], "too_many_attempts");
    // Malformed bodies are refused before they are read.
    let resp = web.sign_in_raw(&json!({}), &[], loopback(1)).await;
    assert_eq!(resp.status(), 429);

    // Another client is not held back, and its failures are its own.
    let other = web.sign_in_raw(&right, &[], loopback(2)).await;
    assert_eq!(other.status(), 200);

    web.clock.advance(Duration::from_secs(15 * 60 - 1));
    let resp = web.sign_in_raw(&right, &[], loopback(1)).await;
    assert_eq!(resp.status(), 429);
    assert_eq!(resp.headers()[RETRY_AFTER], "1");
    web.clock.advance(Duration::from_secs(1));
    let resp = web.sign_in_raw(&right, &[], loopback(1)).await;
    assert_eq!(resp.status(), 200, "the window passed");
}

#[tokio::test]
async fn forwarding_headers_move_the_limit_only_when_the_proxy_is_trusted() {
    let wrong = json!({"password": "not the password at all"});
    let right = json!({"password": PASSWORD});
    // Direct: a client cannot escape its limit by claiming to be someone else.
    let direct = start_web(WebOptions::default()).await;
    for i in 0..20 {
        let hop = format!("10.0.0.{i}");
        let resp = direct
            .sign_in_raw(&wrong, &[("x-forwarded-for", &hop)], loopback(3))
            .await;
        assert_eq!(resp.status(), 401);
    }
    let resp = direct
        .sign_in_raw(&right, &[("x-forwarded-for", "10.9.9.9")], loopback(3))
        .await;
    assert_eq!(resp.status(), 429);

    // Behind a trusted proxy: the client is the last hop, whatever it put before it.
    let proxied = start_web(WebOptions {
        trusted_proxy: true,
        ..WebOptions::default()
    })
    .await;
    for i in 0..20 {
        let hops = format!("10.0.0.{i}, 203.0.113.7");
        let resp = proxied
            .sign_in_raw(&wrong, &[("x-forwarded-for", &hops)], None)
            .await;
        assert_eq!(resp.status(), 401);
    }
    let forged_first_hop = proxied
        .sign_in_raw(
            &right,
            &[("x-forwarded-for", "198.51.100.1, 203.0.113.7")],
            None,
        )
        .await;
    assert_eq!(forged_first_hop.status(), 429);
    let someone_else = proxied
        .sign_in_raw(&right, &[("x-forwarded-for", "203.0.113.8")], None)
        .await;
    assert_eq!(someone_else.status(), 200);
}
