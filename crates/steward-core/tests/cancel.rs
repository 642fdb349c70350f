//! Per-turn cancel: stopping a conversation's running turn during a slow model call or a slow
//! tool ends it with one `Failed{cancelled}`, stores no half-done assistant message, and lets
//! the next queued turn run; cancelling an idle conversation changes nothing.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::tools::Sleeper;
use common::*;
use std::time::Duration;
use steward_core::approvals::ApprovalSettings;
use steward_core::{AgentSettings, Assistant};
use steward_protocol::{ConversationId, FailureKind, Role, TurnEvent};
use steward_store::ConversationStore;
use steward_testkit::{FakeModel, Reply, Step};

fn cancelled_once(events: &[TurnEvent]) {
    let terminals: Vec<_> = events.iter().filter(|e| e.is_terminal()).collect();
    assert_eq!(terminals.len(), 1, "exactly one terminal event: {events:?}");
    assert!(
        matches!(
            terminals[0],
            TurnEvent::Failed {
                kind: FailureKind::Cancelled,
                retryable: false,
                ..
            }
        ),
        "{events:?}"
    );
    assert!(
        matches!(events.last(), Some(TurnEvent::Failed { .. })),
        "terminal last"
    );
}

#[tokio::test]
async fn cancel_during_a_slow_model_call_stops_only_that_turn() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Hang);
    fake.push(Step::Reply(Reply::text("the next one")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));
    let conv = ConversationId::parse("cancel-model").unwrap();
    let slow = h.steward.submit(inbound("cancel-model", "take forever"));
    let queued = h.steward.submit(inbound("cancel-model", "and then this"));
    assert!(fake.wait_for_requests(1, Duration::from_secs(10)).await);

    assert!(h.steward.cancel(&conv), "a turn was running");
    let events = tokio::time::timeout(Duration::from_secs(10), drain(slow))
        .await
        .expect("the cancelled turn ends promptly");
    cancelled_once(&events);

    // The queued turn still runs, in order, and answers.
    let next = tokio::time::timeout(Duration::from_secs(10), drain(queued))
        .await
        .unwrap();
    assert_eq!(final_text(&next), "the next one");

    // What the user said is kept; nothing half-done from the stopped turn is.
    let stored = h.store.recent_messages(&conv, 50).await.unwrap();
    let roles: Vec<Role> = stored.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::User, Role::Assistant],
        "{stored:?}"
    );
    assert_eq!(stored[2].content, "the next one");
}

#[tokio::test]
async fn cancel_during_a_slow_tool_stores_no_half_round() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call("slow_lookup", "{}")));
    let sleeper = Sleeper::default();
    let mut tools = steward_tools::builtin_registry();
    tools
        .register(std::sync::Arc::new(sleeper.clone()))
        .unwrap();
    let h = harness_full(
        fake_models(&fake),
        AgentSettings::default(),
        Some("openai:gpt-test"),
        tools,
        ApprovalSettings::default(),
    );
    let conv = ConversationId::parse("cancel-tool").unwrap();
    let turn = h.steward.submit(inbound("cancel-tool", "look it up"));
    tokio::time::timeout(Duration::from_secs(10), sleeper.started.notified())
        .await
        .expect("the tool started");

    assert!(h.steward.cancel(&conv));
    let events = tokio::time::timeout(Duration::from_secs(10), drain(turn))
        .await
        .expect("the cancelled turn ends promptly");
    cancelled_once(&events);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, TurnEvent::ToolStarted { .. })),
        "it was stopped inside the tool round: {events:?}"
    );
    assert!(
        !sleeper.finished.load(std::sync::atomic::Ordering::SeqCst),
        "the tool was stopped, not waited for"
    );
    let stored = h.store.recent_messages(&conv, 50).await.unwrap();
    let roles: Vec<Role> = stored.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User],
        "no assistant call without its result, no result: {stored:?}"
    );
    // The conversation is usable at once.
    fake.push(Step::Reply(Reply::text("fine")));
    let again = drain(h.steward.submit(inbound("cancel-tool", "never mind"))).await;
    assert_eq!(final_text(&again), "fine");
    assert!(!h.steward.cancel(&conv), "nothing runs any more");
}

#[tokio::test]
async fn cancelling_an_idle_conversation_is_a_no_op() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("hello")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));
    let conv = ConversationId::parse("idle").unwrap();
    assert!(!h.steward.cancel(&conv), "never used");
    let events = drain(h.steward.submit(inbound("idle", "hi"))).await;
    assert_eq!(final_text(&events), "hello");
    assert!(!h.steward.cancel(&conv), "finished");
    assert!(
        !h.steward.cancel(&ConversationId::parse("other").unwrap()),
        "another conversation"
    );
    assert_eq!(h.store.recent_messages(&conv, 10).await.unwrap().len(), 2);
}
