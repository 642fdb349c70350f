//! The memory tools through `ToolRegistry::call`, over a real in-memory SQLite store and a
//! `Memory` without an embedder (recall on full text): what each writes (source, provenance),
//! that a model's `remember` never overwrites the user's own fact, that the gate's refusals
//! reach the model, caps on hits and output, and `forget`'s effect and side-effect-free preview.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::sync::Arc;
use steward_memory::{Memory, MemoryConfig};
use steward_protocol::{ConversationId, Effect, FactSource, MemoryKind, Provenance, ToolCall};
use steward_store::{MemoryFilter, MemoryStore};
use steward_tools::{ToolContext, ToolOutcome, ToolRegistry, memory_tools};

const USER: &str = "owner";

struct Fixture {
    store: Arc<dyn steward_store::Store>,
    memory: Arc<Memory>,
    registry: ToolRegistry,
}

fn fixture_with(cfg: MemoryConfig) -> Fixture {
    let store = steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let memory = Arc::new(Memory::new(store.clone(), None, cfg));
    let mut registry = ToolRegistry::new();
    for tool in memory_tools(memory.clone()) {
        registry.register(tool).unwrap();
    }
    Fixture {
        store,
        memory,
        registry,
    }
}

fn fixture() -> Fixture {
    fixture_with(MemoryConfig::default())
}

fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test:mem").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse(USER).unwrap(),
        ),
        None,
    )
}

impl Fixture {
    async fn call(&self, tool: &str, args: Value) -> ToolOutcome {
        let call = ToolCall {
            id: "c1".into(),
            name: tool.into(),
            arguments: args.to_string(),
        };
        self.registry.call(&call, &ctx()).await
    }

    async fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args).await;
        assert!(out.ok, "{tool} failed: {}", out.output);
        out.output
    }
}

#[tokio::test]
async fn the_six_tools_have_short_descriptions_and_the_right_effects() {
    let f = fixture();
    let effects: Vec<(String, Effect)> = f
        .registry
        .specs()
        .iter()
        .map(|s| (s.name.clone(), f.registry.get(&s.name).unwrap().effect()))
        .collect();
    assert_eq!(
        effects,
        [
            ("forget".to_owned(), Effect::Destructive),
            ("read_later".to_owned(), Effect::Memory),
            ("recall".to_owned(), Effect::Read),
            ("remember".to_owned(), Effect::Memory),
            ("save_note".to_owned(), Effect::Memory),
            ("search_notes".to_owned(), Effect::Read),
        ]
    );
    for spec in f.registry.specs() {
        assert!(
            !spec.description.contains('\n') && spec.description.len() <= 120,
            "{}: {:?}",
            spec.name,
            spec.description
        );
    }
}

#[tokio::test]
async fn remember_stores_an_extracted_fact_with_the_assistants_provenance() {
    let f = fixture();
    let out = f
        .ok("remember", json!({"key": "home.city", "value": "Lyon"}))
        .await;
    assert_eq!(out, "remembered home.city = Lyon");
    let fact = f.store.get_fact(USER, "home.city").await.unwrap().unwrap();
    assert_eq!(fact.value, "Lyon");
    assert_eq!(fact.source, FactSource::Extracted);
    assert!((fact.confidence - 0.9).abs() < 1e-6, "{}", fact.confidence);
    assert_eq!(
        fact.provenance,
        Provenance::Assistant {
            conversation: Some(ConversationId::parse("test:mem").unwrap())
        }
    );
    let out = f
        .ok("remember", json!({"key": "home.city", "value": "Paris"}))
        .await;
    assert_eq!(out, "updated home.city = Paris");
}

#[tokio::test]
async fn remember_never_overwrites_what_the_user_set() {
    let f = fixture();
    f.memory
        .user_set_fact(USER, "diet", "vegetarian")
        .await
        .unwrap();
    let out = f
        .ok("remember", json!({"key": "diet", "value": "eats meat"}))
        .await;
    assert!(
        out.starts_with("not changed: the user set diet = vegetarian"),
        "{out}"
    );
    let fact = f.store.get_fact(USER, "diet").await.unwrap().unwrap();
    assert_eq!(fact.value, "vegetarian");
    assert_eq!(fact.source, FactSource::User);
}

