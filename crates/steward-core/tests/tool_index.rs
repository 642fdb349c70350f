//! The tool index in real turns against the fake model: what each model request carries
//! (core schemas, the `load_tools` index, loaded schemas), loading then calling, calling an
//! unloaded tool directly, unknown names, approvals on a loaded External tool, skills, and
//! byte-identical tool lists across turns.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::tools::Recorder;
use common::*;
use serde_json::Value;
use std::sync::Arc;
use steward_core::AgentSettings;
use steward_core::approvals::ApprovalSettings;
use steward_protocol::{Effect, TurnEvent};
use steward_testkit::{FakeModel, Reply, Step};
use steward_tools::ToolRegistry;
use steward_tools::skills::Skill;

struct Setup {
    fake: FakeModel,
    h: Harness,
    /// On demand, Read: runs without asking.
    lookup: Recorder,
    /// On demand, External: must park for approval even once loaded.
    mailer: Recorder,
}

async fn setup(skills: Vec<Skill>) -> Setup {
    let fake = FakeModel::start().await.unwrap();
    let lookup = Recorder::new("rare_lookup", Effect::Read);
    let mailer = Recorder::new("rare_mailer", Effect::External);
    let mut tools: ToolRegistry = steward_tools::builtin_registry();
    tools.register_on_demand(Arc::new(lookup.clone())).unwrap();
    tools.register_on_demand(Arc::new(mailer.clone())).unwrap();
    tools.set_skills(skills);
    let h = harness_full(
        fake_models(&fake),
        AgentSettings::default(),
        Some("openai:gpt-test"),
        tools,
        ApprovalSettings::default(),
    );
    Setup {
        fake,
        h,
        lookup,
        mailer,
    }
}

