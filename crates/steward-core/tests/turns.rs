//! The agent loop end to end against the fake model: tools, malformed tool calls,
//! budgets, history across turns, and a byte-stable system prompt.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use serde_json::Value;
use steward_core::AgentSettings;
use steward_protocol::{FailureKind, TurnEvent};
use steward_store::ConversationStore;
use steward_testkit::{FakeModel, Reply, Step};

fn kinds(events: &[TurnEvent]) -> Vec<&'static str> {
    events.iter().map(TurnEvent::name).collect()
}

fn messages_of(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_tool_call_runs_and_its_result_reaches_the_model() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "calculate",
        r#"{"expression":"6*7"}"#,
    )));
    fake.push(Step::Reply(Reply::text("The answer is 42.")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));

    let events = collect(&h.steward, inbound("c1", "what is 6*7?")).await;
    assert_eq!(
        kinds(&events),
        ["started", "tool_started", "tool_finished"]
            .into_iter()
            .chain(std::iter::repeat_n("text_delta", kinds(&events).len() - 4))
            .chain(["final"])
            .collect::<Vec<_>>()
    );
    match &events[2] {
        TurnEvent::ToolFinished {
            ok, output, name, ..
        } => {
            assert!(*ok, "{output}");
            assert_eq!(name, "calculate");
            assert!(output.contains("42"), "{output}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(final_text(&events), "The answer is 42.");

    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    let second = messages_of(&reqs[1].body);
    let tool_msg = second
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("tool result sent back");
    assert!(tool_msg["content"].as_str().unwrap().contains("42"));
    assert!(
        reqs[0].body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "calculate")
    );

    // Stored: user, assistant(tool call), tool result, assistant answer.
    let conv = steward_protocol::ConversationId::parse("c1").unwrap();
    let stored = h.store.recent_messages(&conv, 10).await.unwrap();
    let roles: Vec<_> = stored.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(
        stored[0].content, "what is 6*7?",
        "the user's own words are stored, not the context block"
    );
}

#[tokio::test]
async fn malformed_tool_arguments_go_back_to_the_model_as_an_error() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "calculate",
        r#"{"expression": "1+"#,
    )));
    fake.push(Step::Reply(Reply::text("Sorry, let me fix that.")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));

    let events = collect(&h.steward, inbound("c2", "compute")).await;
    let finished = events
        .iter()
        .find_map(|e| match e {
            TurnEvent::ToolFinished { ok, output, .. } => Some((*ok, output.clone())),
            _ => None,
        })
        .expect("tool finished event");
    assert!(!finished.0, "malformed arguments must fail the call");
    assert_eq!(final_text(&events), "Sorry, let me fix that.");
    let second = messages_of(&fake.requests()[1].body);
    let tool_msg = second.iter().find(|m| m["role"] == "tool").unwrap();
    assert!(
        tool_msg["content"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("error")
    );
}

#[tokio::test]
async fn an_unknown_tool_is_an_error_for_the_model_not_a_crash() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call("launch_rockets", "{}")));
    fake.push(Step::Reply(Reply::text("I cannot do that.")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));
    let events = collect(&h.steward, inbound("c3", "launch")).await;
    assert_eq!(final_text(&events), "I cannot do that.");
}

#[tokio::test]
async fn history_is_sent_with_the_next_turn_and_the_system_prompt_is_byte_stable() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("Nice to meet you, Ada.")));
    fake.push(Step::Reply(Reply::text("Your name is Ada.")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));
    collect(&h.steward, inbound("c4", "my name is Ada")).await;
    let events = collect(&h.steward, inbound("c4", "what is my name?")).await;
    assert_eq!(final_text(&events), "Your name is Ada.");

    let reqs = fake.requests();
    let first = messages_of(&reqs[0].body);
    let second = messages_of(&reqs[1].body);
    assert_eq!(first[0]["role"], "system");
    assert_eq!(
        first[0], second[0],
        "system prompt must be byte-identical across turns"
    );
    let texts: Vec<String> = second
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(texts.iter().any(|t| t == "my name is Ada"));
    assert!(texts.iter().any(|t| t == "Nice to meet you, Ada."));
    assert!(texts.last().unwrap().ends_with("what is my name?"));
    assert!(texts.last().unwrap().starts_with("<context>"));
}