#[tokio::test]
async fn the_gate_refuses_secrets_and_bad_keys_and_says_why() {
    let f = fixture();
    let out = f
        .call(
            "remember",
            json!({"key": "github.token", "value": "ghp_0123456789abcdefghijABCDEFGHIJ012345"}),
        )
        .await;
    assert!(!out.ok, "{}", out.output);
    assert!(out.output.contains("secret"), "{}", out.output);
    assert!(
        !out.output.contains("ghp_0123456789"),
        "a refusal must not echo the secret: {}",
        out.output
    );
    assert!(
        f.store
            .get_fact(USER, "github.token")
            .await
            .unwrap()
            .is_none()
    );

    let out = f
        .call("remember", json!({"key": "Home City", "value": "Lyon"}))
        .await;
    assert!(!out.ok);
    assert!(out.output.contains("a-z, 0-9, _ and ."), "{}", out.output);
    assert!(f.store.list_facts(USER, 10, 0).await.unwrap().is_empty());
}

#[tokio::test]
async fn recall_returns_compact_hits_with_score_source_and_provenance() {
    let f = fixture();
    f.memory
        .user_set_fact(USER, "pet.name", "Biscuit the beagle")
        .await
        .unwrap();
    f.ok(
        "save_note",
        json!({"title": "Beagle vet", "body": "Biscuit sees the vet on Fridays\nbring the leash",
               "tags": ["Pets", "pets"]}),
    )
    .await;
    f.ok(
        "save_note",
        json!({"title": "Taxes", "body": "file before May"}),
    )
    .await;
    let out = f.ok("recall", json!({"query": "beagle Biscuit"})).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "2 matches", "{out}");
    let fact_line = lines.iter().find(|l| l.starts_with("[fact ")).unwrap();
    assert!(
        fact_line.contains("| source user | from user]"),
        "{fact_line}"
    );
    assert!(
        fact_line.ends_with("pet.name = Biscuit the beagle"),
        "{fact_line}"
    );
    assert!(fact_line.contains("| score "), "{fact_line}");
    let note_line = lines.iter().find(|l| l.starts_with("[note ")).unwrap();
    assert!(
        note_line.contains("| from assistant | tags pets]"),
        "tags are normalised and deduplicated: {note_line}"
    );
    // The body's line break is flattened: stored text cannot start a line of its own.
    assert!(
        note_line.ends_with("Beagle vet: Biscuit sees the vet on Fridays bring the leash"),
        "{note_line}"
    );
    assert!(!out.contains("Taxes"));

    let only_notes = f
        .ok("recall", json!({"query": "Biscuit", "kinds": ["note"]}))
        .await;
    assert!(only_notes.starts_with("1 match\n[note "), "{only_notes}");
    let none = f.ok("recall", json!({"query": "submarine"})).await;
    assert_eq!(none, "no matches");
}

#[tokio::test]
async fn recall_is_capped_by_the_limit_and_by_the_memorys_recall_max() {
    let f = fixture_with(MemoryConfig {
        recall_max: 4,
        ..MemoryConfig::default()
    });
    for i in 0..30 {
        f.memory
            .user_set_fact(
                USER,
                &format!("garden.plant{i}"),
                &format!("tomato variety {i}"),
            )
            .await
            .unwrap();
    }
    let count = |out: &str| out.lines().filter(|l| l.starts_with('[')).count();
    let out = f.ok("recall", json!({"query": "tomato", "limit": 2})).await;
    assert_eq!(count(&out), 2, "{out}");
    let out = f
        .ok("recall", json!({"query": "tomato", "limit": 20}))
        .await;
    assert_eq!(count(&out), 4, "the memory's cap wins: {out}");
    let out = f
        .call("recall", json!({"query": "tomato", "limit": 760}))
        .await;
    assert!(!out.ok, "the schema refuses huge limits: {}", out.output);
}

#[tokio::test]
async fn a_huge_note_comes_back_as_a_short_snippet() {
    let f = fixture();
    let body = format!("needle {}", "lorem ipsum ".repeat(1500));
    f.ok("save_note", json!({"title": "Long", "body": body}))
        .await;
    let out = f.ok("search_notes", json!({"query": "needle"})).await;
    assert!(out.len() < 600, "{} bytes", out.len());
    assert!(out.trim_end().ends_with('…'), "{out}");
}

#[tokio::test]
async fn search_notes_finds_only_notes_and_filters_by_all_tags() {
    let f = fixture();
    f.memory
        .user_set_fact(USER, "favourite.tea", "jasmine tea")
        .await
        .unwrap();
    f.ok(
        "save_note",
        json!({"title": "Tea shop", "body": "jasmine tea at the corner shop", "tags": ["shopping", "tea"]}),
    )
    .await;
    f.ok(
        "save_note",
        json!({"title": "Tea recipe", "body": "jasmine tea with honey", "tags": ["tea"]}),
    )
    .await;
    let out = f.ok("search_notes", json!({"query": "jasmine tea"})).await;
    assert!(out.starts_with("2 matches"), "{out}");
    assert!(!out.contains("[fact "), "{out}");
    let out = f
        .ok(
            "search_notes",
            json!({"query": "jasmine", "tags": ["tea", "shopping"]}),
        )
        .await;
    assert!(out.starts_with("1 match\n"), "{out}");
    assert!(out.contains("Tea shop"), "{out}");
    let bad = f
        .call("search_notes", json!({"query": "x", "tags": ["no spaces"]}))
        .await;
    assert!(!bad.ok);
}

