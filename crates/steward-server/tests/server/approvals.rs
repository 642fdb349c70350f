//! The approval routes: list/get shapes, every `Resolution` and `ApprovalError` mapped to
//! HTTP, follow-up turns, and hostile ids or bodies refused before `resolve` is called.

use crate::desk::{FakeDesk, ResolveCall, action, card, card_for, feed, finished, to_json};
use crate::support::{Server, TURN_ID, final_event, json_of, start_desk};
use reqwest::Method;
use serde_json::{Value, json};
use steward_core::{ApprovalError, Resolution};
use steward_protocol::{
    ActionStatus, ConversationId, Decision, FailureKind, Principal, Surface, TurnEvent,
};

fn started() -> TurnEvent {
    TurnEvent::Started {
        conversation_id: ConversationId::parse("c1").unwrap(),
        turn_id: steward_protocol::TurnId::parse(TURN_ID).unwrap(),
    }
}

/// A confirm of the card at revision 0, as a client that displayed it sends it.
const REV0: &str = r#"{"revision":0}"#;

async fn post(server: &Server, path: &str, body: Option<&str>) -> reqwest::Response {
    server.send(Method::POST, path, body).await
}

fn owner_call(id: &str, decision: Decision) -> ResolveCall {
    ResolveCall {
        id: id.into(),
        decision,
        principal: Principal::authenticated(crate::support::owner_id()),
        surface: Surface::Http,
    }
}

#[tokio::test]
async fn list_shows_actions_with_whole_cards() {
    let stored = vec![
        action("a1", ActionStatus::Pending),
        action("a2", ActionStatus::Pending),
        finished("a3", ActionStatus::Executed, "sent"),
    ];
    let desk = FakeDesk::new(stored.clone(), |_, _| Err(ApprovalError::NotFound));
    let server = start_desk(desk).await;

    let resp = server
        .get("/api/v1/approvals?status=pending&limit=50")
        .await;
    assert_eq!(resp.status(), 200);
    let want: Vec<Value> = stored[..2]
        .iter()
        .map(|a| json!({"action": to_json(a), "card": to_json(&card_for(a)), "decided": null}))
        .collect();
    assert_eq!(json_of(resp).await, json!({"actions": want}));

    let body = json_of(server.get("/api/v1/approvals?status=all&limit=2").await).await;
    assert_eq!(body["actions"].as_array().unwrap().len(), 2);
    let body = json_of(server.get("/api/v1/approvals").await).await;
    assert_eq!(body["actions"].as_array().unwrap().len(), 2);

    assert_eq!(
        server.desk.lists(),
        [
            (Some(ActionStatus::Pending), 50),
            (None, 2),
            (Some(ActionStatus::Pending), 50)
        ]
    );
    let limits = server.desk.card_limits();
    assert!(!limits.is_empty());
    assert!(limits.iter().all(Option::is_none), "{limits:?}");
}

#[tokio::test]
async fn list_refuses_bad_status_and_limit() {
    let server = start_desk(FakeDesk::empty()).await;
    let resp = server.get("/api/v1/approvals?status=approved").await;
    assert_eq!(resp.status(), 400);
    let message = json_of(resp).await["error"]["message"].to_string();
    for valid in ["pending", "executed", "cancelled", "expired"] {
        assert!(message.contains(valid), "{message}");
    }
    for q in [
        "limit=0",
        "limit=501",
        "limit=-1",
        "limit=ten",
        "status=PENDING",
    ] {
        let resp = server.get(&format!("/api/v1/approvals?{q}")).await;
        assert_eq!(resp.status(), 400, "{q}");
        assert_eq!(json_of(resp).await["error"]["kind"], "bad_request");
    }
    let resp = server.get("/api/v1/approvals?limit=500").await;
    assert_eq!(resp.status(), 200);
    assert_eq!(server.desk.lists(), [(Some(ActionStatus::Pending), 500)]);
}

