//! Memory around the turn: remembered context in the user turn (fenced, system prompt
//! untouched), bare links saved without the model, facts extracted after the exchange
//! through the quality gate.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use std::time::Duration;
use steward_protocol::{FactSource, Provenance};
use steward_store::{MemoryStore, NewFact, NewNote};
use steward_testkit::{FakeModel, Reply, Step};

#[tokio::test]
async fn remembered_facts_and_notes_reach_the_user_turn_not_the_system_prompt() {
    let fake = FakeModel::start().await.unwrap();
    let (h, memory) = harness_with_memory(&fake, false);
    memory
        .user_set_fact("owner", "dog_name", "Biscuit")
        .await
        .unwrap();
    memory
        .save_note(
            "owner",
            NewNote {
                title: "Vet appointment".into(),
                body: "Biscuit sees the vet on Friday at 10am for his vaccines.".into(),
                tags: vec!["pets".into()],
                provenance: Provenance::User { conversation: None },
            },
        )
        .await
        .unwrap();
    fake.push(Step::Reply(Reply::text("Friday at 10.")));
    collect(
        &h.steward,
        inbound("m1", "when is the vet appointment for Biscuit?"),
    )
    .await;
    let body = &fake.requests()[0].body;
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        !system.contains("Biscuit"),
        "memory never enters the system prompt"
    );
    let user = body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(user.contains("<memory"), "{user}");
    assert!(user.contains("Biscuit sees the vet on Friday"), "{user}");
    assert!(user.ends_with("when is the vet appointment for Biscuit?"));
}

#[tokio::test]
async fn a_bare_link_is_saved_for_later_without_calling_the_model() {
    let fake = FakeModel::start().await.unwrap();
    let (h, _memory) = harness_with_memory(&fake, true);
    let events = collect(
        &h.steward,
        inbound("m2", "https://example.com/article?id=7"),
    )
    .await;
    assert!(final_text(&events).contains("read later"));
    assert_eq!(fake.request_count(), 0);
    let saved = h
        .store
        .list_read_later("owner", &[], false, 10)
        .await
        .unwrap();
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].url, "https://example.com/article?id=7");
}

#[tokio::test]
async fn facts_are_extracted_after_the_exchange_and_never_override_the_user() {
    let fake = FakeModel::start().await.unwrap();
    let (h, memory) = harness_with_memory(&fake, true);
    memory
        .user_set_fact("owner", "home_city", "Lyon")
        .await
        .unwrap();
    fake.push(Step::Reply(Reply::text("Noted, you like hiking.")));
    fake.push(Step::Reply(Reply::text(
        r#"{"facts":[{"key":"hobby","value":"hiking","confidence":0.95,"evidence":"user"},{"key":"home_city","value":"Paris","confidence":0.9,"evidence":"user"}]}"#,
    )));
    collect(&h.steward, inbound("m3", "I love hiking on weekends")).await;
    assert!(
        fake.wait_for_requests(2, Duration::from_secs(10)).await,
        "extraction ran after the turn"
    );
    let mut hobby = None;
    for _ in 0..100 {
        hobby = h.store.get_fact("owner", "hobby").await.unwrap();
        if hobby.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let hobby = hobby.expect("extracted fact stored");
    assert_eq!(hobby.value, "hiking");
    assert_eq!(hobby.source, FactSource::Extracted);
    let city = h
        .store
        .get_fact("owner", "home_city")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(city.value, "Lyon", "the user's own fact wins");
    assert_eq!(city.source, FactSource::User);
    // The extraction model saw the exchange, not the system prompt of the chat.
    let extraction = fake.requests()[1].body.to_string();
    assert!(extraction.contains("I love hiking on weekends"));

    // And an extracted fact never beats a user edit later either.
    let w = h
        .store
        .upsert_fact(
            "owner",
            &NewFact {
                key: "hobby".into(),
                value: "chess".into(),
                source: FactSource::User,
                confidence: 1.0,
                expires_at_ms: None,
                provenance: Provenance::User { conversation: None },
            },
            1,
        )
        .await
        .unwrap();
    assert!(matches!(w, steward_store::FactWrite::Updated(_)));
}

#[tokio::test]
async fn a_memory_tool_writes_under_the_principal_of_the_turn_that_called_it() {
    use std::sync::Arc;
    use steward_core::approvals::ApprovalSettings;
    use steward_core::{AgentSettings, ModelBinding, Steward, StewardDeps};
    use steward_protocol::{ConversationId, Inbound, Principal, PrincipalId, Surface};
    let fake = FakeModel::start().await.unwrap();
    let store = steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let memory = Arc::new(steward_memory::Memory::new(
        store.clone(),
        None,
        steward_memory::MemoryConfig::default(),
    ));
    let mut tools = steward_tools::builtin_registry();
    for tool in steward_tools::memory_tools(memory.clone()) {
        tools.register(tool).unwrap();
    }
    let steward = Steward::new(StewardDeps {
        store: store.clone(),
        models: Arc::new(fake_models(&fake)),
        tools: Arc::new(tools),
        settings: AgentSettings::default(),
        binding: ModelBinding {
            primary: Some(steward_llm::ModelRef::parse("openai:gpt-test").unwrap()),
            fallback: None,
        },
        approvals: ApprovalSettings::default(),
        memory: None,
        secrets: Vec::new(),
        clock: steward_protocol::SystemClock::shared(),
        blobs: None,
    });
    fake.push(Step::Reply(Reply::tool_call(
        "remember",
        r#"{"key":"home.city","value":"Oslo"}"#,
    )));
    fake.push(Step::Reply(Reply::text("Noted.")));
    // A second person of the household, as a surface authenticated them.
    let bob = Principal::authenticated(PrincipalId::parse("bob").unwrap());
    let events = collect(
        &steward,
        Inbound::new(
            ConversationId::parse("bob-chat").unwrap(),
            bob,
            Surface::Cli,
            "I live in Oslo",
        ),
    )
    .await;
    assert_eq!(final_text(&events), "Noted.");
    let bobs = memory.get_fact("bob", "home.city").await.unwrap();
    assert_eq!(bobs.map(|f| f.value).as_deref(), Some("Oslo"));
    assert!(
        memory
            .get_fact("owner", "home.city")
            .await
            .unwrap()
            .is_none(),
        "nothing written for a principal bound at wiring"
    );
}