#[tokio::test]
async fn save_note_keeps_the_assistants_provenance() {
    let f = fixture();
    let out = f
        .ok(
            "save_note",
            json!({"title": "Plan", "body": "trip to Oslo", "tags": ["travel"]}),
        )
        .await;
    assert!(out.starts_with("saved note "), "{out}");
    let filter = MemoryFilter {
        kinds: vec![MemoryKind::Note],
        ..MemoryFilter::default()
    };
    let notes = f.store.list_notes(USER, &filter, 10).await.unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].tags, ["travel"]);
    assert!(matches!(notes[0].provenance, Provenance::Assistant { .. }));
    let blank = f
        .call("save_note", json!({"title": "  ", "body": "x"}))
        .await;
    assert!(!blank.ok, "{}", blank.output);
}

#[tokio::test]
async fn read_later_accepts_web_links_only() {
    let f = fixture();
    let out = f
        .ok(
            "read_later",
            json!({"url": "https://example.com/rust-async", "title": "Async Rust", "tags": ["rust"]}),
        )
        .await;
    assert!(out.starts_with("saved for later "), "{out}");
    let items = f.store.list_read_later(USER, &[], false, 10).await.unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].title, "Async Rust");
    let found = f
        .ok("recall", json!({"query": "async", "kinds": ["read_later"]}))
        .await;
    assert!(found.contains("[read_later "), "{found}");
    for url in [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "https://a b",
        "https://",
    ] {
        let out = f.call("read_later", json!({"url": url})).await;
        assert!(!out.ok, "{url}: {}", out.output);
    }
    assert_eq!(
        f.store
            .list_read_later(USER, &[], false, 10)
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn forget_previews_without_deleting_then_deletes() {
    let f = fixture();
    f.memory
        .user_set_fact(USER, "car.plate", "AB-123-CD")
        .await
        .unwrap();
    let prepared = f
        .registry
        .prepare(&ToolCall {
            id: "c1".into(),
            name: "forget".into(),
            arguments: json!({"key": "car.plate"}).to_string(),
        })
        .unwrap();
    assert_eq!(prepared.effect, Effect::Destructive);
    let preview = f
        .registry
        .preview(&prepared, &ctx())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        preview,
        "will delete the fact car.plate = AB-123-CD (source user)"
    );
    assert!(f.store.get_fact(USER, "car.plate").await.unwrap().is_some());

    let out = f.registry.run_prepared(&prepared, &ctx()).await;
    assert!(out.ok, "{}", out.output);
    assert_eq!(out.output, "forgot car.plate");
    assert!(f.store.get_fact(USER, "car.plate").await.unwrap().is_none());

    let again = f.call("forget", json!({"key": "car.plate"})).await;
    assert!(!again.ok);
    assert!(again.output.contains("no fact is stored under car.plate"));
    let preview = f
        .registry
        .preview(&prepared, &ctx())
        .await
        .unwrap()
        .unwrap();
    assert!(preview.contains("nothing will change"), "{preview}");
}

#[tokio::test]
async fn a_memory_tool_acts_for_the_principal_of_its_call() {
    let f = fixture();
    let tool = f.registry.get("remember").unwrap();
    let mut as_bob = ctx();
    as_bob.principal = steward_protocol::Principal::authenticated(
        steward_protocol::PrincipalId::parse("bob").unwrap(),
    );
    tool.run(json!({"key": "home.city", "value": "Bergen"}), &as_bob)
        .await
        .unwrap();
    let bobs = f.memory.get_fact("bob", "home.city").await.unwrap();
    assert_eq!(
        bobs.map(|x| x.value).as_deref(),
        Some("Bergen"),
        "written for bob"
    );
    assert!(
        f.memory
            .get_fact(USER, "home.city")
            .await
            .unwrap()
            .is_none(),
        "never for another principal"
    );
    // And read back only for bob.
    let recall = f.registry.get("recall").unwrap();
    let for_bob = recall
        .run(json!({"query": "Bergen"}), &as_bob)
        .await
        .unwrap();
    assert!(for_bob.contains("Bergen"), "{for_bob}");
    let for_owner = recall
        .run(json!({"query": "Bergen"}), &ctx())
        .await
        .unwrap();
    assert!(!for_owner.contains("Bergen"), "{for_owner}");
}
