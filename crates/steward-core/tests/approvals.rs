//! The approval gate end to end inside the core: parking, the one resolve path, races,
//! expiry, revisions, grants, the plan gate, edits in words and crash recovery.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::tools::Recorder;
use common::*;
use std::sync::Arc;
use std::time::Duration;
use steward_core::approvals::ApprovalSettings;
use steward_core::{AgentSettings, ApprovalDesk, ApprovalError, Resolution};
use steward_protocol::{
    ActionStatus, Clock, Decision, Effect, ManualClock, Principal, PrincipalId, Surface,
};
use steward_testkit::{FakeModel, Reply, Step};
use steward_tools::ToolRegistry;

fn registry_with(tool: &Recorder) -> ToolRegistry {
    let mut r = steward_tools::builtin_registry();
    r.register(Arc::new(tool.clone())).unwrap();
    r
}

fn setup(fake: &FakeModel, tool: &Recorder, approvals: ApprovalSettings) -> Harness {
    harness_full(
        fake_models(fake),
        AgentSettings::default(),
        Some("openai:gpt-test"),
        registry_with(tool),
        approvals,
    )
}

#[tokio::test]
async fn a_consequential_call_is_parked_and_the_model_is_told_it_did_not_run() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let id = park_email(&fake, &h, "a1", "bob@example.com").await;
    assert_eq!(tool.count(), 0, "nothing runs on the model's word");

    let second = fake.requests()[1].body["messages"].to_string();
    assert!(
        second.contains(&format!("APPROVAL_PENDING:{id}")),
        "{second}"
    );
    assert!(second.contains("has NOT run"));

    let action = h.steward.get(&id).await.unwrap().unwrap();
    assert_eq!(action.status, ActionStatus::Pending);
    assert_eq!(action.tool, "send_email");
    assert_eq!(action.preview, "would act for bob@example.com");
    assert_eq!(action.surface, Surface::Cli);
    assert!(action.expires_at_ms > action.created_at_ms);
    assert!(!action.trace_id.is_empty());
}

#[tokio::test]
async fn confirm_runs_the_exact_payload_once_and_the_agent_continues() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let id = park_email(&fake, &h, "a2", "bob@example.com").await;

    fake.push(Step::Reply(Reply::text("Sent to Bob.")));
    let res = h
        .steward
        .resolve(
            &id,
            Decision::Confirm { revision: 0 },
            owner(),
            Surface::Http,
        )
        .await
        .unwrap();
    let Resolution::Applied {
        action,
        follow_up: Some(rx),
    } = res
    else {
        panic!("{res:?}")
    };
    assert_eq!(action.status, ActionStatus::Executed);
    assert_eq!(action.outcome.as_deref(), Some("done for bob@example.com"));
    assert_eq!(tool.count(), 1);
    assert_eq!(tool.last_args().unwrap()["to"], "bob@example.com");

    let follow = drain(rx).await;
    assert_eq!(final_text(&follow), "Sent to Bob.");
    let last = fake.requests().last().unwrap().body["messages"].to_string();
    assert!(last.contains("action_result"), "{last}");
    assert!(last.contains("done for bob@example.com"));

    // Confirming again is harmless and runs nothing.
    let again = h
        .steward
        .resolve(
            &id,
            Decision::Confirm { revision: 0 },
            owner(),
            Surface::Web,
        )
        .await
        .unwrap();
    assert!(matches!(again, Resolution::AlreadyDone { .. }), "{again:?}");
    assert_eq!(tool.count(), 1);
    // A conflicting decision gets the actual state back.
    let cancel = h
        .steward
        .resolve(&id, Decision::Cancel, owner(), Surface::Web)
        .await
        .unwrap();
    let Resolution::Conflict { action } = cancel else {
        panic!("{cancel:?}")
    };
    assert_eq!(action.status, ActionStatus::Executed);
}