/// The function objects of request `i`'s `tools`.
fn tools_of(fake: &FakeModel, i: usize) -> Vec<Value> {
    fake.requests()[i].body["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn names_of(fake: &FakeModel, i: usize) -> Vec<String> {
    tools_of(fake, i)
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

fn tool_of(fake: &FakeModel, i: usize, name: &str) -> Option<Value> {
    tools_of(fake, i)
        .into_iter()
        .find(|t| t["function"]["name"] == name)
}

fn finished(events: &[TurnEvent], name: &str) -> Vec<(bool, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolFinished {
                name: n,
                ok,
                output,
                ..
            } if n == name => Some((*ok, output.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn load_then_call_sends_the_schema_only_after_loading_and_approvals_still_apply() {
    let s = setup(Vec::new()).await;
    s.fake.push_many([
        Step::Reply(Reply::tool_call(
            "load_tools",
            r#"{"names":["rare_lookup","rare_mailer"]}"#,
        )),
        Step::Reply(
            Reply::default()
                .with_call("rare_lookup", r#"{"to":"ann"}"#)
                .with_call("rare_mailer", r#"{"to":"bob@example.com"}"#),
        ),
        Step::Reply(Reply::text("Looked up; the mail waits for your approval.")),
    ]);
    let events = collect(&s.h.steward, inbound("idx1", "look up ann and mail bob")).await;
    assert_eq!(
        final_text(&events),
        "Looked up; the mail waits for your approval."
    );

    // First request: no on-demand schema, but the index names both tools.
    let first = names_of(&s.fake, 0);
    assert!(first.contains(&"load_tools".to_owned()), "{first:?}");
    assert!(!first.contains(&"rare_lookup".to_owned()), "{first:?}");
    let index = tool_of(&s.fake, 0, "load_tools").unwrap()["function"]["description"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        index.contains("rare_lookup: test tool with a side effect")
            && index.contains("rare_mailer"),
        "{index}"
    );
    let (ok, out) = &finished(&events, "load_tools")[0];
    assert!(ok, "{out}");
    assert!(out.starts_with("Loaded: rare_lookup, rare_mailer"), "{out}");

    // Second request: both full schemas, appended after the index.
    let second = names_of(&s.fake, 1);
    assert_eq!(&second[second.len() - 2..], ["rare_lookup", "rare_mailer"]);
    let schema = tool_of(&s.fake, 1, "rare_mailer").unwrap();
    assert_eq!(schema["function"]["parameters"]["required"][0], "to");

    // The Read tool ran; the External one was parked, not run.
    assert_eq!(s.lookup.count(), 1);
    assert_eq!(
        s.mailer.count(),
        0,
        "a loaded External tool still needs approval"
    );
    let cards = events
        .iter()
        .filter(|e| matches!(e, TurnEvent::ApprovalRequired { .. }))
        .count();
    assert_eq!(cards, 1, "{events:?}");
    let third = s.fake.requests()[2].body["messages"].to_string();
    assert!(third.contains("APPROVAL_PENDING"), "{third}");
}

#[tokio::test]
async fn an_unloaded_tool_called_directly_runs_and_stays_loaded_for_the_next_turn() {
    let s = setup(Vec::new()).await;
    s.fake.push_many([
        Step::Reply(Reply::tool_call("rare_lookup", r#"{"to":"ann"}"#)),
        Step::Reply(Reply::text("done")),
        Step::Reply(Reply::text("second turn")),
    ]);
    let events = collect(&s.h.steward, inbound("idx2", "look up ann")).await;
    assert_eq!(final_text(&events), "done");
    assert_eq!(s.lookup.count(), 1);
    assert!(finished(&events, "rare_lookup")[0].0);
    assert!(tool_of(&s.fake, 0, "rare_lookup").is_none());
    assert!(tool_of(&s.fake, 1, "rare_lookup").is_some());
    // The next turn starts with it loaded: no round trip to load it again.
    let events = collect(&s.h.steward, inbound("idx2", "again")).await;
    assert_eq!(final_text(&events), "second turn");
    assert!(tool_of(&s.fake, 2, "rare_lookup").is_some());
    // Another conversation has not loaded it.
    s.fake.push(Step::Reply(Reply::text("other")));
    collect(&s.h.steward, inbound("idx2-other", "hi")).await;
    assert!(tool_of(&s.fake, 3, "rare_lookup").is_none());
}

#[tokio::test]
async fn unknown_names_get_near_matches() {
    let s = setup(Vec::new()).await;
    s.fake.push_many([
        Step::Reply(Reply::tool_call(
            "load_tools",
            r#"{"names":["rare_lookp"]}"#,
        )),
        Step::Reply(Reply::tool_call("rare_lokup", r#"{"to":"x"}"#)),
        Step::Reply(Reply::tool_call("load_tools", r#"{"names":[]}"#)),
        Step::Reply(Reply::text("gave up")),
    ]);
    let events = collect(&s.h.steward, inbound("idx3", "hm")).await;
    assert_eq!(final_text(&events), "gave up");
    let loads = finished(&events, "load_tools");
    assert!(!loads[0].0);
    assert!(
        loads[0]
            .1
            .contains("No tool named `rare_lookp`; did you mean: rare_lookup"),
        "{}",
        loads[0].1
    );
    assert!(
        !loads[1].0 && loads[1].1.contains("give 1 to 16 tool names"),
        "{}",
        loads[1].1
    );
    let direct = finished(&events, "rare_lokup");
    assert!(!direct[0].0);
    assert!(
        direct[0].1.contains("unknown tool `rare_lokup`"),
        "{}",
        direct[0].1
    );
    assert_eq!(s.lookup.count(), 0);
    // Nothing was loaded by the failed attempts.
    assert!(tool_of(&s.fake, 3, "rare_lookup").is_none());
}

#[tokio::test]
async fn tool_list_and_system_prompt_are_byte_identical_across_turns() {
    let s = setup(Vec::new()).await;
    s.fake.push_many([
        Step::Reply(Reply::text("one")),
        Step::Reply(Reply::text("two")),
    ]);
    collect(&s.h.steward, inbound("idx4", "first")).await;
    collect(&s.h.steward, inbound("idx4", "second")).await;
    let reqs = s.fake.requests();
    let bytes = |i: usize| {
        (
            serde_json::to_string(&reqs[i].body["tools"]).unwrap(),
            serde_json::to_string(&reqs[i].body["messages"][0]).unwrap(),
        )
    };
    assert_eq!(bytes(0), bytes(1));
    assert!(bytes(0).0.contains("load_tools"));
}

#[tokio::test]
async fn read_skill_returns_instructions_and_loads_the_skills_tools() {
    let skill = Skill {
        name: "mail-merge".into(),
        description: "Send one mail per contact.".into(),
        tools: vec![
            "rare_mailer".into(),
            "current_time".into(),
            "gone_tool".into(),
        ],
        instructions: "1. Ask for the list.\n2. Draft each mail.".into(),
        path: "/skills/mail-merge/SKILL.md".into(),
    };
    let s = setup(vec![skill]).await;
    s.fake.push_many([
        Step::Reply(Reply::tool_call("read_skill", r#"{"name":"mail-merge"}"#)),
        Step::Reply(Reply::tool_call(
            "read_skill",
            r#"{"name":"../etc/passwd"}"#,
        )),
        Step::Reply(Reply::text("ready")),
    ]);
    let events = collect(&s.h.steward, inbound("idx5", "merge")).await;
    assert_eq!(final_text(&events), "ready");
    let listing = tool_of(&s.fake, 0, "read_skill").unwrap()["function"]["description"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        listing.contains("- mail-merge: Send one mail per contact."),
        "{listing}"
    );
    let reads = finished(&events, "read_skill");
    assert!(reads[0].0);
    assert!(reads[0].1.contains("2. Draft each mail."), "{}", reads[0].1);
    assert!(
        reads[0].1.contains("Loaded for this skill: rare_mailer."),
        "{}",
        reads[0].1
    );
    assert!(
        reads[0].1.contains("Already available: current_time."),
        "{}",
        reads[0].1
    );
    assert!(
        reads[0].1.contains("Not available right now: gone_tool."),
        "{}",
        reads[0].1
    );
    assert!(!reads[1].0);
    assert!(
        reads[1].1.contains("no skill named `../etc/passwd`"),
        "{}",
        reads[1].1
    );
    assert!(tool_of(&s.fake, 0, "rare_mailer").is_none());
    assert!(tool_of(&s.fake, 1, "rare_mailer").is_some());
}
