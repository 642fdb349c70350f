//! Contract cases for the audit trail of transitions and for racing decisions: an entry is
//! written exactly when a transition applies, and 50 concurrent confirms have one winner.

use super::approvals::{T0, audit_for, fresh_id, insert};
use super::ok;
use super::transitions::{applied, conflict, from, sample, step};
use crate::{ActionPatch, AuditEntry, CasGuard, Store, Transition};
use std::sync::Arc;
use steward_protocol::{ActionStatus, PrincipalId, Surface};

pub async fn audit_written_iff_applied(store: &dyn Store) {
    const CASE: &str = "audit_written_iff_applied";
    let action = sample(CASE);
    insert(store, CASE, &action).await;
    let wrong_from = ok(
        CASE,
        "from confirmed",
        step(
            store,
            &action,
            from(ActionStatus::Confirmed),
            ActionStatus::Executed,
            "executed",
            T0 + 1,
        )
        .await,
    );
    conflict(CASE, "from confirmed", wrong_from);
    let mut cancel = audit_for(&action, "cancel", T0 + 2);
    cancel.principal = PrincipalId::parse("web:ann").unwrap();
    cancel.surface = Surface::Web;
    cancel.detail = r#"{"reason":"changed my mind"}"#.into();
    let t = store
        .transition_action(
            &action.id,
            from(ActionStatus::Pending),
            ActionStatus::Cancelled,
            &ActionPatch::default(),
            &cancel,
            T0 + 2,
        )
        .await;
    applied(CASE, "cancel", ok(CASE, "cancel", t));
    let again = ok(
        CASE,
        "cancel again",
        step(
            store,
            &action,
            from(ActionStatus::Pending),
            ActionStatus::Cancelled,
            "cancel",
            T0 + 3,
        )
        .await,
    );
    conflict(CASE, "cancel again", again);
    let trail = ok(CASE, "list_audit", store.list_audit(&action.id).await);
    assert_eq!(trail.len(), 2, "[{CASE}] created + one cancel: {trail:?}");
    assert_eq!(trail[1], cancel, "[{CASE}] the applied entry, whole");

    // A refusal is audited without any action row.
    let refused_id = fresh_id("act");
    let refusal = AuditEntry {
        action_id: refused_id.clone(),
        event: "refused".into(),
        trace_id: String::new(),
        ..cancel.clone()
    };
    ok(CASE, "append_audit", store.append_audit(&refusal).await);
    let trail = ok(CASE, "list refused", store.list_audit(&refused_id).await);
    assert_eq!(trail, [refusal], "[{CASE}] free audit entry round trip");
}

/// 50 tasks confirm one action at once, from different principals and surfaces: exactly one
/// wins, every loser sees the winner's state, and the trail has exactly one confirm.
pub async fn concurrent_confirms_one_winner(store: Arc<dyn Store>) {
    const CASE: &str = "concurrent_confirms_one_winner";
    let action = sample(CASE);
    insert(&*store, CASE, &action).await;
    let surfaces = [Surface::Cli, Surface::Http, Surface::Telegram, Surface::Web];
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let (store, action) = (Arc::clone(&store), action.clone());
            let mut audit = audit_for(&action, "confirm", T0 + i);
            audit.principal = PrincipalId::parse(&format!("p{i}")).unwrap();
            audit.surface = surfaces[i as usize % surfaces.len()];
            tokio::spawn(async move {
                let guard = CasGuard {
                    from: ActionStatus::Pending,
                    expected_hash: Some(&action.payload_hash),
                    unexpired_at_ms: Some(T0 + i),
                };
                store
                    .transition_action(
                        &action.id,
                        guard,
                        ActionStatus::Confirmed,
                        &ActionPatch::default(),
                        &audit,
                        T0 + i,
                    )
                    .await
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        let result = match task.await {
            Ok(result) => ok(CASE, "transition from task", result),
            Err(e) => panic!("[{CASE}] task failed: {e}"),
        };
        match result {
            Transition::Applied(row) => winners.push(row),
            Transition::Conflict(row) => assert_eq!(
                row.status,
                ActionStatus::Confirmed,
                "[{CASE}] a loser sees the confirmed row"
            ),
            Transition::NotFound => panic!("[{CASE}] NotFound for an existing action"),
        }
    }
    assert_eq!(winners.len(), 1, "[{CASE}] exactly one Applied");
    let trail = ok(CASE, "list_audit", store.list_audit(&action.id).await);
    let events: Vec<&str> = trail.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(
        events,
        ["created", "confirm"],
        "[{CASE}] one confirm audited"
    );
    assert_eq!(
        trail[1].at_ms, winners[0].updated_at_ms,
        "[{CASE}] the audited confirm is the winner's"
    );
    assert_eq!(
        ok(CASE, "get", store.get_action(&action.id).await),
        Some(winners.remove(0)),
        "[{CASE}] stored row is the winner's"
    );
}
