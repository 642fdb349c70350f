//! Contract cases for `transition_action`, the compare-and-set that `Approvals::resolve` builds
//! on: status guard, payload-hash guard, expiry guard and revisions. Audit and concurrency
//! cases are in `races.rs`, which shares the helpers defined here.

use super::approvals::{T0, TTL, audit_events, audit_for, fake_hash, fresh_id, insert};
use super::{fresh_conversation, ok};
use crate::{ActionPatch, CasGuard, Store, StoreError, Transition};
use steward_protocol::{ActionStatus, PendingAction};

pub(crate) fn from(status: ActionStatus) -> CasGuard<'static> {
    CasGuard {
        from: status,
        expected_hash: None,
        unexpired_at_ms: None,
    }
}

/// One transition with an empty patch and an audit entry named after `event`.
pub(crate) async fn step(
    store: &dyn Store,
    action: &PendingAction,
    guard: CasGuard<'_>,
    to: ActionStatus,
    event: &str,
    now: i64,
) -> Result<Transition, StoreError> {
    let audit = audit_for(action, event, now);
    store
        .transition_action(&action.id, guard, to, &ActionPatch::default(), &audit, now)
        .await
}

pub(crate) fn applied(case: &str, step: &str, t: Transition) -> PendingAction {
    match t {
        Transition::Applied(row) => row,
        other => panic!("[{case}] {step}: expected Applied, got {other:?}"),
    }
}

pub(crate) fn conflict(case: &str, step: &str, t: Transition) -> PendingAction {
    match t {
        Transition::Conflict(row) => row,
        other => panic!("[{case}] {step}: expected Conflict, got {other:?}"),
    }
}

pub async fn transition_applies_only_from_expected_status(store: &dyn Store) {
    const CASE: &str = "transition_applies_only_from_expected_status";
    let action = sample(CASE);
    insert(store, CASE, &action).await;
    let (pending, confirmed) = (ActionStatus::Pending, ActionStatus::Confirmed);

    let first = ok(
        CASE,
        "confirm",
        step(store, &action, from(pending), confirmed, "confirm", T0 + 5).await,
    );
    let row = applied(CASE, "first confirm", first);
    let expected = PendingAction {
        status: confirmed,
        updated_at_ms: T0 + 5,
        ..action.clone()
    };
    assert_eq!(row, expected, "[{CASE}] only status and updated_at change");
    let stored = ok(CASE, "get", store.get_action(&action.id).await);
    assert_eq!(
        stored.as_ref(),
        Some(&expected),
        "[{CASE}] applied row is stored"
    );

    let second = ok(
        CASE,
        "confirm again",
        step(store, &action, from(pending), confirmed, "confirm", T0 + 6).await,
    );
    let current = conflict(CASE, "second confirm", second);
    assert_eq!(
        current, expected,
        "[{CASE}] conflict shows the row as it is"
    );
    let cancel = ok(
        CASE,
        "cancel",
        step(
            store,
            &action,
            from(pending),
            ActionStatus::Cancelled,
            "cancel",
            T0 + 7,
        )
        .await,
    );
    assert_eq!(
        conflict(CASE, "cancel after confirm", cancel).status,
        confirmed,
        "[{CASE}]"
    );
    assert_eq!(
        audit_events(store, CASE, &action.id).await,
        ["created", "confirm"],
        "[{CASE}] conflicts write no audit"
    );
    let stored = ok(
        CASE,
        "get after conflicts",
        store.get_action(&action.id).await,
    );
    assert_eq!(stored, Some(expected), "[{CASE}] conflicts changed nothing");

    let ghost = PendingAction {
        id: fresh_id("act"),
        ..action.clone()
    };
    let missing = ok(
        CASE,
        "unknown id",
        step(store, &ghost, from(pending), confirmed, "confirm", T0).await,
    );
    assert_eq!(missing, Transition::NotFound, "[{CASE}] unknown id");
    assert!(
        audit_events(store, CASE, &ghost.id).await.is_empty(),
        "[{CASE}] NotFound writes no audit"
    );
    assert_eq!(
        ok(CASE, "get ghost", store.get_action(&ghost.id).await),
        None,
        "[{CASE}] NotFound creates nothing"
    );
}

