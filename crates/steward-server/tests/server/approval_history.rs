//! Approval history over HTTP: each listed action carries `decided` (who, how, where, when;
//! null while pending) from one desk call for the whole listing, one action carries its whole
//! trail oldest first (detail as data, hostile text verbatim), the pending count for the
//! badge, and every one of these refuses a missing token and hostile ids before the desk.

use crate::desk::{FakeDesk, action, audit_step, finished};
use crate::support::{Server, client, json_of, start_desk};
use serde_json::json;
use steward_core::ApprovalError;
use steward_protocol::{ActionStatus, Surface};

async fn history_server() -> Server {
    let desk = FakeDesk::new(
        vec![
            action("a1", ActionStatus::Pending),
            finished("a2", ActionStatus::Executed, "sent"),
            finished("a3", ActionStatus::Cancelled, "cancelled by the user"),
            finished("a4", ActionStatus::Expired, "expired before anyone decided"),
            action("a5", ActionStatus::Pending),
        ],
        |_, _| Err(ApprovalError::NotFound),
    );
    desk.with_trail("a1", vec![audit_step("created", "owner", Surface::Http, 1)]);
    let mut revise = audit_step("revise", "owner", Surface::Web, 2);
    revise.detail = Some(json!({"to": "<img src=x onerror=alert(1)>"}));
    desk.with_trail(
        "a2",
        vec![
            audit_step("created", "owner", Surface::Http, 1),
            revise,
            audit_step("confirm", "owner", Surface::Http, 3),
            audit_step("running", "owner", Surface::Http, 4),
            audit_step("executed", "owner", Surface::Http, 5),
        ],
    );
    desk.with_trail("a3", vec![audit_step("cancel", "owner", Surface::Cli, 6)]);
    desk.with_trail(
        "a4",
        vec![audit_step("expire", "system", Surface::System, 7)],
    );
    start_desk(desk).await
}

#[tokio::test]
async fn a_listing_says_who_decided_each_action_from_one_desk_call() {
    let server = history_server().await;
    let resp = server.get("/api/v1/approvals?status=all").await;
    assert_eq!(resp.status(), 200);
    let body = json_of(resp).await;
    let decided: Vec<_> = body["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["action"]["id"].clone(), a["decided"].clone()))
        .collect();
    assert_eq!(
        decided,
        [
            (json!("a1"), json!(null)),
            (
                json!("a2"),
                json!({"decision": "confirm", "by": "owner", "surface": "http", "at_ms": 3})
            ),
            (
                json!("a3"),
                json!({"decision": "cancel", "by": "owner", "surface": "cli", "at_ms": 6})
            ),
            (
                json!("a4"),
                json!({"decision": "expire", "by": "system", "surface": "system", "at_ms": 7})
            ),
            (json!("a5"), json!(null)),
        ]
    );
    assert_eq!(
        server.desk.decision_calls(),
        [["a1", "a2", "a3", "a4", "a5"]],
        "one call for the whole listing, not one per action"
    );
    // A listing without a trail: the trail is for one action's page.
    assert!(body["actions"][1].get("trail").is_none());
}

#[tokio::test]
async fn one_action_carries_its_whole_trail_with_hostile_text_as_data() {
    let server = history_server().await;
    let resp = server.get("/api/v1/approvals/a2").await;
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let body = json_of(resp).await;
    assert_eq!(body["action"]["status"], "executed");
    assert_eq!(body["decided"]["decision"], "confirm");
    let events: Vec<&str> = body["trail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        ["created", "revise", "confirm", "running", "executed"]
    );
    assert_eq!(
        body["trail"][1],
        json!({
            "event": "revise", "by": "owner", "surface": "web", "at_ms": 2,
            "detail": {"to": "<img src=x onerror=alert(1)>"}
        }),
        "markup comes back verbatim, as a JSON string"
    );
    assert!(
        body["trail"][0].get("detail").is_none(),
        "no detail, no field"
    );
    let pending = json_of(server.get("/api/v1/approvals/a1").await).await;
    assert_eq!(pending["decided"], json!(null));
    assert_eq!(pending["trail"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn the_pending_count_is_a_number_without_cards() {
    let server = history_server().await;
    let resp = server.get("/api/v1/approvals/count").await;
    assert_eq!(resp.status(), 200);
    assert_eq!(json_of(resp).await, json!({"pending": 2}));
    assert!(server.desk.card_limits().is_empty(), "no card was rendered");
    assert!(server.desk.lists().is_empty(), "no listing was read");
    let resp = server
        .send(reqwest::Method::POST, "/api/v1/approvals/count", Some("{}"))
        .await;
    assert_eq!(resp.status(), 405);
    let empty = start_desk(FakeDesk::empty()).await;
    let body = json_of(empty.get("/api/v1/approvals/count").await).await;
    assert_eq!(body, json!({"pending": 0}));
}

#[tokio::test]
async fn history_routes_refuse_a_missing_token_and_hostile_ids_before_the_desk() {
    let server = history_server().await;
    for path in [
        "/api/v1/approvals",
        "/api/v1/approvals?status=all",
        "/api/v1/approvals/a2",
        "/api/v1/approvals/count",
    ] {
        let resp = client().get(server.url(path)).send().await.unwrap();
        assert_eq!(resp.status(), 401, "{path}");
    }
    assert!(server.desk.untouched(), "nothing reached the desk");

    let long = format!("/api/v1/approvals/{}", "a".repeat(129));
    for path in [
        "/api/v1/approvals/a%20b",
        "/api/v1/approvals/..%2Fa2",
        "/api/v1/approvals/a2%00",
        "/api/v1/approvals/%3Cscript%3E",
        long.as_str(),
    ] {
        let resp = server.get(path).await;
        assert_eq!(resp.status(), 400, "{path}");
    }
    assert!(server.desk.untouched(), "hostile ids never reach the desk");
    let resp = server.get("/api/v1/approvals/a9").await;
    assert_eq!(resp.status(), 404);
    for bad in [
        "?limit=501",
        "?limit=0",
        "?status=decided",
        "?limit=99999999999999999999",
    ] {
        let resp = server.get(&format!("/api/v1/approvals{bad}")).await;
        assert_eq!(resp.status(), 400, "{bad}");
    }
}