#[tokio::test]
async fn no_model_gives_a_clear_failure_and_runs_nothing() {
    let fake = FakeModel::start().await.unwrap();
    let h = harness(&fake, AgentSettings::default(), None);
    let events = collect(&h.steward, inbound("c5", "hello")).await;
    match events.last() {
        Some(TurnEvent::Failed { kind, message, .. }) => {
            assert_eq!(*kind, FailureKind::NoModel);
            assert!(message.contains("STEWARD_MODEL"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.request_count(), 0);
}

#[tokio::test]
async fn the_round_budget_stops_an_endless_tool_loop() {
    let fake = FakeModel::start().await.unwrap();
    fake.set_default(Reply::tool_call("calculate", r#"{"expression":"1+1"}"#));
    let settings = AgentSettings {
        max_rounds: 3,
        ..AgentSettings::default()
    };
    let h = harness(&fake, settings, Some("openai:gpt-test"));
    let events = collect(&h.steward, inbound("c6", "loop")).await;
    match events.last() {
        Some(TurnEvent::Failed { kind, message, .. }) => {
            assert_eq!(*kind, FailureKind::Budget);
            assert!(message.contains("max_rounds"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.request_count(), 3);
}

#[tokio::test]
async fn the_token_budget_stops_the_turn() {
    let fake = FakeModel::start().await.unwrap();
    fake.set_default(Reply::tool_call("calculate", r#"{"expression":"1+1"}"#).with_usage(900, 200));
    let settings = AgentSettings {
        max_turn_tokens: 2000,
        ..AgentSettings::default()
    };
    let h = harness(&fake, settings, Some("openai:gpt-test"));
    let events = collect(&h.steward, inbound("c7", "loop")).await;
    assert!(
        matches!(
            events.last(),
            Some(TurnEvent::Failed {
                kind: FailureKind::Budget,
                ..
            })
        ),
        "{events:?}"
    );
    assert_eq!(
        fake.request_count(),
        2,
        "1100 tokens after the first call, 2200 after the second"
    );
}

#[tokio::test]
async fn the_wall_clock_budget_stops_a_hanging_model() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Hang);
    let settings = AgentSettings {
        turn_timeout: std::time::Duration::from_millis(300),
        ..AgentSettings::default()
    };
    let h = harness(&fake, settings, Some("openai:gpt-test"));
    let events = collect(&h.steward, inbound("c8", "hi")).await;
    assert!(
        matches!(
            events.last(),
            Some(TurnEvent::Failed {
                kind: FailureKind::Budget,
                ..
            })
        ),
        "{events:?}"
    );
}

#[tokio::test]
async fn an_unreachable_model_fails_clearly_without_hanging() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let models = steward_llm::Models::new(
        vec![openai_provider(format!("http://127.0.0.1:{port}/v1"))],
        fast_retry(),
    )
    .unwrap();
    let h = harness_with(models, AgentSettings::default(), Some("openai:gpt-test"));
    let events = collect(&h.steward, inbound("c9", "hi")).await;
    match events.last() {
        Some(TurnEvent::Failed {
            kind,
            retryable,
            message,
        }) => {
            assert_eq!(*kind, FailureKind::Model);
            assert!(*retryable);
            assert!(!message.contains("sk-test-not-a-real-key"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_nul_byte_in_the_message_does_not_fail_the_turn() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("got it")));
    let h = harness(&fake, AgentSettings::default(), Some("openai:gpt-test"));
    let events = collect(&h.steward, inbound("c10", "a\0b")).await;
    assert_eq!(final_text(&events), "got it");
    let conv = steward_protocol::ConversationId::parse("c10").unwrap();
    let stored = h.store.recent_messages(&conv, 10).await.unwrap();
    assert_eq!(stored[0].content, "a\u{FFFD}b");
}

#[tokio::test]
async fn the_model_is_told_the_time_of_the_injected_clock() {
    use steward_protocol::ManualClock;
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("It is Tuesday morning.")));
    fake.push(Step::Reply(Reply::text("Still Tuesday.")));
    let clock = ManualClock::at_ms(1_784_023_200_000); // 2026-07-14 10:00 UTC, a Tuesday
    let h = harness_clocked(
        fake_models(&fake),
        AgentSettings::default(),
        Some("openai:gpt-test"),
        steward_tools::builtin_registry(),
        steward_core::approvals::ApprovalSettings::default(),
        clock.clone(),
    );
    collect(&h.steward, inbound("clocked", "what day is it?")).await;
    clock.advance(std::time::Duration::from_secs(3 * 3600 + 25 * 60));
    collect(&h.steward, inbound("clocked", "and now?")).await;

    let reqs = fake.requests();
    let last_text = |i: usize| {
        let messages = messages_of(&reqs[i].body);
        messages.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(
        last_text(0).contains("current time: 2026-07-14 10:00 UTC, Tuesday"),
        "{}",
        last_text(0)
    );
    assert!(
        last_text(1).contains("current time: 2026-07-14 13:25 UTC, Tuesday"),
        "{}",
        last_text(1)
    );
    // The store stamps the conversation from the same clock.
    let summary = h
        .store
        .conversation(&steward_protocol::ConversationId::parse("clocked").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(summary.created_at_ms, 1_784_023_200_000);
    assert_eq!(summary.updated_at_ms, 1_784_023_200_000 + 12_300_000);
}

#[tokio::test]
async fn an_idempotency_key_replays_for_a_day_by_the_clock_then_runs_anew() {
    use std::time::Duration;
    use steward_protocol::ManualClock;
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("Booked.")));
    let clock = ManualClock::starting_now();
    let h = harness_clocked(
        fake_models(&fake),
        AgentSettings::default(),
        Some("openai:gpt-test"),
        steward_tools::builtin_registry(),
        steward_core::approvals::ApprovalSettings::default(),
        clock.clone(),
    );
    let keyed = || {
        let mut msg = inbound("keyed", "book the table");
        msg.request = Some(steward_core::idempotency_key("client-key-1"));
        msg
    };
    assert_eq!(final_text(&collect(&h.steward, keyed()).await), "Booked.");

    // A day later, to the millisecond, the same key is still the same request: replayed.
    clock.advance(Duration::from_secs(24 * 3600));
    assert_eq!(final_text(&collect(&h.steward, keyed()).await), "Booked.");
    assert_eq!(fake.request_count(), 1, "a replay calls no model");

    // Past the day it is a new request.
    clock.advance(Duration::from_millis(1));
    fake.push(Step::Reply(Reply::text("Booked again.")));
    assert_eq!(
        final_text(&collect(&h.steward, keyed()).await),
        "Booked again."
    );
    assert_eq!(fake.request_count(), 2);
}
