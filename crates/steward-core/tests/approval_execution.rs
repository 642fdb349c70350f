//! The record of execution and what an approval binds to, inside the core: `running` is
//! written before the tool starts, an output the store cannot keep is sanitised (never a
//! reason to leave an action half-recorded), a crash-interrupted action reads "it may have
//! run", a confirm of an older card revision runs nothing, an approved effect that changed
//! runs nothing and comes back as a new card, and a NUL in a model's tool name never fails
//! a turn.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::tools::{Drifting, Recorder, Watcher};
use common::*;
use std::sync::Arc;
use std::time::Duration;
use steward_core::approvals::{ApprovalSettings, EFFECT_CHANGED};
use steward_core::{AgentSettings, ApprovalDesk, Resolution};
use steward_protocol::{
    ActionCard, ActionStatus, ConversationId, Decision, Effect, Principal, PrincipalId, Surface,
    TurnEvent,
};
use steward_sandbox::CodeConfig;
use steward_store::{ApprovalStore, AuditEntry, ConversationStore};
use steward_testkit::{FakeModel, Reply, Step};
use steward_tools::Tool;

fn setup(fake: &FakeModel, tools: Vec<Arc<dyn Tool>>) -> Harness {
    let mut registry = steward_tools::builtin_registry();
    for tool in tools {
        registry.register(tool).unwrap();
    }
    harness_full(
        fake_models(fake),
        AgentSettings::default(),
        Some("openai:gpt-test"),
        registry,
        ApprovalSettings::default(),
    )
}

/// A turn in which the model calls `tool` with `args` once; returns the one card raised.
async fn park(fake: &FakeModel, h: &Harness, conv: &str, tool: &str, args: &str) -> ActionCard {
    fake.push(Step::Reply(Reply::tool_call(tool, args)));
    fake.push(Step::Reply(Reply::text("Please approve.")));
    let events = collect(&h.steward, inbound(conv, "do it")).await;
    let c = cards(&events);
    assert_eq!(c.len(), 1, "{events:?}");
    c[0].clone()
}

async fn audit(h: &Harness, id: &str) -> Vec<String> {
    let entries = h.store.list_audit(id).await.unwrap();
    entries.into_iter().map(|e| e.event).collect()
}

async fn confirm(h: &Harness, card: &ActionCard) -> (Resolution, Vec<TurnEvent>) {
    let decision = Decision::Confirm {
        revision: card.revision,
    };
    resolve_and_finish(&h.steward, &card.action_id, decision, Surface::Http).await
}

fn applied(res: &Resolution) -> &steward_protocol::PendingAction {
    match res {
        Resolution::Applied { action, .. } => action,
        other => panic!("expected Applied, got {other:?}"),
    }
}

#[tokio::test]
async fn running_is_recorded_before_the_tool_starts() {
    let fake = FakeModel::start().await.unwrap();
    let watcher = Watcher::new("stamp", "stamped");
    let h = setup(&fake, vec![Arc::new(watcher.handle())]);
    *watcher.store.lock().unwrap() = Some(h.store.clone());
    let card = park(&fake, &h, "run1", "stamp", "{}").await;

    fake.push(Step::Reply(Reply::text("Stamped.")));
    let (res, _) = confirm(&h, &card).await;
    assert_eq!(applied(&res).status, ActionStatus::Executed);
    // While the tool ran, its own record already said `running`.
    assert_eq!(*watcher.seen.lock().unwrap(), [vec!["running".to_owned()]]);
    assert_eq!(
        audit(&h, &card.action_id).await,
        ["created", "confirm", "running", "executed"]
    );
}

#[tokio::test]
async fn an_output_with_nul_ends_executed_with_the_output_kept_sanitised() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Watcher::new("dump", "bytes: a\0b\0");
    let h = setup(&fake, vec![Arc::new(tool.handle())]);
    *tool.store.lock().unwrap() = Some(h.store.clone());
    let card = park(&fake, &h, "nul1", "dump", "{}").await;

    fake.push(Step::Reply(Reply::text("Dumped.")));
    let (res, follow) = confirm(&h, &card).await;
    let action = applied(&res);
    assert_eq!(action.status, ActionStatus::Executed, "{action:?}");
    assert_eq!(action.outcome.as_deref(), Some("bytes: a\u{FFFD}b\u{FFFD}"));
    let stored = h.steward.get(&card.action_id).await.unwrap().unwrap();
    assert_eq!(stored, *action, "what was returned is what was stored");
    assert_eq!(
        audit(&h, &card.action_id).await,
        ["created", "confirm", "running", "executed"]
    );
    assert_eq!(final_text(&follow), "Dumped.");
}

