//! Turns in one conversation run one at a time in arrival order; conversations run
//! concurrently; shutdown lets running turns finish, then refuses new ones.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use std::time::Duration;
use steward_core::{AgentSettings, Assistant};
use steward_protocol::{FailureKind, TurnEvent};
use steward_testkit::{FakeModel, Reply, Step};

#[tokio::test]
async fn two_messages_to_one_conversation_are_answered_in_order() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Delay {
        ms: 300,
        then: Box::new(Step::Reply(Reply::text("first answer"))),
    });
    fake.push(Step::Reply(Reply::text("second answer")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));

    let a = h.steward.submit(inbound("same", "first question"));
    let b = h.steward.submit(inbound("same", "second question"));
    let (ea, eb) = tokio::join!(drain(a), drain(b));
    assert_eq!(final_text(&ea), "first answer");
    assert_eq!(final_text(&eb), "second answer");

    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    let second: Vec<String> = reqs[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(second.contains(&"first question".to_owned()), "{second:?}");
    assert!(second.contains(&"first answer".to_owned()), "{second:?}");
    assert!(second.last().unwrap().ends_with("second question"));
}

#[tokio::test]
async fn different_conversations_do_not_wait_for_each_other() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Delay {
        ms: 3000,
        then: Box::new(Step::Reply(Reply::text("slow"))),
    });
    fake.push(Step::Reply(Reply::text("fast")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));

    let slow = h.steward.submit(inbound("slow-conv", "take your time"));
    assert!(fake.wait_for_requests(1, Duration::from_secs(10)).await);
    let fast = drain(h.steward.submit(inbound("fast-conv", "quick"))).await;
    assert_eq!(final_text(&fast), "fast");
    // The slow turn is still running when the fast one has finished.
    assert!(h.steward.busy_conversations() >= 1);
    assert_eq!(final_text(&drain(slow).await), "slow");
}

#[tokio::test]
async fn shutdown_lets_a_running_turn_finish_then_refuses_new_ones() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Delay {
        ms: 400,
        then: Box::new(Step::Reply(Reply::text("finished"))),
    });
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));
    let running = h.steward.submit(inbound("s1", "work"));
    assert!(fake.wait_for_requests(1, Duration::from_secs(10)).await);
    h.steward.shutdown(Duration::from_secs(10)).await;
    assert_eq!(final_text(&drain(running).await), "finished");

    let late = drain(h.steward.submit(inbound("s2", "too late"))).await;
    assert!(
        matches!(
            late.last(),
            Some(TurnEvent::Failed {
                kind: FailureKind::Shutdown,
                ..
            })
        ),
        "{late:?}"
    );
    assert_eq!(fake.request_count(), 1);
}

#[tokio::test]
async fn shutdown_cancels_turns_that_outlive_the_grace_period() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Hang);
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));
    let running = h.steward.submit(inbound("s3", "hang"));
    assert!(fake.wait_for_requests(1, Duration::from_secs(10)).await);
    h.steward.shutdown(Duration::from_millis(100)).await;
    let events = drain(running).await;
    assert!(
        matches!(
            events.last(),
            Some(TurnEvent::Failed {
                kind: FailureKind::Shutdown,
                ..
            })
        ),
        "{events:?}"
    );
}