#[tokio::test]
async fn fifty_concurrent_confirms_execute_exactly_once() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let id = park_email(&fake, &h, "a3", "x@example.com").await;
    let surfaces = [
        Surface::Http,
        Surface::Web,
        Surface::Telegram,
        Surface::Cli,
        Surface::OpenAiApi,
    ];
    let mut tasks = Vec::new();
    for i in 0..50 {
        let s = h.steward.clone();
        let id = id.clone();
        tasks.push(tokio::spawn(async move {
            s.resolve(
                &id,
                Decision::Confirm { revision: 0 },
                owner(),
                surfaces[i % 5],
            )
            .await
        }));
    }
    let mut applied = 0;
    for t in tasks {
        match t.await.unwrap().unwrap() {
            Resolution::Applied { .. } => applied += 1,
            Resolution::AlreadyDone { .. } => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(applied, 1);
    assert_eq!(tool.count(), 1);
}

#[tokio::test]
async fn another_principals_action_is_not_found_and_runs_nothing() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let id = park_email(&fake, &h, "a-theirs", "bob@example.com").await;
    // Someone else a surface authenticated: the owner's card is not theirs to decide.
    let bob = Principal::authenticated(PrincipalId::parse("bob").unwrap());
    for decision in [Decision::Confirm { revision: 0 }, Decision::Cancel] {
        let res = h
            .steward
            .resolve(&id, decision, bob.clone(), Surface::Http)
            .await;
        assert!(matches!(res, Err(ApprovalError::NotFound)), "{res:?}");
    }
    let edit = h
        .steward
        .request_edit(&id, bob.clone(), Surface::Http)
        .await;
    assert!(matches!(edit, Err(ApprovalError::NotFound)), "{edit:?}");
    let action = h.steward.get(&id).await.unwrap().unwrap();
    assert!(!action.awaiting_edit);

    // While the owner's card awaits an edit, bob's message in the conversation is his own
    // turn, not an edit of it.
    h.steward
        .request_edit(&id, owner(), Surface::Http)
        .await
        .unwrap();
    fake.push(Step::Reply(Reply::text("Hello Bob.")));
    let mut from_bob = inbound("a-theirs", "send it to mallory@example.com");
    from_bob.principal = bob;
    let events = collect(&h.steward, from_bob).await;
    assert_eq!(final_text(&events), "Hello Bob.");
    assert!(cards(&events).is_empty(), "{events:?}");
    assert_eq!(tool.count(), 0);
    let action = h.steward.get(&id).await.unwrap().unwrap();
    assert_eq!(action.status, ActionStatus::Pending);
    assert_eq!(action.principal.as_str(), "owner");
    assert_eq!(action.revision, 0);
    assert!(action.awaiting_edit, "still the owner's to edit");
    assert!(action.arguments.contains("bob@example.com"));
}

#[tokio::test]
async fn confirm_racing_cancel_gives_one_decision() {
    for round in 0..10 {
        let fake = FakeModel::start().await.unwrap();
        let tool = Recorder::new("send_email", Effect::External);
        let h = setup(&fake, &tool, ApprovalSettings::default());
        let id = park_email(&fake, &h, &format!("race{round}"), "y@example.com").await;
        let (a, b) = (h.steward.clone(), h.steward.clone());
        let (ia, ib) = (id.clone(), id.clone());
        let confirm = tokio::spawn(async move {
            a.resolve(
                &ia,
                Decision::Confirm { revision: 0 },
                owner(),
                Surface::Http,
            )
            .await
        });
        let cancel = tokio::spawn(async move {
            b.resolve(&ib, Decision::Cancel, owner(), Surface::Web)
                .await
        });
        let (c, k) = (
            confirm.await.unwrap().unwrap(),
            cancel.await.unwrap().unwrap(),
        );
        let final_state = h.steward.get(&id).await.unwrap().unwrap().status;
        match (c, k) {
            (Resolution::Applied { .. }, Resolution::Conflict { .. }) => {
                assert_eq!(final_state, ActionStatus::Executed);
                assert_eq!(tool.count(), 1);
            }
            (Resolution::Conflict { .. }, Resolution::Applied { .. }) => {
                assert_eq!(final_state, ActionStatus::Cancelled);
                assert_eq!(tool.count(), 0);
            }
            other => panic!("exactly one decision must win: {other:?}"),
        }
    }
}

/// A harness whose store and assistant read `clock`.
fn setup_clocked(
    fake: &FakeModel,
    tool: &Recorder,
    approvals: ApprovalSettings,
    clock: &Arc<ManualClock>,
) -> Harness {
    harness_clocked(
        fake_models(fake),
        AgentSettings::default(),
        Some("openai:gpt-test"),
        registry_with(tool),
        approvals,
        clock.clone(),
    )
}

