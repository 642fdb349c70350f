//! Contract cases for grants (scope, expiry, revocation, listing) and scores (round trip, per
//! trace). Grants are never global: every lookup is by exact conversation and tool.

use super::approvals::{T0, fresh_id};
use super::{fresh_conversation, ok, refused};
use crate::{Score, Store};
use steward_protocol::{ConversationId, Grant, PrincipalId};

const HOUR: i64 = 60 * 60 * 1000;

fn grant(conversation: &ConversationId, tool: &str, created: i64, expires: i64) -> Grant {
    Grant {
        id: fresh_id("grant"),
        conversation: conversation.clone(),
        tool: tool.into(),
        principal: PrincipalId::parse("owner").unwrap(),
        created_at_ms: created,
        expires_at_ms: expires,
        revoked: false,
    }
}

pub async fn scores_round_trip(store: &dyn Store) {
    const CASE: &str = "scores_round_trip";
    let trace = fresh_id("trace");
    let action_id = fresh_id("act");
    let scores = [
        Score {
            trace_id: trace.clone(),
            name: "user_approval".into(),
            value: 1.0,
            action_id: Some(action_id.clone()),
            genre: None,
            at_ms: T0 + 2,
        },
        Score {
            trace_id: trace.clone(),
            name: "user_edit".into(),
            value: 0.25,
            action_id: None,
            genre: None,
            at_ms: T0 + 1,
        },
        Score {
            trace_id: trace.clone(),
            name: "user_approval".into(),
            value: 0.0,
            action_id: Some(action_id),
            genre: None,
            at_ms: T0 + 3,
        },
        Score {
            trace_id: trace.clone(),
            name: "user_feedback".into(),
            value: 1.0,
            action_id: None,
            genre: Some("briefing".into()),
            at_ms: T0 + 4,
        },
    ];
    for score in &scores {
        ok(CASE, "record_score", store.record_score(score).await);
    }
    let back = ok(
        CASE,
        "scores_for_trace",
        store.scores_for_trace(&trace).await,
    );
    assert_eq!(back, scores, "[{CASE}] every field, in recording order");
    let other = ok(
        CASE,
        "other trace",
        store.scores_for_trace(&fresh_id("trace")).await,
    );
    assert!(other.is_empty(), "[{CASE}] scores are per trace");
}

pub async fn grants_scope_expiry_and_revocation(store: &dyn Store) {
    const CASE: &str = "grants_scope_expiry_and_revocation";
    let (c1, c2) = (fresh_conversation(CASE), fresh_conversation(CASE));
    let g = grant(&c1, "send_email", T0, T0 + HOUR);
    ok(CASE, "insert", store.insert_grant(&g).await);
    let lookup = |c: &ConversationId, tool: &'static str, now: i64| {
        let c = c.clone();
        async move {
            ok(
                CASE,
                "active_grant",
                store.active_grant(&c, tool, now).await,
            )
        }
    };
    assert_eq!(
        lookup(&c1, "send_email", T0).await,
        Some(g.clone()),
        "[{CASE}] in scope"
    );
    assert_eq!(
        lookup(&c2, "send_email", T0).await,
        None,
        "[{CASE}] other conversation"
    );
    assert_eq!(
        lookup(&c1, "delete_file", T0).await,
        None,
        "[{CASE}] other tool"
    );
    assert_eq!(
        lookup(&c1, "Send_Email", T0).await,
        None,
        "[{CASE}] exact tool name"
    );
    assert_eq!(
        lookup(&c1, "send_email", T0 + HOUR - 1).await,
        Some(g.clone()),
        "[{CASE}] 1 ms before expiry"
    );
    assert_eq!(
        lookup(&c1, "send_email", T0 + HOUR).await,
        None,
        "[{CASE}] expired at expires_at"
    );

    assert!(
        ok(CASE, "revoke", store.revoke_grant(&g.id).await),
        "[{CASE}] first revoke"
    );
    assert_eq!(
        lookup(&c1, "send_email", T0).await,
        None,
        "[{CASE}] revoked"
    );
    assert!(
        !ok(CASE, "revoke again", store.revoke_grant(&g.id).await),
        "[{CASE}] second revoke"
    );
    assert!(
        !ok(
            CASE,
            "revoke unknown",
            store.revoke_grant(&fresh_id("grant")).await
        ),
        "[{CASE}] unknown grant"
    );

    // Several grants for one scope: the one lasting longest answers.
    let short = grant(&c2, "send_email", T0, T0 + HOUR);
    let long = grant(&c2, "send_email", T0 + 1, T0 + 2 * HOUR);
    ok(CASE, "insert long", store.insert_grant(&long).await);
    ok(CASE, "insert short", store.insert_grant(&short).await);
    assert_eq!(
        lookup(&c2, "send_email", T0).await,
        Some(long.clone()),
        "[{CASE}] longest wins"
    );
    assert_eq!(
        lookup(&c2, "send_email", T0 + HOUR).await,
        Some(long.clone()),
        "[{CASE}] the short one has expired"
    );

    let mut duplicate = short.clone();
    duplicate.tool = "delete_file".into();
    refused(
        CASE,
        "duplicate id",
        store.insert_grant(&duplicate).await,
        "",
    );
    assert_eq!(
        lookup(&c2, "delete_file", T0).await,
        None,
        "[{CASE}] duplicate not stored"
    );
}

pub async fn grants_listing(store: &dyn Store) {
    const CASE: &str = "grants_listing";
    let c = fresh_conversation(CASE);
    let expired = grant(&c, "a", T0 - 2 * HOUR, T0 - HOUR);
    let revoked = grant(&c, "b", T0, T0 + HOUR);
    let active = grant(&c, "c", T0 + 1, T0 + HOUR);
    let mut born_revoked = grant(&c, "d", T0 + 2, T0 + HOUR);
    born_revoked.revoked = true;
    for g in [&revoked, &expired, &born_revoked, &active] {
        ok(CASE, "insert", store.insert_grant(g).await);
    }
    ok(CASE, "revoke", store.revoke_grant(&revoked.id).await);
    let mine = |all: Vec<Grant>| -> Vec<Grant> {
        all.into_iter().filter(|g| g.conversation == c).collect()
    };

    let listed = mine(ok(CASE, "list active", store.list_grants(false, T0).await));
    assert_eq!(
        listed,
        std::slice::from_ref(&active),
        "[{CASE}] active only"
    );
    let everything = ok(CASE, "list all", store.list_grants(true, T0).await);
    let revoked_now = Grant {
        revoked: true,
        ..revoked.clone()
    };
    assert_eq!(
        mine(everything.clone()),
        [
            born_revoked.clone(),
            active.clone(),
            revoked_now,
            expired.clone()
        ],
        "[{CASE}] all of them, newest first, revocation visible"
    );
    let sorted = everything
        .windows(2)
        .all(|w| (-w[0].created_at_ms, &w[0].id) <= (-w[1].created_at_ms, &w[1].id));
    assert!(sorted, "[{CASE}] whole list newest first");
    let later = mine(ok(
        CASE,
        "list later",
        store.list_grants(false, T0 + HOUR).await,
    ));
    assert!(later.is_empty(), "[{CASE}] all expired an hour later");
    let earlier = mine(ok(
        CASE,
        "list earlier",
        store.list_grants(false, T0 - HOUR - 1).await,
    ));
    assert_eq!(
        earlier,
        [active, expired],
        "[{CASE}] what was active then (not the revoked ones)"
    );
}