#[tokio::test]
async fn get_shows_one_action_or_404() {
    let a1 = action("a1", ActionStatus::Pending);
    let server = start_desk(FakeDesk::new(vec![a1.clone()], |_, _| {
        Err(ApprovalError::NotFound)
    }))
    .await;
    let resp = server.get("/api/v1/approvals/a1").await;
    assert_eq!(resp.status(), 200);
    assert_eq!(
        json_of(resp).await,
        json!({
            "action": to_json(&a1),
            "card": to_json(&card_for(&a1)),
            "decided": null,
            "trail": [],
        })
    );
    let resp = server.get("/api/v1/approvals/a9").await;
    assert_eq!(resp.status(), 404);
    assert_eq!(json_of(resp).await["error"]["kind"], "not_found");
    assert_eq!(server.desk.gets(), ["a1", "trail:a1", "a9"]);
    assert_eq!(server.desk.card_limits(), [None]);
}

#[tokio::test]
async fn confirm_waits_for_the_follow_up_and_returns_its_reply() {
    let done = finished("a1", ActionStatus::Executed, "email sent");
    let raised = card("a2", "send_email: a second one");
    let (done2, raised2) = (done.clone(), raised.clone());
    let desk = FakeDesk::new(vec![], move |_, _| {
        Ok(Resolution::Applied {
            action: done2.clone(),
            follow_up: Some(feed(vec![
                started(),
                TurnEvent::TextDelta {
                    text: "Done".into(),
                },
                TurnEvent::ApprovalRequired {
                    card: raised2.clone(),
                },
                final_event("Done: the email went out."),
            ])),
        })
    });
    let server = start_desk(desk).await;
    for body in [
        r#"{"revision":3}"#,
        r#" { "revision": 3 } "#,
        r#"{"revision":3}"#,
    ] {
        let resp = post(&server, "/api/v1/approvals/a1/confirm", Some(body)).await;
        assert_eq!(resp.status(), 200, "{body:?}");
        assert_eq!(
            json_of(resp).await,
            json!({
                "action": to_json(&done),
                "result": "email sent",
                "reply": "Done: the email went out.",
                "approvals": [to_json(&raised)],
            })
        );
    }
    assert_eq!(
        server.desk.resolves(),
        vec![owner_call("a1", Decision::Confirm { revision: 3 }); 3],
        "the revision the client displayed reaches the desk"
    );
}

#[tokio::test]
async fn a_failed_follow_up_is_reported_beside_the_applied_action() {
    let done = finished("a1", ActionStatus::Executed, "ok");
    let done2 = done.clone();
    let desk = FakeDesk::new(vec![], move |_, _| {
        Ok(Resolution::Applied {
            action: done2.clone(),
            follow_up: Some(feed(vec![
                started(),
                TurnEvent::Failed {
                    kind: FailureKind::Model,
                    message: "model unreachable".into(),
                    retryable: true,
                },
            ])),
        })
    });
    let server = start_desk(desk).await;
    let resp = post(&server, "/api/v1/approvals/a1/confirm", Some(REV0)).await;
    assert_eq!(resp.status(), 200);
    let body = json_of(resp).await;
    assert_eq!(body["action"], to_json(&done));
    assert_eq!(body["reply"], Value::Null);
    assert_eq!(
        body["error"],
        json!({"kind": "model", "message": "model unreachable", "retryable": true})
    );
}