pub async fn expected_hash_mismatch_conflicts(store: &dyn Store) {
    const CASE: &str = "expected_hash_mismatch_conflicts";
    let action = sample(CASE);
    insert(store, CASE, &action).await;
    let other_payload = fake_hash(r#"{"to":"mallory@example.com"}"#);
    let guard = CasGuard {
        expected_hash: Some(&other_payload),
        ..from(ActionStatus::Pending)
    };
    let t = ok(
        CASE,
        "wrong hash",
        step(
            store,
            &action,
            guard,
            ActionStatus::Confirmed,
            "confirm",
            T0 + 1,
        )
        .await,
    );
    assert_eq!(
        conflict(CASE, "wrong hash", t),
        action,
        "[{CASE}] conflict row unchanged"
    );
    assert_eq!(
        ok(CASE, "get", store.get_action(&action.id).await),
        Some(action.clone()),
        "[{CASE}] nothing changed"
    );
    assert_eq!(
        audit_events(store, CASE, &action.id).await,
        ["created"],
        "[{CASE}]"
    );

    let guard = CasGuard {
        expected_hash: Some(&action.payload_hash),
        ..from(ActionStatus::Pending)
    };
    let t = ok(
        CASE,
        "right hash",
        step(
            store,
            &action,
            guard,
            ActionStatus::Confirmed,
            "confirm",
            T0 + 2,
        )
        .await,
    );
    assert_eq!(
        applied(CASE, "right hash", t).status,
        ActionStatus::Confirmed,
        "[{CASE}]"
    );
}

pub async fn expired_action_cannot_be_confirmed(store: &dyn Store) {
    const CASE: &str = "expired_action_cannot_be_confirmed";
    let action = sample(CASE);
    insert(store, CASE, &action).await;
    let expires = action.expires_at_ms;
    let at = |now: i64| CasGuard {
        unexpired_at_ms: Some(now),
        ..from(ActionStatus::Pending)
    };
    for (label, now) in [("at expiry", expires), ("after expiry", expires + 60_000)] {
        let t = ok(
            CASE,
            label,
            step(
                store,
                &action,
                at(now),
                ActionStatus::Confirmed,
                "confirm",
                now,
            )
            .await,
        );
        assert_eq!(
            conflict(CASE, label, t),
            action,
            "[{CASE}] {label}: refused, unchanged"
        );
    }
    assert_eq!(
        audit_events(store, CASE, &action.id).await,
        ["created"],
        "[{CASE}]"
    );
    let just_in_time = ok(
        CASE,
        "1 ms before expiry",
        step(
            store,
            &action,
            at(expires - 1),
            ActionStatus::Confirmed,
            "confirm",
            expires - 1,
        )
        .await,
    );
    assert_eq!(
        applied(CASE, "1 ms before expiry", just_in_time).status,
        ActionStatus::Confirmed,
        "[{CASE}]"
    );

    // The sweep expires without the guard; a confirm that lost the race then conflicts.
    let late = sample(CASE);
    insert(store, CASE, &late).await;
    let now = late.expires_at_ms + 1;
    let t = ok(
        CASE,
        "sweep",
        step(
            store,
            &late,
            from(ActionStatus::Pending),
            ActionStatus::Expired,
            "expire",
            now,
        )
        .await,
    );
    assert_eq!(
        applied(CASE, "sweep", t).status,
        ActionStatus::Expired,
        "[{CASE}]"
    );
    let t = ok(
        CASE,
        "late confirm",
        step(
            store,
            &late,
            from(ActionStatus::Pending),
            ActionStatus::Confirmed,
            "confirm",
            now,
        )
        .await,
    );
    assert_eq!(
        conflict(CASE, "late confirm", t).status,
        ActionStatus::Expired,
        "[{CASE}]"
    );
}

pub async fn revision_replaces_payload_and_bumps(store: &dyn Store) {
    const CASE: &str = "revision_replaces_payload_and_bumps";
    let mut action = sample(CASE);
    action.awaiting_edit = true;
    insert(store, CASE, &action).await;
    let pending = ActionStatus::Pending;
    let new_args = r#"{"to":"ann@example.com","subject":"vendredi 🗓"}"#.to_owned();
    let new_hash = fake_hash(&new_args);
    let patch = ActionPatch {
        arguments: Some(new_args.clone()),
        payload_hash: Some(new_hash.clone()),
        preview: Some("Send « vendredi » to ann".into()),
        outcome: None,
        awaiting_edit: Some(false),
        bump_revision: true,
    };
    let guard = CasGuard {
        expected_hash: Some(&action.payload_hash),
        unexpired_at_ms: Some(T0 + 10),
        from: pending,
    };
    let revise = audit_for(&action, "revise", T0 + 10);
    let t = store
        .transition_action(&action.id, guard, pending, &patch, &revise, T0 + 10)
        .await;
    let row = applied(CASE, "revise", ok(CASE, "revise", t));
    let expected = PendingAction {
        arguments: new_args,
        payload_hash: new_hash.clone(),
        preview: "Send « vendredi » to ann".into(),
        awaiting_edit: false,
        revision: 1,
        updated_at_ms: T0 + 10,
        ..action.clone()
    };
    assert_eq!(row, expected, "[{CASE}] revised row");

    // An approval of the old payload cannot confirm the new one.
    let stale = CasGuard {
        expected_hash: Some(&action.payload_hash),
        ..from(pending)
    };
    let t = ok(
        CASE,
        "stale confirm",
        step(
            store,
            &action,
            stale,
            ActionStatus::Confirmed,
            "confirm",
            T0 + 11,
        )
        .await,
    );
    assert_eq!(conflict(CASE, "stale confirm", t), expected, "[{CASE}]");

    let current = CasGuard {
        expected_hash: Some(&new_hash),
        ..from(pending)
    };
    let t = ok(
        CASE,
        "confirm",
        step(
            store,
            &action,
            current,
            ActionStatus::Confirmed,
            "confirm",
            T0 + 12,
        )
        .await,
    );
    let row = applied(CASE, "confirm", t);
    assert_eq!(row.revision, 1, "[{CASE}] no bump without bump_revision");

    let done = ActionPatch {
        outcome: Some("sent ✓".into()),
        ..ActionPatch::default()
    };
    let executed = audit_for(&action, "executed", T0 + 13);
    let t = store
        .transition_action(
            &action.id,
            from(ActionStatus::Confirmed),
            ActionStatus::Executed,
            &done,
            &executed,
            T0 + 13,
        )
        .await;
    let row = applied(CASE, "execute", ok(CASE, "execute", t));
    assert_eq!(
        (
            row.status,
            row.outcome.as_deref(),
            row.revision,
            row.arguments.as_str()
        ),
        (
            ActionStatus::Executed,
            Some("sent ✓"),
            1,
            expected.arguments.as_str()
        ),
        "[{CASE}] outcome set, payload kept"
    );
    assert_eq!(
        audit_events(store, CASE, &action.id).await,
        ["created", "revise", "confirm", "executed"],
        "[{CASE}] one audit entry per applied transition, in order"
    );
}

pub(crate) fn sample(case: &str) -> PendingAction {
    let mut action = super::approvals::sample_action(&fresh_conversation(case));
    action.expires_at_ms = T0 + TTL;
    action
}
