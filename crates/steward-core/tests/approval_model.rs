//! The approval state machine against a reference model (property test), and the
//! tool × policy matrix through real turns with the fake model.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::tools::Recorder;
use common::*;
use proptest::prelude::*;
use std::sync::Arc;
use steward_core::approvals::{ApprovalSettings, PolicyDecision, decide, payload_hash};
use steward_core::{AgentSettings, ApprovalDesk, Assistant, Resolution};
use steward_protocol::{
    ActionKind, ActionStatus, ConversationId, Decision, Effect, Inbound, PendingAction, Principal,
    PrincipalId, Surface, TurnEvent,
};
use steward_store::{ApprovalStore, AuditEntry};
use steward_testkit::{FakeModel, Reply, Step};

#[derive(Debug, Clone)]
enum Op {
    Confirm(usize),
    /// A confirm carrying a revision the action does not have (a card shown before a revise).
    ConfirmStale(usize),
    Cancel(usize),
    Revise(usize),
    Sweep,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..3).prop_map(Op::Confirm),
        (0usize..3).prop_map(Op::ConfirmStale),
        (0usize..3).prop_map(Op::Cancel),
        (0usize..3).prop_map(Op::Revise),
        Just(Op::Sweep),
    ]
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn action(i: usize, expired: bool) -> PendingAction {
    let arguments = format!(r#"{{"to":"n{i}@example.com"}}"#);
    let now = now_ms();
    PendingAction {
        id: format!("act-{i}"),
        kind: ActionKind::Tool,
        tool: "send_email".into(),
        payload_hash: payload_hash("send_email", &arguments),
        arguments,
        preview: String::new(),
        trace_id: format!("trace-{i}"),
        conversation: ConversationId::parse("model").unwrap(),
        surface: Surface::Http,
        principal: PrincipalId::parse("owner").unwrap(),
        created_at_ms: now,
        expires_at_ms: if expired { now - 1 } else { now + 3_600_000 },
        status: ActionStatus::Pending,
        revision: 0,
        awaiting_edit: false,
        outcome: None,
        updated_at_ms: now,
    }
}

async fn run_model(expired: Vec<bool>, ops: Vec<Op>) {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let mut reg = steward_tools::builtin_registry();
    reg.register(Arc::new(tool.clone())).unwrap();
    let h = harness_full(
        fake_models(&fake),
        AgentSettings::default(),
        Some("openai:m"),
        reg,
        ApprovalSettings::default(),
    );
    for (i, e) in expired.iter().enumerate() {
        let a = action(i, *e);
        let entry = AuditEntry {
            action_id: a.id.clone(),
            at_ms: 0,
            principal: PrincipalId::parse("owner").unwrap(),
            surface: Surface::Http,
            event: "created".into(),
            detail: String::new(),
            trace_id: a.trace_id.clone(),
        };
        h.store.insert_action(&a, &entry).await.unwrap();
    }
    // Reference: every action's expected state and expected number of runs.
    let mut state = vec![ActionStatus::Pending; expired.len()];
    let mut runs = vec![0usize; expired.len()];
    let mut revisions = vec![0u32; expired.len()];
    let mut revision_seed = 0;
    for op in ops {
        match op {
            Op::Confirm(i) => {
                let res = h
                    .steward
                    .resolve(
                        &format!("act-{i}"),
                        Decision::Confirm {
                            revision: revisions[i],
                        },
                        Principal::authenticated(PrincipalId::parse("owner").unwrap()),
                        Surface::Web,
                    )
                    .await
                    .unwrap();
                match (state[i], expired[i]) {
                    (ActionStatus::Pending, false) => {
                        assert!(matches!(res, Resolution::Applied { .. }), "{res:?}");
                        state[i] = ActionStatus::Executed;
                        runs[i] += 1;
                        if let Resolution::Applied {
                            follow_up: Some(rx),
                            ..
                        } = res
                        {
                            drain(rx).await;
                        }
                    }
                    (ActionStatus::Pending, true) => {
                        assert!(matches!(res, Resolution::Conflict { .. }), "{res:?}");
                        state[i] = ActionStatus::Expired;
                    }
                    (ActionStatus::Executed, _) => {
                        assert!(matches!(res, Resolution::AlreadyDone { .. }), "{res:?}")
                    }
                    _ => assert!(matches!(res, Resolution::Conflict { .. }), "{res:?}"),
                }
            }
            Op::ConfirmStale(i) => {
                let res = h
                    .steward
                    .resolve(
                        &format!("act-{i}"),
                        Decision::Confirm {
                            revision: revisions[i] + 1,
                        },
                        Principal::authenticated(PrincipalId::parse("owner").unwrap()),
                        Surface::Web,
                    )
                    .await
                    .unwrap();
                // Never runs; a live pending card is reported stale, an overdue one expires.
                if state[i] == ActionStatus::Pending && !expired[i] {
                    assert!(matches!(res, Resolution::Stale { .. }), "{res:?}");
                } else {
                    if state[i] == ActionStatus::Pending {
                        state[i] = ActionStatus::Expired;
                    }
                    assert!(matches!(res, Resolution::Conflict { .. }), "{res:?}");
                }
            }
            Op::Cancel(i) => {
                let res = h
                    .steward
                    .resolve(
                        &format!("act-{i}"),
                        Decision::Cancel,
                        Principal::authenticated(PrincipalId::parse("owner").unwrap()),
                        Surface::Web,
                    )
                    .await
                    .unwrap();
                match state[i] {
                    ActionStatus::Pending => {
                        assert!(matches!(res, Resolution::Applied { .. }), "{res:?}");
                        state[i] = ActionStatus::Cancelled;
                    }
                    ActionStatus::Cancelled => {
                        assert!(matches!(res, Resolution::AlreadyDone { .. }), "{res:?}")
                    }
                    _ => assert!(matches!(res, Resolution::Conflict { .. }), "{res:?}"),
                }
            }
            Op::Revise(i) => {
                revision_seed += 1;
                let args = serde_json::json!({"to": format!("r{revision_seed}@example.com")});
                let res = h
                    .steward
                    .resolve(
                        &format!("act-{i}"),
                        Decision::Revise { arguments: args },
                        Principal::authenticated(PrincipalId::parse("owner").unwrap()),
                        Surface::Web,
                    )
                    .await
                    .unwrap();
                if state[i] == ActionStatus::Pending && !expired[i] {
                    assert!(matches!(res, Resolution::Applied { .. }), "{res:?}");
                    revisions[i] += 1;
                } else {
                    assert!(matches!(res, Resolution::Conflict { .. }), "{res:?}");
                    if state[i] == ActionStatus::Pending {
                        // A late revise expires the overdue card, like a late confirm.
                        state[i] = ActionStatus::Expired;
                    }
                }
            }
            Op::Sweep => {
                h.steward.expire_overdue().await.unwrap();
                for (s, e) in state.iter_mut().zip(&expired) {
                    if *s == ActionStatus::Pending && *e {
                        *s = ActionStatus::Expired;
                    }
                }
            }
        }
        for (i, expected) in state.iter().enumerate() {
            let stored = h.steward.get(&format!("act-{i}")).await.unwrap().unwrap();
            assert_eq!(stored.status, *expected, "action {i}");
            let audit = h.store.list_audit(&stored.id).await.unwrap();
            let executed_at = audit.iter().position(|e| e.event == "executed");
            let confirmed_at = audit.iter().position(|e| e.event == "confirm");
            let running_at = audit.iter().position(|e| e.event == "running");
            if let Some(x) = executed_at {
                assert!(
                    confirmed_at.is_some_and(|c| running_at.is_some_and(|r| c < r && r < x)),
                    "executed implies confirmed, then running, first: {audit:?}"
                );
            }
            assert_eq!(stored.revision, revisions[i], "action {i}");
        }
        assert_eq!(tool.count(), runs.iter().sum::<usize>());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn the_state_machine_matches_the_reference(expired in prop::collection::vec(any::<bool>(), 3), ops in prop::collection::vec(op(), 1..14)) {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(run_model(expired, ops));
    }
}

#[tokio::test]
async fn tool_policy_matrix_side_effects_only_with_an_approval_for_that_payload() {
    let effects = [
        Effect::Read,
        Effect::Memory,
        Effect::Write,
        Effect::External,
        Effect::Destructive,
    ];
    let surfaces = [
        Surface::Cli,
        Surface::Http,
        Surface::OpenAiApi,
        Surface::Telegram,
        Surface::Web,
        Surface::System,
        Surface::Scheduler,
    ];
    for effect in effects {
        for surface in surfaces {
            let fake = FakeModel::start().await.unwrap();
            let tool = Recorder::new("act", effect);
            let mut reg = steward_tools::builtin_registry();
            reg.register(Arc::new(tool.clone())).unwrap();
            let h = harness_full(
                fake_models(&fake),
                AgentSettings::default(),
                Some("openai:m"),
                reg,
                ApprovalSettings::default(),
            );
            fake.push(Step::Reply(Reply::tool_call(
                "act",
                r#"{"to":"t@example.com"}"#,
            )));
            fake.push(Step::Reply(Reply::text("ok")));
            let events = drain(h.steward.submit(Inbound::new(
                ConversationId::parse("m").unwrap(),
                Principal::authenticated(PrincipalId::parse("owner").unwrap()),
                surface,
                "go",
            )))
            .await;
            let cards: Vec<_> = events
                .iter()
                .filter_map(|e| match e {
                    TurnEvent::ApprovalRequired { card } => Some(card.clone()),
                    _ => None,
                })
                .collect();
            let label = format!("{effect:?} on {surface:?}");
            // The default policy, written out independently of the code under test.
            let expected = match (effect, surface) {
                (Effect::Read | Effect::Memory, _) => PolicyDecision::Allow,
                (_, Surface::System) => PolicyDecision::Refuse,
                _ => PolicyDecision::Ask,
            };
            assert_eq!(
                decide(effect, surface, &ApprovalSettings::default()),
                expected,
                "{label}"
            );
            match expected {
                PolicyDecision::Allow => {
                    assert_eq!(tool.count(), 1, "{label}");
                    assert!(cards.is_empty(), "{label}");
                }
                PolicyDecision::Refuse => {
                    assert_eq!(tool.count(), 0, "{label}");
                    assert!(cards.is_empty(), "{label}");
                    assert!(
                        fake.requests()[1].body["messages"]
                            .to_string()
                            .contains("refused"),
                        "{label}"
                    );
                }
                PolicyDecision::Ask => {
                    assert_eq!(tool.count(), 0, "{label}: no run before approval");
                    assert_eq!(cards.len(), 1, "{label}");
                    fake.push(Step::Reply(Reply::text("done")));
                    resolve_and_finish(
                        &h.steward,
                        &cards[0].action_id,
                        Decision::Confirm { revision: 0 },
                        surface,
                    )
                    .await;
                    assert_eq!(tool.count(), 1, "{label}: runs once after approval");
                    assert_eq!(
                        tool.last_args().unwrap()["to"],
                        "t@example.com",
                        "{label}: the approved payload"
                    );
                }
            }
        }
    }
}
