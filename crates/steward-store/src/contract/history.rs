//! Contract cases for the read side of approval history: `first_audit_of` (one query for the
//! decisive entry of a whole listing) and `count_actions` (the pending badge).

use super::approvals::{T0, audit_for, insert, sample_action};
use super::transitions::{applied, from, step};
use super::{fresh_conversation, ok, refused};
use crate::{ApprovalStore, MAX_AUDIT_BATCH, Store};
use steward_protocol::{ActionStatus, PrincipalId, Surface};

pub async fn first_audit_of_takes_each_actions_first_matching_entry(store: &dyn Store) {
    const CASE: &str = "first_audit_of_takes_each_actions_first_matching_entry";
    let conversation = fresh_conversation(CASE);
    let (confirmed, cancelled, pending) = (
        sample_action(&conversation),
        sample_action(&conversation),
        sample_action(&conversation),
    );
    for a in [&confirmed, &cancelled, &pending] {
        insert(store, CASE, a).await;
    }
    // Written out of id order, so write order and id order differ.
    let (p, c) = (ActionStatus::Pending, ActionStatus::Confirmed);
    let cancel = step(
        store,
        &cancelled,
        from(p),
        ActionStatus::Cancelled,
        "cancel",
        T0 + 1,
    );
    applied(CASE, "cancel", ok(CASE, "cancel", cancel.await));
    let mut by_ann = audit_for(&confirmed, "confirm", T0 + 2);
    by_ann.principal = PrincipalId::parse("ann").unwrap();
    by_ann.surface = Surface::Web;
    let patch = crate::ActionPatch::default();
    let t = store
        .transition_action(&confirmed.id, from(p), c, &patch, &by_ann, T0 + 2)
        .await;
    applied(CASE, "confirm", ok(CASE, "confirm", t));
    // A later line with a matching word is not the first one.
    let late = audit_for(&confirmed, "cancel", T0 + 3);
    ok(CASE, "append", store.append_audit(&late).await);

    let ids = vec![
        pending.id.clone(),
        confirmed.id.clone(),
        cancelled.id.clone(),
        "act-never-stored".to_owned(),
    ];
    let found = ok(
        CASE,
        "first_audit_of",
        store.first_audit_of(&ids, &["confirm", "cancel"]).await,
    );
    let summary: Vec<(&str, &str, i64)> = found
        .iter()
        .map(|e| (e.action_id.as_str(), e.event.as_str(), e.at_ms))
        .collect();
    assert_eq!(
        summary,
        [
            (cancelled.id.as_str(), "cancel", T0 + 1),
            (confirmed.id.as_str(), "confirm", T0 + 2)
        ],
        "[{CASE}] one entry per decided action, first match, in write order"
    );
    assert_eq!(found[1], by_ann, "[{CASE}] the whole entry, as written");
    let created = ok(
        CASE,
        "created",
        store.first_audit_of(&ids[..1], &["created"]).await,
    );
    assert_eq!(created.len(), 1, "[{CASE}] any event word can be asked for");
    assert_eq!(created[0].action_id, pending.id, "[{CASE}]");
    let none = store.first_audit_of(&[], &["confirm"]).await;
    assert!(
        ok(CASE, "empty", none).is_empty(),
        "[{CASE}] no ids, no rows"
    );

    let too_many: Vec<String> = (0..=MAX_AUDIT_BATCH).map(|i| format!("a{i}")).collect();
    let refusal = store.first_audit_of(&too_many, &["confirm"]).await;
    refused(CASE, "too many ids", refusal, "");
    let hostile = vec!["a') OR 1=1 --".to_owned()];
    let refusal = store.first_audit_of(&hostile, &["confirm"]).await;
    refused(CASE, "hostile id", refusal, "OR 1=1");
    refused(CASE, "no events", store.first_audit_of(&ids, &[]).await, "");
}

pub async fn count_actions_counts_each_status(store: &dyn Store) {
    const CASE: &str = "count_actions_counts_each_status";
    let count = |status| async move { ok(CASE, "count", store.count_actions(status).await) };
    let (pending_before, cancelled_before) = (
        count(ActionStatus::Pending).await,
        count(ActionStatus::Cancelled).await,
    );
    let conversation = fresh_conversation(CASE);
    let (a, b) = (sample_action(&conversation), sample_action(&conversation));
    insert(store, CASE, &a).await;
    insert(store, CASE, &b).await;
    assert_eq!(
        count(ActionStatus::Pending).await,
        pending_before + 2,
        "[{CASE}]"
    );
    let cancel = step(
        store,
        &a,
        from(ActionStatus::Pending),
        ActionStatus::Cancelled,
        "cancel",
        T0 + 1,
    );
    applied(CASE, "cancel", ok(CASE, "cancel", cancel.await));
    assert_eq!(
        (
            count(ActionStatus::Pending).await,
            count(ActionStatus::Cancelled).await
        ),
        (pending_before + 1, cancelled_before + 1),
        "[{CASE}] a transition moves one action between counts"
    );
}

// The batch read must be reachable through `Store` trait objects.
const _: fn(&dyn Store) -> &dyn ApprovalStore = |s| s;
