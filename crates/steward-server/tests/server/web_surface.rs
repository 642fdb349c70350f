//! Which surface an approval decision is recorded from: the web app's session cookie is
//! `web`, the bearer token `http` (the Approvals page says "from the web app" / "from the
//! API"); a bearer beside a cookie decides, so it stays `http`; a cookie without its CSRF
//! token reaches no desk at all.

use crate::desk::{FakeDesk, finished};
use crate::web_support::{WebOptions, bearer, start_web};
use reqwest::Method;
use serde_json::json;
use steward_core::Resolution;
use steward_protocol::{ActionStatus, Decision, Surface};

fn cancelling_desk() -> std::sync::Arc<FakeDesk> {
    let gone = finished("a1", ActionStatus::Cancelled, "cancelled by owner");
    FakeDesk::new(vec![], move |_, _| {
        Ok(Resolution::Applied {
            action: gone.clone(),
            follow_up: None,
        })
    })
}

#[tokio::test]
async fn a_cookie_decides_from_web_and_the_bearer_from_http() {
    let web = start_web(WebOptions {
        desk: Some(cancelling_desk()),
        ..WebOptions::default()
    })
    .await;
    let browser = web.sign_in().await;
    let empty = json!({});

    // Without its CSRF token the cookie's decision is refused before the desk.
    let refused = web
        .with_cookie(
            Method::POST,
            "/api/v1/approvals/a1/cancel",
            &browser.cookie,
            None,
            Some(&empty),
        )
        .await;
    assert_eq!(refused.status(), 403);
    assert!(web.server.desk.resolves().is_empty());

    let by_cookie = web
        .with_cookie(
            Method::POST,
            "/api/v1/approvals/a1/cancel",
            &browser.cookie,
            Some(&browser.csrf),
            Some(&empty),
        )
        .await;
    assert_eq!(by_cookie.status(), 200);

    let by_bearer = crate::support::client()
        .post(web.url("/api/v1/approvals/a1/cancel"))
        .header("authorization", bearer())
        .header("cookie", format!("steward_session={}", browser.cookie))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(by_bearer.status(), 200);

    let calls = web.server.desk.resolves();
    let surfaces: Vec<_> = calls
        .iter()
        .map(|c| (c.decision.clone(), c.surface))
        .collect();
    assert_eq!(
        surfaces,
        [
            (Decision::Cancel, Surface::Web),
            (Decision::Cancel, Surface::Http)
        ]
    );
}