#[tokio::test]
async fn the_real_run_code_with_nul_output_runs_through_an_approved_action() {
    let fake = FakeModel::start().await.unwrap();
    let cfg = CodeConfig {
        timeout: Duration::from_secs(10),
        ..CodeConfig::default()
    };
    let status = steward_sandbox::probe(&cfg);
    // Not skipped: this machine has the sandbox (steward-sandbox's own tests require it too).
    let run_code = steward_sandbox::run_code_tool(cfg, &status).expect("sandbox available here");
    let h = setup(&fake, vec![run_code]);
    let args = serde_json::json!({
        "language": "python",
        "code": "import sys\nsys.stdout.write('left\\x00right\\n')"
    });
    let card = park(&fake, &h, "code1", "run_code", &args.to_string()).await;

    fake.push(Step::Reply(Reply::text("It printed two words.")));
    let (res, follow) = confirm(&h, &card).await;
    let action = applied(&res);
    assert_eq!(action.status, ActionStatus::Executed, "{action:?}");
    let outcome = action.outcome.clone().unwrap();
    assert!(outcome.contains("left\u{FFFD}right"), "{outcome}");
    assert!(outcome.starts_with("exit code: 0"), "{outcome}");
    assert_eq!(
        audit(&h, &card.action_id).await,
        ["created", "confirm", "running", "executed"]
    );
    assert_eq!(final_text(&follow), "It printed two words.");
}

#[tokio::test]
async fn a_tool_name_holding_nul_does_not_fail_the_turn() {
    let fake = FakeModel::start().await.unwrap();
    let h = setup(&fake, vec![]);
    fake.push(Step::Reply(Reply::tool_call("get\0time", "{\"x\":\"\0\"}")));
    fake.push(Step::Reply(Reply::text("No such tool; sorry.")));
    let events = collect(&h.steward, inbound("nul2", "what time is it?")).await;
    assert_eq!(final_text(&events), "No such tool; sorry.");

    let conv = ConversationId::parse("nul2").unwrap();
    let history = h.store.recent_messages(&conv, 10).await.unwrap();
    let call = &history[1].tool_calls[0];
    assert_eq!(call.name, "get\u{FFFD}time");
    assert_eq!(history[2].tool_name.as_deref(), Some("get\u{FFFD}time"));
    assert_eq!(history[2].tool_call_id.as_deref(), Some(call.id.as_str()));
    assert!(history[2].content.starts_with("error:"), "{:?}", history[2]);
    assert_eq!(history.last().unwrap().content, "No such tool; sorry.");
}

#[tokio::test]
async fn a_confirm_of_an_older_revision_is_stale_and_runs_nothing() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, vec![Arc::new(tool.clone())]);
    let shown = park(
        &fake,
        &h,
        "rev1",
        "send_email",
        r#"{"to":"ann@example.com"}"#,
    )
    .await;
    assert_eq!(shown.revision, 0);
    let revised = h
        .steward
        .resolve(
            &shown.action_id,
            Decision::Revise {
                arguments: serde_json::json!({"to": "eve@example.com"}),
            },
            Principal::authenticated(PrincipalId::parse("owner").unwrap()),
            Surface::Http,
        )
        .await
        .unwrap();
    assert_eq!(applied(&revised).revision, 1);

    // The owner confirms the card they saw (revision 0): it is not the current one.
    let (res, follow) = confirm(&h, &shown).await;
    let Resolution::Stale { action } = &res else {
        panic!("expected Stale, got {res:?}")
    };
    assert!(follow.is_empty());
    assert_eq!(action.status, ActionStatus::Pending);
    assert_eq!(action.revision, 1);
    assert!(action.arguments.contains("eve@example.com"));
    assert_eq!(tool.count(), 0, "nothing ran");
    assert_eq!(audit(&h, &shown.action_id).await, ["created", "revise"]);

    // The current card, confirmed as shown, runs.
    let current = h.steward.card(action, None);
    assert_eq!(current.revision, 1);
    fake.push(Step::Reply(Reply::text("Sent.")));
    let (res, _) = confirm(&h, &current).await;
    assert_eq!(applied(&res).status, ActionStatus::Executed);
    assert_eq!(tool.count(), 1);
    assert_eq!(tool.last_args().unwrap()["to"], "eve@example.com");
}

