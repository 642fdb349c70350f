//! Shared set-up: a real in-memory SQLite store, the real OpenAI-compatible client and the
//! builtin tools, against the fake model server.
#![allow(dead_code)]

pub mod tools;

use std::sync::Arc;
use std::time::Duration;
use steward_core::approvals::ApprovalSettings;
use steward_core::{AgentSettings, Assistant, ModelBinding, Steward, StewardDeps};
use steward_llm::{ModelRef, Models, ProviderConfig, ProviderKind, RetryPolicy};
use steward_protocol::{
    Clock, ConversationId, Inbound, Principal, PrincipalId, Surface, SystemClock, TurnEvent,
};
use steward_store::StoreConfig;
use steward_testkit::FakeModel;
use steward_tools::ToolRegistry;

pub fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(20),
        max_retry_after: Duration::from_millis(50),
    }
}

pub fn openai_provider(base_url: String) -> ProviderConfig {
    ProviderConfig {
        name: "openai".into(),
        kind: ProviderKind::OpenAi,
        base_url,
        api_key: Some("sk-test-not-a-real-key".into()),
        stream: true,
        request_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        parts: None,
    }
}

pub struct Harness {
    pub steward: Steward,
    pub store: Arc<dyn steward_store::Store>,
}

pub fn harness(fake: &FakeModel, settings: AgentSettings, model: Option<&str>) -> Harness {
    let models = Models::new(vec![openai_provider(fake.openai_base_url())], fast_retry()).unwrap();
    harness_with(models, settings, model)
}

pub fn harness_with(models: Models, settings: AgentSettings, model: Option<&str>) -> Harness {
    harness_full(
        models,
        settings,
        model,
        steward_tools::builtin_registry(),
        ApprovalSettings::default(),
    )
}

pub fn harness_full(
    models: Models,
    settings: AgentSettings,
    model: Option<&str>,
    tools: ToolRegistry,
    approvals: ApprovalSettings,
) -> Harness {
    harness_clocked(
        models,
        settings,
        model,
        tools,
        approvals,
        SystemClock::shared(),
    )
}

/// [`harness_full`] with the store and the assistant on `clock` (a test's `ManualClock`).
pub fn harness_clocked(
    models: Models,
    settings: AgentSettings,
    model: Option<&str>,
    tools: ToolRegistry,
    approvals: ApprovalSettings,
    clock: Arc<dyn Clock>,
) -> Harness {
    let store = steward_store::open(&StoreConfig::in_memory().with_clock(clock.clone())).unwrap();
    let steward = Steward::new(StewardDeps {
        store: store.clone(),
        models: Arc::new(models),
        tools: Arc::new(tools),
        settings,
        binding: ModelBinding {
            primary: model.map(|m| ModelRef::parse(m).unwrap()),
            fallback: None,
        },
        approvals,
        memory: None,
        secrets: Vec::new(),
        clock,
        blobs: None,
    });
    Harness { steward, store }
}

pub fn fake_models(fake: &FakeModel) -> Models {
    Models::new(vec![openai_provider(fake.openai_base_url())], fast_retry()).unwrap()
}

pub fn inbound(conv: &str, text: &str) -> Inbound {
    Inbound::new(
        ConversationId::parse(conv).unwrap(),
        Principal::authenticated(PrincipalId::parse("owner").unwrap()),
        Surface::Cli,
        text,
    )
}

/// All events of one turn, failing the test if the turn does not end within 20 s.
pub async fn collect(steward: &Steward, msg: Inbound) -> Vec<TurnEvent> {
    let rx = steward.submit(msg);
    drain(rx).await
}

pub async fn drain(mut rx: tokio::sync::mpsc::Receiver<TurnEvent>) -> Vec<TurnEvent> {
    let mut out = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(20), rx.recv()).await {
            Ok(Some(ev)) => out.push(ev),
            Ok(None) => return out,
            Err(_) => panic!("turn did not finish; events so far: {out:?}"),
        }
    }
}

pub fn final_text(events: &[TurnEvent]) -> String {
    match events.last() {
        Some(TurnEvent::Final { text, .. }) => text.clone(),
        other => panic!("expected a Final event last, got {other:?} in {events:?}"),
    }
}

/// A harness with memory on (no embedder: full-text recall), sharing the turn's store.
pub fn harness_with_memory(
    fake: &FakeModel,
    extract: bool,
) -> (Harness, Arc<steward_memory::Memory>) {
    let store = steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let memory = Arc::new(steward_memory::Memory::new(
        store.clone(),
        None,
        steward_memory::MemoryConfig::default(),
    ));
    let steward = Steward::new(StewardDeps {
        store: store.clone(),
        models: Arc::new(fake_models(fake)),
        tools: Arc::new(steward_tools::builtin_registry()),
        settings: AgentSettings::default(),
        binding: ModelBinding {
            primary: Some(ModelRef::parse("openai:gpt-test").unwrap()),
            fallback: None,
        },
        approvals: ApprovalSettings::default(),
        memory: Some(steward_core::MemoryWiring {
            memory: memory.clone(),
            extract,
            extraction_model: None,
        }),
        secrets: Vec::new(),
        clock: SystemClock::shared(),
        blobs: None,
    });
    (Harness { steward, store }, memory)
}

/// Resolve as the owner and let any follow-up turn run to its end. Returns the resolution
/// (its follow-up stream taken out) and the follow-up's events.
pub async fn resolve_and_finish(
    steward: &Steward,
    id: &str,
    decision: steward_protocol::Decision,
    surface: Surface,
) -> (steward_core::Resolution, Vec<TurnEvent>) {
    use steward_core::ApprovalDesk;
    let mut res = steward
        .resolve(id, decision, owner(), surface)
        .await
        .unwrap();
    let mut events = Vec::new();
    if let steward_core::Resolution::Applied { follow_up, .. } = &mut res
        && let Some(rx) = follow_up.take()
    {
        events = drain(rx).await;
    }
    (res, events)
}

/// The owner every test surface authenticates.
pub fn owner() -> Principal {
    Principal::authenticated(PrincipalId::parse("owner").unwrap())
}

/// The approval cards among a turn's events, in order.
pub fn cards(events: &[TurnEvent]) -> Vec<steward_protocol::ActionCard> {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ApprovalRequired { card } => Some(card.clone()),
            _ => None,
        })
        .collect()
}

/// A turn in conversation `conv` in which the model asks for `send_email` to `to` (the harness
/// must offer such a tool); exactly one card comes of it, whose action id is returned.
pub async fn park_email(fake: &FakeModel, h: &Harness, conv: &str, to: &str) -> String {
    use steward_testkit::{Reply, Step};
    fake.push(Step::Reply(Reply::tool_call(
        "send_email",
        &format!(r#"{{"to":"{to}"}}"#),
    )));
    fake.push(Step::Reply(Reply::text("I need your approval to send it.")));
    let events = collect(&h.steward, inbound(conv, "email bob")).await;
    let c = cards(&events);
    assert_eq!(c.len(), 1, "{events:?}");
    c[0].action_id.clone()
}
