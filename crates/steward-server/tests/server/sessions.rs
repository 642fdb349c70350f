//! The session cookie at work: it authenticates `/api/` routes (not `/v1/`, not `/mcp`), acts
//! for the same principal as the bearer token, needs the CSRF token for every state change
//! (403 `csrf` and nothing changed without it), loses to the bearer when both come, and stops
//! working after a new sign-in, revocation, sign-out, idling and its absolute end. The list
//! marks the current session.

use crate::support::{Fake, client, json_of};
use crate::web_support::{
    Browser, WebOptions, WebServer, bearer, set_cookie, start_web, start_web_with,
};
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, COOKIE};
use serde_json::json;
use std::time::Duration;

async fn web() -> (WebServer, Browser) {
    let web = start_web(WebOptions::default()).await;
    let browser = web.sign_in().await;
    (web, browser)
}

#[tokio::test]
async fn the_cookie_opens_the_api_routes_and_only_those() {
    let (web, b) = web().await;
    web.conversation("web-c1").await;
    let resp = web
        .with_cookie(Method::GET, "/api/v1/conversations", &b.cookie, None, None)
        .await;
    assert_eq!(resp.status(), 200);
    let body = json_of(resp).await;
    assert_eq!(body["conversations"][0]["id"], "web-c1");
    // The SSE feed authenticates too (no feed is wired here: 503, past auth).
    let resp = web
        .with_cookie(Method::GET, "/api/v1/events", &b.cookie, None, None)
        .await;
    assert_eq!(resp.status(), 503);
    // The OpenAI API and MCP stay bearer-only, CSRF token or not.
    for (method, path) in [
        (Method::GET, "/v1/models"),
        (Method::POST, "/v1/chat/completions"),
        (Method::POST, "/mcp"),
        (Method::GET, "/mcp"),
    ] {
        let resp = web
            .with_cookie(
                method.clone(),
                path,
                &b.cookie,
                Some(&b.csrf),
                Some(&json!({})),
            )
            .await;
        assert_eq!(resp.status(), 401, "{method} {path}");
    }
}

#[tokio::test]
async fn bearer_and_cookie_act_for_the_same_principal() {
    let fake = Fake::standard();
    let web = start_web_with(fake.clone(), WebOptions::default()).await;
    let b = web.sign_in().await;
    let by_cookie = json_of(
        web.with_cookie(Method::GET, "/api/v1/session", &b.cookie, None, None)
            .await,
    )
    .await;
    assert_eq!(by_cookie["principal"], "owner");
    assert_eq!(by_cookie["csrf_token"], b.csrf.as_str());
    assert_eq!(by_cookie["session"]["id"], b.session_id.as_str());
    let by_bearer = json_of(web.server.get("/api/v1/session").await).await;
    assert_eq!(
        by_bearer,
        json!({"csrf_token": null, "session": null, "principal": "owner"})
    );
    // A turn started each way reaches the assistant as the same principal.
    let msg = json!({"conversation_id": "pin-1", "text": "hi"});
    let resp = web
        .with_cookie(
            Method::POST,
            "/api/v1/messages",
            &b.cookie,
            Some(&b.csrf),
            Some(&msg),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let resp = web.server.post("/api/v1/messages", &msg).await;
    assert_eq!(resp.status(), 200);
    let seen = fake.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].principal, seen[1].principal);
    assert_eq!(seen[0].principal.as_str(), "owner");
}

#[tokio::test]
async fn a_state_change_by_cookie_without_its_csrf_token_is_refused_and_changes_nothing() {
    let (web, b) = web().await;
    let other = web.sign_in().await;
    let id = web.conversation("csrf-c1").await;
    let rename = json!({"title": "renamed"});
    let path = "/api/v1/conversations/csrf-c1";
    for csrf in [
        None,
        Some(""),
        Some("x"),
        Some(other.csrf.as_str()),
        Some(&b.csrf[..42]),
    ] {
        let resp = web
            .with_cookie(Method::PATCH, path, &b.cookie, csrf, Some(&rename))
            .await;
        assert_eq!(resp.status(), 403, "{csrf:?}");
        let err = json_of(resp).await;
        assert_eq!(err["error"]["kind"], "csrf");
        let resp = web
            .with_cookie(Method::DELETE, path, &b.cookie, csrf, None)
            .await;
        assert_eq!(resp.status(), 403, "{csrf:?}");
    }
    // Twice the header, once right: which one counts cannot be known.
    let resp = client()
        .patch(web.url(path))
        .header(COOKIE, format!("steward_session={}", b.cookie))
        .header("x-csrf-token", b.csrf.as_str())
        .header("x-csrf-token", "x")
        .json(&rename)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    assert_eq!(web.title(&id).await, None, "no rename landed");
    assert!(
        web.store.conversation(&id).await.unwrap().is_some(),
        "not deleted"
    );
    // Signing out is a state change too.
    let resp = web
        .with_cookie(Method::DELETE, "/api/v1/session", &b.cookie, None, None)
        .await;
    assert_eq!(resp.status(), 403);
    assert_eq!(web.cookie_status(&b.cookie).await, 200, "still signed in");

    let resp = web
        .with_cookie(Method::PATCH, path, &b.cookie, Some(&b.csrf), Some(&rename))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(web.title(&id).await.as_deref(), Some("renamed"));
}