#[tokio::test]
async fn confirm_after_expiry_runs_nothing_and_the_sweep_expires_unseen_cards() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let ttl = Duration::from_secs(30 * 60);
    let settings = ApprovalSettings {
        default_ttl: ttl,
        ..ApprovalSettings::default()
    };
    let clock = ManualClock::starting_now();
    let h = setup_clocked(&fake, &tool, settings, &clock);
    let late = park_email(&fake, &h, "e1", "late@example.com").await;
    let unseen = park_email(&fake, &h, "e2", "unseen@example.com").await;
    let action = h.steward.get(&late).await.unwrap().unwrap();
    assert_eq!(action.created_at_ms, clock.now_ms());
    assert_eq!(action.expires_at_ms, clock.now_ms() + 30 * 60 * 1000);

    // A millisecond before its expiry a card is not overdue.
    clock.advance(ttl - Duration::from_millis(1));
    assert_eq!(h.steward.expire_overdue().await.unwrap(), 0);
    assert_eq!(
        h.steward.get(&late).await.unwrap().unwrap().status,
        ActionStatus::Pending
    );

    // At its expiry it is: a late confirm expires it instead of running it.
    clock.advance(Duration::from_millis(1));
    let res = h
        .steward
        .resolve(
            &late,
            Decision::Confirm { revision: 0 },
            owner(),
            Surface::Http,
        )
        .await
        .unwrap();
    let Resolution::Conflict { action } = res else {
        panic!("{res:?}")
    };
    assert_eq!(action.status, ActionStatus::Expired);
    assert_eq!(tool.count(), 0);

    // The sweep, running on its own, expires the card nobody looked at.
    h.steward
        .start_approvals(Some(Duration::from_millis(20)))
        .await
        .unwrap();
    let expired = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let status = h.steward.get(&unseen).await.unwrap().unwrap().status;
            if status == ActionStatus::Expired {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(expired.is_ok(), "the sweep did not expire the overdue card");
    let res = h
        .steward
        .resolve(
            &unseen,
            Decision::Confirm { revision: 0 },
            owner(),
            Surface::Http,
        )
        .await
        .unwrap();
    assert!(matches!(res, Resolution::Conflict { .. }));
    assert_eq!(tool.count(), 0);
}

#[tokio::test]
async fn a_card_confirmed_just_before_its_expiry_runs() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let ttl = Duration::from_secs(60);
    let settings = ApprovalSettings {
        default_ttl: ttl,
        ..ApprovalSettings::default()
    };
    let clock = ManualClock::starting_now();
    let h = setup_clocked(&fake, &tool, settings, &clock);
    let id = park_email(&fake, &h, "e3", "bob@example.com").await;
    clock.advance(ttl - Duration::from_millis(1));
    fake.push(Step::Reply(Reply::text("sent")));
    let (res, _) = resolve_and_finish(
        &h.steward,
        &id,
        Decision::Confirm { revision: 0 },
        Surface::Http,
    )
    .await;
    assert!(matches!(res, Resolution::Applied { .. }), "{res:?}");
    assert_eq!(tool.count(), 1);
}

#[tokio::test]
async fn a_grant_lets_calls_run_until_the_clock_passes_its_end() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let clock = ManualClock::starting_now();
    let h = setup_clocked(&fake, &tool, ApprovalSettings::default(), &clock);
    let conv = steward_protocol::ConversationId::parse("g3").unwrap();
    let grant = h
        .steward
        .grant(conv, "send_email".into(), 2, owner())
        .await
        .unwrap();
    assert_eq!(grant.expires_at_ms, clock.now_ms() + 2 * 3_600_000);

    clock.advance(Duration::from_secs(2 * 3600) - Duration::from_millis(1));
    fake.push(Step::Reply(Reply::tool_call(
        "send_email",
        r#"{"to":"a@example.com"}"#,
    )));
    fake.push(Step::Reply(Reply::text("sent")));
    let events = collect(&h.steward, inbound("g3", "send")).await;
    assert!(cards(&events).is_empty(), "{events:?}");
    assert_eq!(tool.count(), 1, "the grant still held");

    clock.advance(Duration::from_millis(1));
    park_email(&fake, &h, "g3", "b@example.com").await;
    assert_eq!(tool.count(), 1, "an expired grant no longer skips the card");
    let listed = h.steward.grants().await.unwrap();
    let shown = listed.iter().find(|g| g.id == grant.id).unwrap();
    assert!(shown.expires_at_ms <= clock.now_ms() && !shown.revoked);
}