#[tokio::test]
async fn cancel_without_follow_up_answers_at_once() {
    let gone = finished("a1", ActionStatus::Cancelled, "cancelled by owner");
    let gone2 = gone.clone();
    let desk = FakeDesk::new(vec![], move |_, _| {
        Ok(Resolution::Applied {
            action: gone2.clone(),
            follow_up: None,
        })
    });
    let server = start_desk(desk).await;
    let resp = post(&server, "/api/v1/approvals/a1/cancel", None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(
        json_of(resp).await,
        json!({
            "action": to_json(&gone),
            "result": "cancelled by owner",
            "reply": null,
            "approvals": [],
        })
    );
    assert_eq!(server.desk.resolves(), [owner_call("a1", Decision::Cancel)]);
}

#[tokio::test]
async fn already_done_is_a_harmless_200() {
    let done = finished("a1", ActionStatus::Executed, "sent");
    let done2 = done.clone();
    let server = start_desk(FakeDesk::new(vec![], move |_, _| {
        Ok(Resolution::AlreadyDone {
            action: done2.clone(),
        })
    }))
    .await;
    let resp = post(&server, "/api/v1/approvals/a1/confirm", Some(REV0)).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(
        json_of(resp).await,
        json!({"action": to_json(&done), "already": true})
    );
}

#[tokio::test]
async fn conflict_is_409_with_the_actual_action() {
    let gone = finished("a1", ActionStatus::Cancelled, "cancelled");
    let gone2 = gone.clone();
    let server = start_desk(FakeDesk::new(vec![], move |_, _| {
        Ok(Resolution::Conflict {
            action: gone2.clone(),
        })
    }))
    .await;
    let resp = post(&server, "/api/v1/approvals/a1/confirm", Some(REV0)).await;
    assert_eq!(resp.status(), 409);
    assert_eq!(
        json_of(resp).await,
        json!({
            "error": {"kind": "conflict", "message": "action is cancelled"},
            "action": to_json(&gone),
            "card": to_json(&card_for(&gone)),
        })
    );
}

#[tokio::test]
async fn a_stale_card_is_409_with_the_current_card() {
    let current = steward_protocol::PendingAction {
        revision: 1,
        ..action("a1", ActionStatus::Pending)
    };
    let current2 = current.clone();
    let server = start_desk(FakeDesk::new(vec![], move |_, _| {
        Ok(Resolution::Stale {
            action: current2.clone(),
        })
    }))
    .await;
    let resp = post(&server, "/api/v1/approvals/a1/confirm", Some(REV0)).await;
    assert_eq!(resp.status(), 409);
    let body = json_of(resp).await;
    assert_eq!(body["error"]["kind"], "stale_card");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("revision 1") && message.contains("nothing was run"),
        "{message}"
    );
    assert_eq!(body["action"], to_json(&current));
    assert_eq!(body["card"], to_json(&card_for(&current)));
    assert_eq!(body["card"]["revision"], 1);
    assert_eq!(
        server.desk.resolves(),
        [owner_call("a1", Decision::Confirm { revision: 0 })]
    );
}

#[tokio::test]
async fn desk_errors_map_to_statuses() {
    let server = start_desk(FakeDesk::new(vec![], |id, _| match id {
        "missing" => Err(ApprovalError::NotFound),
        "late" => Err(ApprovalError::Invalid("the action has expired".into())),
        _ => Err(ApprovalError::Store),
    }))
    .await;
    let cases = [
        ("missing", 404, "not_found", "no such action"),
        ("late", 422, "invalid", "the action has expired"),
        (
            "broken",
            500,
            "internal",
            "storage failed; see the server log",
        ),
    ];
    for (id, status, kind, message) in cases {
        for (verb, body) in [("confirm", Some(REV0)), ("cancel", None)] {
            let resp = post(&server, &format!("/api/v1/approvals/{id}/{verb}"), body).await;
            assert_eq!(resp.status(), status, "{id} {verb}");
            let body = json_of(resp).await;
            assert_eq!(body["error"]["kind"], kind);
            assert_eq!(body["error"]["message"], message);
        }
    }
    assert_eq!(server.desk.resolves().len(), 6);
}