#[tokio::test]
async fn the_bearer_needs_no_csrf_token_and_decides_when_both_come() {
    let (web, b) = web().await;
    let id = web.conversation("bearer-c1").await;
    let path = "/api/v1/conversations/bearer-c1";
    let resp = web
        .server
        .send(Method::PATCH, path, Some(r#"{"title":"by token"}"#))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(web.title(&id).await.as_deref(), Some("by token"));
    // A wrong token is not rescued by a good cookie (and its CSRF token).
    let resp = client()
        .patch(web.url(path))
        .header(AUTHORIZATION, "Bearer wrong-token-0123456789")
        .header(COOKIE, format!("steward_session={}", b.cookie))
        .header("x-csrf-token", b.csrf.as_str())
        .json(&json!({"title": "by cookie"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    assert_eq!(web.title(&id).await.as_deref(), Some("by token"));
    // A good token beside a forged cookie works, without a CSRF token.
    let resp = client()
        .patch(web.url(path))
        .header(AUTHORIZATION, bearer())
        .header(COOKIE, "steward_session=forged")
        .json(&json!({"title": "token again"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn forged_cookies_open_nothing() {
    let (web, b) = web().await;
    let stored = web
        .store
        .list_sessions(&crate::support::owner_id())
        .await
        .unwrap();
    let hash = stored[0].secret_hash.clone();
    let mut flipped = b.cookie.clone().into_bytes();
    flipped[0] = if flipped[0] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).unwrap();
    for forged in [
        "",
        "x",
        hash.as_str(),
        b.csrf.as_str(),
        flipped.as_str(),
        &b.cookie[..42],
        &format!("{}A", b.cookie),
        "../../../etc/passwd",
        &"A".repeat(4096),
    ] {
        assert_eq!(web.cookie_status(forged).await, 401, "{forged:?}");
    }
    // The right value twice under the name (a second cookie from a parent domain): refused.
    let resp = client()
        .get(web.url("/api/v1/conversations"))
        .header(
            COOKIE,
            format!("steward_session={0}; steward_session={0}", b.cookie),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    // Among other cookies it is found.
    let resp = client()
        .get(web.url("/api/v1/conversations"))
        .header(
            COOKIE,
            format!("theme=dark; steward_session={}; lang=en", b.cookie),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn an_old_session_is_refused_after_a_new_sign_in_revocation_and_sign_out() {
    let (web, first) = web().await;
    // Signing in again from the same browser replaces its session.
    let cookie = format!("steward_session={}", first.cookie);
    let second = web
        .sign_in_with(
            &json!({"password": crate::web_support::PASSWORD}),
            &[("cookie", &cookie)],
        )
        .await;
    assert_ne!(second.session_id, first.session_id);
    assert_ne!(second.cookie, first.cookie);
    assert_eq!(
        web.cookie_status(&first.cookie).await,
        401,
        "after a new sign-in"
    );
    assert_eq!(web.cookie_status(&second.cookie).await, 200);

    // Revoked from another session.
    let third = web.sign_in().await;
    let path = format!("/api/v1/sessions/{}", third.session_id);
    let resp = web
        .with_cookie(
            Method::DELETE,
            &path,
            &second.cookie,
            Some(&second.csrf),
            None,
        )
        .await;
    assert_eq!(resp.status(), 204);
    assert!(
        set_cookie(&resp).is_none(),
        "another session's revocation keeps this cookie"
    );
    assert_eq!(
        web.cookie_status(&third.cookie).await,
        401,
        "after revocation"
    );
    let again = web
        .with_cookie(
            Method::DELETE,
            &path,
            &second.cookie,
            Some(&second.csrf),
            None,
        )
        .await;
    assert_eq!(again.status(), 404);
    for bad in [
        "/api/v1/sessions/not-a-uuid",
        "/api/v1/sessions/00000000-0000-0000-0000-000000000000",
    ] {
        let resp = web
            .with_cookie(
                Method::DELETE,
                bad,
                &second.cookie,
                Some(&second.csrf),
                None,
            )
            .await;
        assert_eq!(resp.status(), 404, "{bad}");
    }

    // Signed out.
    let resp = web
        .with_cookie(
            Method::DELETE,
            "/api/v1/session",
            &second.cookie,
            Some(&second.csrf),
            None,
        )
        .await;
    assert_eq!(resp.status(), 204);
    let (value, header) = set_cookie(&resp).unwrap();
    assert_eq!(value, "");
    assert_eq!(
        header,
        "steward_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
    );
    assert_eq!(
        web.cookie_status(&second.cookie).await,
        401,
        "after sign-out"
    );

    // Revoking the current session through the list signs it out too.
    let fourth = web.sign_in().await;
    let path = format!("/api/v1/sessions/{}", fourth.session_id);
    let resp = web
        .with_cookie(
            Method::DELETE,
            &path,
            &fourth.cookie,
            Some(&fourth.csrf),
            None,
        )
        .await;
    assert_eq!(resp.status(), 204);
    assert_eq!(set_cookie(&resp).unwrap().0, "");
    assert_eq!(web.cookie_status(&fourth.cookie).await, 401);
    // The bearer has no session to end.
    let resp = web
        .server
        .send(Method::DELETE, "/api/v1/session", None)
        .await;
    assert_eq!(resp.status(), 400);
}

#[tokio::test]
async fn the_session_list_shows_each_session_and_marks_the_current_one() {
    let web = start_web(WebOptions::default()).await;
    let phone = web
        .sign_in_with(
            &json!({"password": crate::web_support::PASSWORD}),
            &[("user-agent", "Phone/1.0\tbeta")],
        )
        .await;
    web.clock.advance(Duration::from_secs(5));
    let laptop = web
        .sign_in_with(
            &json!({"token": crate::support::TOKEN}),
            &[("user-agent", "Laptop/2.0")],
        )
        .await;
    let resp = web
        .with_cookie(Method::GET, "/api/v1/sessions", &laptop.cookie, None, None)
        .await;
    assert_eq!(resp.status(), 200);
    let list = json_of(resp).await;
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(
        sessions[0]["id"],
        laptop.session_id.as_str(),
        "newest first"
    );
    assert_eq!(sessions[0]["current"], true);
    assert_eq!(sessions[0]["user_agent"], "Laptop/2.0");
    assert_eq!(sessions[1]["id"], phone.session_id.as_str());
    assert_eq!(sessions[1]["current"], false);
    assert_eq!(
        sessions[1]["user_agent"], "Phone/1.0beta",
        "control characters dropped"
    );
    for s in sessions {
        let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "created_at",
                "current",
                "expires_at",
                "id",
                "last_seen_at",
                "user_agent"
            ]
        );
    }
    let by_bearer = json_of(web.server.get("/api/v1/sessions").await).await;
    let current: Vec<bool> = by_bearer["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["current"].as_bool().unwrap())
        .collect();
    assert_eq!(current, [false, false], "the bearer is no session");
}

#[tokio::test]
async fn sessions_end_after_a_week_idle_and_thirty_days_in_all() {
    let (web, idle) = web().await;
    let active = web.sign_in().await;
    let seen = |web: &WebServer, id: &str| {
        let store = web.store.clone();
        let id = id.to_owned();
        async move {
            store
                .list_sessions(&crate::support::owner_id())
                .await
                .unwrap()
                .into_iter()
                .find(|s| s.id == id)
                .map(|s| s.last_seen_at_ms)
        }
    };
    let signed_in = seen(&web, &active.session_id).await.unwrap();
    // Used within a minute: not written again.
    web.clock.advance(Duration::from_secs(30));
    assert_eq!(web.cookie_status(&active.cookie).await, 200);
    assert_eq!(seen(&web, &active.session_id).await, Some(signed_in));
    web.clock.advance(Duration::from_secs(31));
    assert_eq!(web.cookie_status(&active.cookie).await, 200);
    assert_eq!(
        seen(&web, &active.session_id).await,
        Some(signed_in + 61_000)
    );

    // Six days on, both still work; a day after that the unused one has idled out.
    web.clock.advance(Duration::from_secs(6 * 86_400));
    assert_eq!(web.cookie_status(&active.cookie).await, 200);
    web.clock.advance(Duration::from_secs(86_400 - 61));
    assert_eq!(
        web.cookie_status(&idle.cookie).await,
        401,
        "idle for 7 days"
    );
    assert_eq!(web.cookie_status(&active.cookie).await, 200);
    // Used every six days, it still ends 30 days after sign-in.
    for _ in 0..3 {
        web.clock.advance(Duration::from_secs(6 * 86_400));
        assert_eq!(web.cookie_status(&active.cookie).await, 200);
    }
    // Now 25 days in; a second before 30 days it still works, at 30 days it ends.
    web.clock.advance(Duration::from_secs(5 * 86_400 - 1));
    assert_eq!(web.cookie_status(&active.cookie).await, 200);
    web.clock.advance(Duration::from_secs(1));
    assert_eq!(
        web.cookie_status(&active.cookie).await,
        401,
        "30 days after sign-in"
    );
}
