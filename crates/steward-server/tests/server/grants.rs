//! The grant routes: create, list, revoke, and the validation that keeps a grant scoped
//! and time-limited.

use crate::desk::{FakeDesk, GrantCall};
use crate::support::{json_of, start_desk};
use reqwest::Method;
use serde_json::json;
use steward_protocol::{ConversationId, Principal};

#[tokio::test]
async fn grants_can_be_created_listed_and_revoked() {
    let server = start_desk(FakeDesk::empty()).await;
    let body = json!({"conversation_id": "tg:42", "tool": "send_email", "hours": 24});
    let resp = server
        .send(Method::POST, "/api/v1/grants", Some(&body.to_string()))
        .await;
    assert_eq!(resp.status(), 201);
    let created = json_of(resp).await;
    let grant = &created["grant"];
    assert_eq!(grant["conversation"], "tg:42");
    assert_eq!(grant["tool"], "send_email");
    assert_eq!(grant["revoked"], false);
    assert_eq!(grant["expires_at_ms"], 1_000 + 24 * 3_600_000);
    assert_eq!(
        server.desk.grant_calls(),
        [GrantCall {
            conversation: ConversationId::parse("tg:42").unwrap(),
            tool: "send_email".into(),
            hours: 24,
            principal: Principal::authenticated(crate::support::owner_id()),
        }]
    );

    let listed = json_of(server.get("/api/v1/grants").await).await;
    assert_eq!(listed, json!({"grants": [grant]}));

    let id = grant["id"].as_str().unwrap();
    let path = format!("/api/v1/grants/{id}");
    let resp = server.send(Method::DELETE, &path, None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(json_of(resp).await, json!({"revoked": true}));
    let again = json_of(server.send(Method::DELETE, &path, None).await).await;
    assert_eq!(again, json!({"revoked": false}));
    let unknown = server
        .send(Method::DELETE, "/api/v1/grants/g-404", None)
        .await;
    assert_eq!(json_of(unknown).await, json!({"revoked": false}));
    assert_eq!(server.desk.revokes(), [id, id, "g-404"]);

    let listed = json_of(server.get("/api/v1/grants").await).await;
    assert_eq!(listed["grants"][0]["revoked"], true);
}

#[tokio::test]
async fn grant_requests_are_validated() {
    let server = start_desk(FakeDesk::empty()).await;
    let ok = json!({"conversation_id": "c1", "tool": "send_email", "hours": 1});
    let with = |field: &str, value: serde_json::Value| {
        let mut body = ok.clone();
        body[field] = value;
        body
    };
    let cases = [
        (with("hours", json!(0)), 400),
        (with("hours", json!(169)), 400),
        (with("hours", json!(4_294_967_297u64)), 400),
        (with("hours", json!(-1)), 422),
        (with("hours", json!(1.5)), 422),
        (with("hours", json!("24")), 422),
        (with("tool", json!("Send-Email")), 400),
        (with("tool", json!("")), 400),
        (with("tool", json!("a".repeat(65))), 400),
        (with("conversation_id", json!("../x")), 400),
        (with("conversation_id", json!("")), 400),
        (json!({"tool": "send_email", "hours": 1}), 422),
    ];
    for (body, status) in cases {
        let resp = server
            .send(Method::POST, "/api/v1/grants", Some(&body.to_string()))
            .await;
        assert_eq!(resp.status(), status, "{body}");
    }
    assert!(server.desk.grant_calls().is_empty());

    for hours in [1, 168] {
        let body = with("hours", json!(hours)).to_string();
        let resp = server
            .send(Method::POST, "/api/v1/grants", Some(&body))
            .await;
        assert_eq!(resp.status(), 201, "{hours}");
    }
    let hours: Vec<u32> = server.desk.grant_calls().iter().map(|c| c.hours).collect();
    assert_eq!(hours, [1, 168]);
}