#[tokio::test]
async fn hostile_ids_are_refused_before_the_desk() {
    let server = start_desk(FakeDesk::new(vec![], |_, _| {
        Err(ApprovalError::Invalid("must not be reached".into()))
    }))
    .await;
    let long = "a".repeat(200);
    let ids = [
        "..%2Fx",
        long.as_str(),
        "é",
        "%E2%80%AEx",
        "a.b",
        "a_b",
        "a%00b",
    ];
    for id in ids {
        let resp = server.get(&format!("/api/v1/approvals/{id}")).await;
        assert_eq!(resp.status(), 400, "GET {id}");
        assert_eq!(json_of(resp).await["error"]["kind"], "bad_request");
        for verb in ["confirm", "cancel", "revise"] {
            let path = format!("/api/v1/approvals/{id}/{verb}");
            let resp = post(&server, &path, Some(r#"{"arguments":{}}"#)).await;
            assert_eq!(resp.status(), 400, "{verb} {id}");
        }
        let resp = server
            .send(Method::DELETE, &format!("/api/v1/grants/{id}"), None)
            .await;
        assert_eq!(resp.status(), 400, "DELETE grant {id}");
    }
    assert!(server.desk.untouched(), "{:?}", server.desk.resolves());
}

#[tokio::test]
async fn confirm_refuses_a_body_with_fields() {
    let server = start_desk(FakeDesk::empty()).await;
    let cases = [
        (r#"{"arguments":{"to":"eve"}}"#, 422),
        (r#"{"revision":0,"arguments":{"to":"eve"}}"#, 422),
        (r#"{"revision":-1}"#, 422),
        (r#"{"revision":"0"}"#, 422),
        ("[]", 422),
        ("{not json", 400),
    ];
    for (body, status) in cases {
        let resp = post(&server, "/api/v1/approvals/a1/confirm", Some(body)).await;
        assert_eq!(resp.status(), status, "{body}");
    }
    assert!(server.desk.resolves().is_empty());
}

#[tokio::test]
async fn confirm_without_the_shown_revision_is_refused_before_the_desk() {
    let server = start_desk(FakeDesk::empty()).await;
    for body in [None, Some("{}"), Some("  "), Some(r#"{"revision":null}"#)] {
        let resp = post(&server, "/api/v1/approvals/a1/confirm", body).await;
        assert_eq!(resp.status(), 400, "{body:?}");
        let error = &json_of(resp).await["error"];
        assert_eq!(error["kind"], "revision_required", "{body:?}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains(r#"{"revision": N}"#),
            "{error}"
        );
    }
    assert!(server.desk.resolves().is_empty());
}

#[tokio::test]
async fn revise_needs_an_object() {
    let server = start_desk(FakeDesk::empty()).await;
    for body in [
        r#"{"arguments":"make it friday"}"#,
        r#"{"arguments":[1,2]}"#,
        r#"{"arguments":null}"#,
        r#"{"arguments":5}"#,
        r#"{"args":{}}"#,
        r#"{"arguments":{"#,
        "",
    ] {
        let resp = post(&server, "/api/v1/approvals/a1/revise", Some(body)).await;
        let status = resp.status().as_u16();
        assert!(status == 400 || status == 422, "{body}: {status}");
    }
    let resp = post(&server, "/api/v1/approvals/a1/revise", None).await;
    assert_eq!(resp.status(), 415);
    assert!(server.desk.resolves().is_empty());
}

#[tokio::test]
async fn revise_applies_or_reports_the_validator() {
    let revised = action("a1", ActionStatus::Pending);
    let revised = steward_protocol::PendingAction {
        revision: 1,
        ..revised
    };
    let revised2 = revised.clone();
    let server = start_desk(FakeDesk::new(vec![], move |_, decision| match decision {
        Decision::Revise { arguments } if arguments["day"] == "friday" => Ok(Resolution::Applied {
            action: revised2.clone(),
            follow_up: None,
        }),
        _ => Err(ApprovalError::Invalid("day must be a weekday".into())),
    }))
    .await;
    let ok = post(
        &server,
        "/api/v1/approvals/a1/revise",
        Some(r#"{"arguments":{"day":"friday"}}"#),
    )
    .await;
    assert_eq!(ok.status(), 200);
    assert_eq!(
        json_of(ok).await,
        json!({"action": to_json(&revised), "card": to_json(&card_for(&revised))})
    );
    let bad = post(
        &server,
        "/api/v1/approvals/a1/revise",
        Some(r#"{"arguments":{"day":"sunday"}}"#),
    )
    .await;
    assert_eq!(bad.status(), 422);
    let body = json_of(bad).await;
    assert_eq!(body["error"]["message"], "day must be a weekday");
    assert_eq!(
        server.desk.resolves(),
        [
            owner_call(
                "a1",
                Decision::Revise {
                    arguments: json!({"day": "friday"})
                }
            ),
            owner_call(
                "a1",
                Decision::Revise {
                    arguments: json!({"day": "sunday"})
                }
            ),
        ]
    );
    assert_eq!(server.desk.card_limits(), [None]);
}