#[tokio::test]
async fn an_effect_changed_since_approval_runs_nothing_and_issues_a_new_card() {
    let fake = FakeModel::start().await.unwrap();
    let purge = Drifting::new(1);
    let h = setup(&fake, vec![Arc::new(purge.clone())]);
    let card = park(&fake, &h, "drift1", "purge", r#"{"table":"visits"}"#).await;
    let old = h.steward.get(&card.action_id).await.unwrap().unwrap();
    assert_eq!(old.preview, "will delete 1 rows");

    // Between the card and the confirm, the table grew.
    purge.rows.store(5, std::sync::atomic::Ordering::SeqCst);
    fake.push(Step::Reply(Reply::text(
        "The effect changed; see the new card.",
    )));
    let (res, follow) = confirm(&h, &card).await;
    let failed = applied(&res).clone();
    assert_eq!(failed.status, ActionStatus::Failed);
    let outcome = failed.outcome.clone().unwrap();
    assert!(outcome.starts_with(EFFECT_CHANGED), "{outcome}");
    assert!(purge.runs.lock().unwrap().is_empty(), "nothing ran");
    // The tool was told what the owner saw.
    assert_eq!(
        *purge.refusals.lock().unwrap(),
        [Some("will delete 1 rows".to_owned())]
    );
    assert_eq!(
        audit(&h, &card.action_id).await,
        ["created", "confirm", "running", "effect_changed"]
    );

    // The follow-up carries the new card right after it starts, like any raised card.
    assert!(
        matches!(follow.first(), Some(TurnEvent::Started { .. })),
        "{follow:?}"
    );
    let raised = cards(&follow);
    assert_eq!(raised.len(), 1, "{follow:?}");
    assert!(
        matches!(follow[1], TurnEvent::ApprovalRequired { .. }),
        "{follow:?}"
    );
    assert_eq!(final_text(&follow), "The effect changed; see the new card.");
    let fresh = h.steward.get(&raised[0].action_id).await.unwrap().unwrap();
    assert_ne!(fresh.id, old.id);
    assert!(outcome.contains(&fresh.id), "{outcome}");
    assert_eq!(fresh.status, ActionStatus::Pending);
    assert_eq!(fresh.preview, "will delete 5 rows");
    assert_eq!(
        (&fresh.tool, &fresh.arguments, &fresh.payload_hash),
        (&old.tool, &old.arguments, &old.payload_hash),
        "same payload"
    );
    assert_eq!(fresh.conversation, old.conversation);
    assert!(
        raised[0].text.contains("will delete 5 rows"),
        "{}",
        raised[0].text
    );
    // The model is told it did not run and that a new card waits.
    let note = fake.requests().last().unwrap().body["messages"].to_string();
    assert!(
        note.contains(&format!("[APPROVAL_PENDING:{}]", fresh.id)),
        "{note}"
    );
    assert!(note.contains("did NOT run"), "{note}");

    // Confirming the new card, as shown, runs with the effect the owner now saw.
    fake.push(Step::Reply(Reply::text("Purged.")));
    let (res, _) = confirm(&h, &raised[0]).await;
    assert_eq!(applied(&res).status, ActionStatus::Executed);
    assert_eq!(
        *purge.runs.lock().unwrap(),
        [Some("will delete 5 rows".to_owned())]
    );
}

#[tokio::test]
async fn an_action_left_running_reads_interrupted_it_may_have_run() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let h = setup(&fake, vec![Arc::new(tool.clone())]);
    let card = park(
        &fake,
        &h,
        "crash2",
        "send_email",
        r#"{"to":"c@example.com"}"#,
    )
    .await;
    // Simulate the crash window: the row says running (the tool had started).
    let mut action = h.steward.get(&card.action_id).await.unwrap().unwrap();
    action.id = format!("{}-running", card.action_id);
    action.status = ActionStatus::Running;
    let entry = AuditEntry {
        action_id: action.id.clone(),
        at_ms: 0,
        principal: PrincipalId::parse("owner").unwrap(),
        surface: Surface::Http,
        event: "created".into(),
        detail: String::new(),
        trace_id: action.trace_id.clone(),
    };
    h.store.insert_action(&action, &entry).await.unwrap();

    let marked = h
        .steward
        .start_approvals(Some(Duration::from_secs(3600)))
        .await
        .unwrap();
    assert_eq!(marked, 1);
    let after = h.steward.get(&action.id).await.unwrap().unwrap();
    assert_eq!(after.status, ActionStatus::Failed);
    let outcome = after.outcome.unwrap();
    assert!(
        outcome.starts_with("interrupted — it may have run"),
        "{outcome}"
    );
    assert!(!outcome.contains("not run"), "{outcome}");
    assert_eq!(audit(&h, &action.id).await, ["created", "interrupted"]);
    assert_eq!(tool.count(), 0, "never run again");
    let conv = ConversationId::parse("crash2").unwrap();
    let history = h.store.recent_messages(&conv, 50).await.unwrap();
    let notice = &history.last().unwrap().content;
    assert!(notice.contains("interrupted — it may have run"), "{notice}");
    assert!(!notice.contains("not run"), "{notice}");
}