#[tokio::test]
async fn identical_pending_calls_need_one_approval_each() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let first = park_email(&fake, &h, "same", "z@example.com").await;
    let second = park_email(&fake, &h, "same", "z@example.com").await;
    assert_ne!(first, second);
    fake.push(Step::Reply(Reply::text("ok")));
    resolve_and_finish(
        &h.steward,
        &first,
        Decision::Confirm { revision: 0 },
        Surface::Http,
    )
    .await;
    assert_eq!(tool.count(), 1);
    assert_eq!(
        h.steward.get(&second).await.unwrap().unwrap().status,
        ActionStatus::Pending
    );
}

#[tokio::test]
async fn a_revision_is_revalidated_stays_pending_and_binds_the_new_payload() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let id = park_email(&fake, &h, "r1", "old@example.com").await;
    let before = h.steward.get(&id).await.unwrap().unwrap();

    let bad = h
        .steward
        .resolve(
            &id,
            Decision::Revise {
                arguments: serde_json::json!({"to": "forbidden"}),
            },
            owner(),
            Surface::Http,
        )
        .await;
    assert!(
        matches!(bad, Err(ApprovalError::Invalid(ref m)) if m.contains("forbidden")),
        "{bad:?}"
    );
    let wrong_type = h
        .steward
        .resolve(
            &id,
            Decision::Revise {
                arguments: serde_json::json!({"to": 5}),
            },
            owner(),
            Surface::Http,
        )
        .await;
    assert!(matches!(wrong_type, Err(ApprovalError::Invalid(_))));

    let res = h
        .steward
        .resolve(
            &id,
            Decision::Revise {
                arguments: serde_json::json!({"to": "new@example.com"}),
            },
            owner(),
            Surface::Http,
        )
        .await
        .unwrap();
    let Resolution::Applied { action, .. } = res else {
        panic!("{res:?}")
    };
    assert_eq!(action.status, ActionStatus::Pending);
    assert_eq!(action.revision, 1);
    assert_ne!(action.payload_hash, before.payload_hash);
    assert_eq!(action.preview, "would act for new@example.com");

    fake.push(Step::Reply(Reply::text("done")));
    resolve_and_finish(
        &h.steward,
        &id,
        Decision::Confirm { revision: 1 },
        Surface::Http,
    )
    .await;
    assert_eq!(tool.last_args().unwrap()["to"], "new@example.com");
    // Arguments changed after approval are refused.
    let after = h
        .steward
        .resolve(
            &id,
            Decision::Revise {
                arguments: serde_json::json!({"to": "evil@example.com"}),
            },
            owner(),
            Surface::Http,
        )
        .await
        .unwrap();
    assert!(matches!(after, Resolution::Conflict { .. }), "{after:?}");
    assert_eq!(tool.count(), 1);
}

#[tokio::test]
async fn grants_are_scoped_to_a_conversation_and_revocable() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let conv = steward_protocol::ConversationId::parse("g1").unwrap();
    assert!(
        h.steward
            .grant(conv.clone(), "send_email".into(), 0, owner())
            .await
            .is_err()
    );
    assert!(
        h.steward
            .grant(conv.clone(), "no_such_tool".into(), 1, owner())
            .await
            .is_err()
    );
    let grant = h
        .steward
        .grant(conv, "send_email".into(), 2, owner())
        .await
        .unwrap();

    fake.push(Step::Reply(Reply::tool_call(
        "send_email",
        r#"{"to":"a@example.com"}"#,
    )));
    fake.push(Step::Reply(Reply::text("sent")));
    let events = collect(&h.steward, inbound("g1", "send")).await;
    assert!(cards(&events).is_empty());
    assert_eq!(tool.count(), 1, "the grant let it run");

    // Another conversation still asks.
    park_email(&fake, &h, "g2", "b@example.com").await;
    assert_eq!(tool.count(), 1);

    assert!(h.steward.revoke_grant(&grant.id).await.unwrap());
    park_email(&fake, &h, "g1", "c@example.com").await;
    assert_eq!(tool.count(), 1, "revoked grants no longer apply");
    assert!(
        h.steward
            .grants()
            .await
            .unwrap()
            .iter()
            .any(|g| g.id == grant.id && g.revoked)
    );
}

#[tokio::test]
async fn a_tool_that_asks_every_time_cannot_be_granted() {
    use steward_store::ApprovalStore;
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External).ungrantable();
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let conv = steward_protocol::ConversationId::parse("g3").unwrap();
    let refused = h
        .steward
        .grant(conv.clone(), "send_email".into(), 2, owner())
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("cannot be granted"),
        "{refused}"
    );
    assert!(h.steward.grants().await.unwrap().is_empty());
    // Nor does a grant already in the store (written before the rule, or by hand) apply.
    let now = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    h.store
        .insert_grant(&steward_protocol::Grant {
            id: "old-grant".into(),
            conversation: conv,
            tool: "send_email".into(),
            principal: owner().id().clone(),
            created_at_ms: now,
            expires_at_ms: now + 3_600_000,
            revoked: false,
        })
        .await
        .unwrap();
    park_email(&fake, &h, "g3", "a@example.com").await;
    assert_eq!(tool.count(), 0, "the card still asks");
}

#[tokio::test]
async fn two_consequential_steps_become_one_plan_card_and_each_step_still_asks() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    fake.push(Step::Reply(
        Reply::tool_call("send_email", r#"{"to":"one@example.com"}"#)
            .with_call("send_email", r#"{"to":"two@example.com"}"#),
    ));
    fake.push(Step::Reply(Reply::text("Here is my plan.")));
    let events = collect(&h.steward, inbound("p1", "email both")).await;
    let c = cards(&events);
    assert_eq!(c.len(), 1, "one plan card, not two");
    assert_eq!(c[0].kind, steward_protocol::ActionKind::Plan);
    assert!(c[0].text.contains("one@example.com") && c[0].text.contains("two@example.com"));
    assert_eq!(tool.count(), 0);
    assert!(
        fake.requests()[1].body["messages"]
            .to_string()
            .contains("PLAN_PENDING")
    );

    // Approving the plan runs nothing by itself; the agent continues and each step asks.
    fake.push(Step::Reply(Reply::tool_call(
        "send_email",
        r#"{"to":"one@example.com"}"#,
    )));
    fake.push(Step::Reply(Reply::text("First step awaits your approval.")));
    let res = h
        .steward
        .resolve(
            &c[0].action_id,
            Decision::Confirm { revision: 0 },
            owner(),
            Surface::Http,
        )
        .await
        .unwrap();
    let Resolution::Applied {
        follow_up: Some(rx),
        ..
    } = res
    else {
        panic!("{res:?}")
    };
    let follow = drain(rx).await;
    assert_eq!(cards(&follow).len(), 1, "step one is gated on its own");
    assert_eq!(tool.count(), 0);
}

#[tokio::test]
async fn an_edit_in_words_revises_the_card_through_the_validator() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let id = park_email(&fake, &h, "w1", "monday@example.com").await;
    h.steward
        .request_edit(&id, owner(), Surface::Http)
        .await
        .unwrap();

    fake.push(Step::Reply(Reply::text(r#"{"to":"friday@example.com"}"#)));
    let events = collect(&h.steward, inbound("w1", "make it friday instead")).await;
    let c = cards(&events);
    assert_eq!(c.len(), 1, "{events:?}");
    assert!(c[0].text.contains("friday@example.com"));
    let action = h.steward.get(&id).await.unwrap().unwrap();
    assert_eq!(action.revision, 1);
    assert!(!action.awaiting_edit);
    assert_eq!(tool.count(), 0);
    let edit_req = fake.requests().last().unwrap().body.to_string();
    assert!(edit_req.contains("make it friday instead"));

    // A proposal the validator refuses leaves the payload as it was.
    h.steward
        .request_edit(&id, owner(), Surface::Http)
        .await
        .unwrap();
    fake.push(Step::Reply(Reply::text(r#"{"to":"forbidden"}"#)));
    let events = collect(&h.steward, inbound("w1", "send it to forbidden")).await;
    assert!(final_text(&events).contains("could not apply"));
    let action = h.steward.get(&id).await.unwrap().unwrap();
    assert!(action.arguments.contains("friday@example.com"));
    assert_eq!(action.status, ActionStatus::Pending);
}

#[tokio::test]
async fn a_confirmed_but_unfinished_action_is_failed_at_start_and_never_rerun() {
    use steward_store::{ApprovalStore, AuditEntry, ConversationStore};
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let id = park_email(&fake, &h, "crash", "c@example.com").await;
    // Simulate the crash window: the row says confirmed, the tool never ran.
    let mut action = h.steward.get(&id).await.unwrap().unwrap();
    action.id = format!("{id}-crashed");
    action.status = ActionStatus::Confirmed;
    let entry = AuditEntry {
        action_id: action.id.clone(),
        at_ms: 0,
        principal: owner().id().clone(),
        surface: Surface::Http,
        event: "created".into(),
        detail: String::new(),
        trace_id: action.trace_id.clone(),
    };
    h.store.insert_action(&action, &entry).await.unwrap();

    assert_eq!(
        h.steward
            .start_approvals(Some(Duration::from_secs(3600)))
            .await
            .unwrap(),
        1
    );
    let after = h.steward.get(&action.id).await.unwrap().unwrap();
    assert_eq!(after.status, ActionStatus::Failed);
    assert!(
        after
            .outcome
            .unwrap()
            .starts_with("interrupted — it may have run")
    );
    assert_eq!(tool.count(), 0);
    let conv = steward_protocol::ConversationId::parse("crash").unwrap();
    let history = h.store.recent_messages(&conv, 50).await.unwrap();
    assert!(
        history
            .last()
            .unwrap()
            .content
            .contains("interrupted — it may have run"),
        "the owner is told"
    );
    // The ordinary pending one is untouched by recovery.
    assert_eq!(
        h.steward.get(&id).await.unwrap().unwrap().status,
        ActionStatus::Pending
    );
}

#[tokio::test]
async fn every_decision_is_audited_and_scored_on_the_originating_trace() {
    use steward_store::ApprovalStore;
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, &tool, ApprovalSettings::default());
    let confirmed = park_email(&fake, &h, "s1", "a@example.com").await;
    let cancelled = park_email(&fake, &h, "s2", "b@example.com").await;
    let revised = park_email(&fake, &h, "s3", "c@example.com").await;

    fake.push(Step::Reply(Reply::text("ok")));
    resolve_and_finish(
        &h.steward,
        &confirmed,
        Decision::Confirm { revision: 0 },
        Surface::Http,
    )
    .await;
    h.steward
        .resolve(&cancelled, Decision::Cancel, owner(), Surface::Web)
        .await
        .unwrap();
    h.steward
        .resolve(
            &revised,
            Decision::Revise {
                arguments: serde_json::json!({"to": "d@example.com"}),
            },
            owner(),
            Surface::Http,
        )
        .await
        .unwrap();

    let score = |id: &str| {
        let h = &h;
        let id = id.to_owned();
        async move {
            let action = h.steward.get(&id).await.unwrap().unwrap();
            let scores = h.store.scores_for_trace(&action.trace_id).await.unwrap();
            let audit: Vec<String> = h
                .store
                .list_audit(&id)
                .await
                .unwrap()
                .into_iter()
                .map(|e| e.event)
                .collect();
            (scores, audit)
        }
    };
    let (s, a) = score(&confirmed).await;
    assert!(
        s.iter().any(|x| x.name == "user_approval"
            && x.value == 1.0
            && x.action_id.as_deref() == Some(confirmed.as_str())),
        "{s:?}"
    );
    assert_eq!(a, ["created", "confirm", "running", "executed"]);
    let (s, a) = score(&cancelled).await;
    assert!(
        s.iter()
            .any(|x| x.name == "user_approval" && x.value == 0.0),
        "{s:?}"
    );
    assert_eq!(a, ["created", "cancel"]);
    let (s, a) = score(&revised).await;
    assert!(s.iter().any(|x| x.name == "user_edit"), "{s:?}");
    assert_eq!(a, ["created", "revise"]);
}
