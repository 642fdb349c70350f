//! Dynamic tool sources and on-demand tools (the interface in prompts/tool-source-api.md):
//! registration, lookup at call time, name clashes, a source tool vanishing, tools the
//! checker refuses, and byte-stable ordering.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use steward_protocol::{ConversationId, Effect, ToolCall};
use steward_tools::{Tool, ToolContext, ToolError, ToolRegistry, ToolSource};

struct Named {
    name: String,
    reply: String,
    schema: Value,
}

#[async_trait::async_trait]
impl Tool for Named {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "Says who answered. Second sentence is not in the index."
    }
    fn parameters(&self) -> Value {
        self.schema.clone()
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    async fn run(&self, _args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.reply.clone())
    }
}

fn plain_schema() -> Value {
    json!({"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false})
}

fn named(name: &str, reply: &str) -> Arc<dyn Tool> {
    Arc::new(Named {
        name: name.into(),
        reply: reply.into(),
        schema: plain_schema(),
    })
}

/// A source whose tool set a test can change while the registry holds it.
struct Switchable {
    label: String,
    tools: Mutex<Vec<Arc<dyn Tool>>>,
}

impl Switchable {
    fn new(label: &str, tools: Vec<Arc<dyn Tool>>) -> Arc<Switchable> {
        Arc::new(Switchable {
            label: label.into(),
            tools: Mutex::new(tools),
        })
    }
    fn set(&self, tools: Vec<Arc<dyn Tool>>) {
        *self.tools.lock().unwrap() = tools;
    }
}

impl ToolSource for Switchable {
    fn label(&self) -> &str {
        &self.label
    }
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.lock().unwrap().clone()
    }
}

fn ctx() -> ToolContext {
    ToolContext::new(
        conv(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    )
}

fn conv() -> ConversationId {
    ConversationId::parse("test:src").unwrap()
}

fn call(name: &str) -> ToolCall {
    ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments: "{}".into(),
    }
}

fn names(specs: &[steward_protocol::ToolSpec]) -> Vec<String> {
    specs.iter().map(|s| s.name.clone()).collect()
}

#[tokio::test]
async fn on_demand_tools_are_indexed_not_offered_but_callable() {
    let mut r = ToolRegistry::new();
    r.register(named("core_a", "core")).unwrap();
    r.register_on_demand(named("rare_b", "rare")).unwrap();
    assert_eq!(names(&r.specs()), ["core_a", "rare_b"]);
    let offer = r.offer(&conv());
    assert_eq!(names(&offer), ["core_a", "load_tools"]);
    let index = &offer[1].description;
    assert!(
        index.contains("[steward]\nrare_b: Says who answered."),
        "{index}"
    );
    assert!(!index.contains("Second sentence"), "{index}");
    assert!(
        !index.contains("core_a"),
        "core tools are not in the index: {index}"
    );
    let out = r.call(&call("rare_b"), &ctx()).await;
    assert!(out.ok && out.output == "rare", "{out:?}");
    // Registering a duplicate, or the reserved meta name, is refused.
    assert!(matches!(
        r.register_on_demand(named("core_a", "x")),
        Err(ToolError::DuplicateName(_))
    ));
    assert!(matches!(
        r.register(named("load_tools", "x")),
        Err(ToolError::DuplicateName(_))
    ));
}

#[tokio::test]
async fn nothing_on_demand_means_no_meta_tool() {
    let mut r = ToolRegistry::new();
    r.register(named("core_a", "core")).unwrap();
    assert_eq!(names(&r.offer(&conv())), ["core_a"]);
    assert!(r.tool_index().is_none());
    let out = r.call(&call("load_tools"), &ctx()).await;
    assert!(
        !out.ok && out.output.contains("unknown tool `load_tools`"),
        "{out:?}"
    );
}

#[tokio::test]
async fn source_tools_are_found_at_call_time_and_static_wins_a_clash() {
    let mut r = ToolRegistry::new();
    r.register(named("shared", "static")).unwrap();
    let src = Switchable::new(
        "mcp:one",
        vec![named("shared", "source"), named("one_x", "x")],
    );
    r.add_source(src.clone());
    assert_eq!(names(&r.specs()), ["shared", "one_x"]);
    assert_eq!(r.call(&call("shared"), &ctx()).await.output, "static");
    assert_eq!(r.call(&call("one_x"), &ctx()).await.output, "x");
    assert!(r.get("one_x").is_some());
    assert_eq!(r.source_labels(), ["mcp:one"]);
    // A tool that appears later is callable without re-registering anything.
    src.set(vec![named("one_x", "x"), named("one_y", "y")]);
    assert_eq!(r.call(&call("one_y"), &ctx()).await.output, "y");
    let index = r.tool_index().unwrap();
    assert!(
        index.contains("[mcp:one]\none_x: Says who answered.\none_y:"),
        "{index}"
    );
}

#[tokio::test]
async fn a_vanished_source_tool_gets_a_clear_error() {
    let mut r = ToolRegistry::new();
    let src = Switchable::new("mcp:flaky", vec![named("flaky_do", "done")]);
    r.add_source(src.clone());
    assert!(r.call(&call("flaky_do"), &ctx()).await.ok);
    src.set(Vec::new());
    let out = r.call(&call("flaky_do"), &ctx()).await;
    assert!(!out.ok, "{out:?}");
    assert!(
        out.output
            .contains("tool `flaky_do` is not available right now")
            && out.output.contains("mcp:flaky"),
        "{}",
        out.output
    );
    assert!(r.get("flaky_do").is_none());
    // With its only source's tools gone, nothing is on demand: no meta tool offered.
    assert!(r.tool_index().is_none());
    // prepare_value (an approved action re-run later) sees the same error.
    let err = r.prepare_value("flaky_do", json!({})).unwrap_err();
    assert!(
        err.output.contains("not available right now"),
        "{}",
        err.output
    );
    // A name no source ever offered is simply unknown.
    let out = r.call(&call("never_seen"), &ctx()).await;
    assert!(
        out.output.contains("unknown tool `never_seen`"),
        "{}",
        out.output
    );
}

#[tokio::test]
async fn invalid_source_tools_are_skipped() {
    let mut r = ToolRegistry::new();
    let bad_schema: Arc<dyn Tool> = Arc::new(Named {
        name: "bad_schema".into(),
        reply: "no".into(),
        schema: json!({"type": "object", "properties": {"x": {"type": "string", "pattern": "^a"}}}),
    });
    let src = Switchable::new(
        "mcp:bad",
        vec![
            bad_schema,
            named("Bad-Name", "no"),
            named(&"x".repeat(65), "no"),
            named("load_tools", "hijack"),
            named("good_one", "yes"),
        ],
    );
    r.add_source(src);
    assert_eq!(names(&r.specs()), ["good_one"]);
    for refused in ["bad_schema", "Bad-Name"] {
        let out = r.call(&call(refused), &ctx()).await;
        assert!(!out.ok, "{refused} ran: {out:?}");
    }
    // The meta tool cannot be replaced by a source.
    let out = r
        .call(
            &ToolCall {
                id: "c".into(),
                name: "load_tools".into(),
                arguments: r#"{"names":["good_one"]}"#.into(),
            },
            &ctx(),
        )
        .await;
    assert!(
        out.ok && out.output.starts_with("Loaded: good_one"),
        "{out:?}"
    );
}

#[tokio::test]
async fn two_sources_offering_one_name_the_first_wins() {
    let mut r = ToolRegistry::new();
    r.add_source(Switchable::new("mcp:a", vec![named("dup", "from a")]));
    r.add_source(Switchable::new(
        "mcp:b",
        vec![named("dup", "from b"), named("b_only", "b")],
    ));
    assert_eq!(names(&r.specs()), ["dup", "b_only"]);
    assert_eq!(r.call(&call("dup"), &ctx()).await.output, "from a");
}

#[test]
fn order_is_byte_stable_whatever_order_a_source_returns() {
    let build = |order: &[&str]| {
        let mut r = ToolRegistry::new();
        r.register(named("core_z", "z")).unwrap();
        r.register(named("core_a", "a")).unwrap();
        r.register_on_demand(named("rare_m", "m")).unwrap();
        let tools = order.iter().map(|n| named(n, n)).collect();
        r.add_source(Switchable::new("mcp:s", tools));
        r
    };
    let one = build(&["s_c", "s_a", "s_b"]);
    let two = build(&["s_b", "s_c", "s_a"]);
    let bytes = |r: &ToolRegistry| {
        (
            serde_json::to_string(&r.specs()).unwrap(),
            serde_json::to_string(&r.offer(&conv())).unwrap(),
        )
    };
    assert_eq!(bytes(&one), bytes(&two));
    assert_eq!(bytes(&one), bytes(&one));
    assert_eq!(
        names(&one.specs()),
        ["core_a", "core_z", "rare_m", "s_a", "s_b", "s_c"]
    );
}

#[tokio::test]
async fn with_many_tools_an_unknown_name_gets_near_matches_not_a_list() {
    let tools = || {
        (0..30)
            .map(|i| named(&format!("many_tool_{i:02}"), "x"))
            .chain([named("many_send_mail", "sent")])
            .collect::<Vec<_>>()
    };
    let mut r = ToolRegistry::new();
    r.add_source(Switchable::new("mcp:many", tools()));
    let out = r.call(&call("many_send_mial"), &ctx()).await;
    assert!(!out.ok);
    assert!(
        out.output
            .contains("unknown tool `many_send_mial`; did you mean: many_send_mail"),
        "{}",
        out.output
    );
    assert!(
        out.output.contains("`load_tools` tool's description"),
        "{}",
        out.output
    );
    assert!(!out.output.contains("many_tool_17"), "{}", out.output);

    // With the index off there is no load_tools to point at.
    let mut off = ToolRegistry::new().with_index(false);
    off.add_source(Switchable::new("mcp:many", tools()));
    let out = off.call(&call("zzz_nothing"), &ctx()).await;
    assert!(
        out.output
            .ends_with("unknown tool `zzz_nothing`; no tool has a similar name."),
        "{}",
        out.output
    );
    assert_eq!(off.offer(&conv()).len(), 31);
    assert!(off.offer(&conv()).iter().all(|s| s.name != "load_tools"));
}

struct Tagged;

#[async_trait::async_trait]
impl Tool for Tagged {
    fn name(&self) -> &str {
        "tag_tool"
    }
    fn description(&self) -> &str {
        "[mcp:tag] Reads a thing.   Then more."
    }
    fn parameters(&self) -> Value {
        plain_schema()
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    async fn run(&self, _args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        Ok(String::new())
    }
}

#[test]
fn a_sources_own_label_tag_is_not_repeated_in_the_index() {
    let mut r = ToolRegistry::new();
    r.add_source(Switchable::new("mcp:tag", vec![Arc::new(Tagged)]));
    let index = r.tool_index().unwrap();
    assert!(
        index.ends_with("\n[mcp:tag]\ntag_tool: Reads a thing."),
        "{index}"
    );
    // The full spec, once loaded, keeps the tag.
    assert!(r.specs()[0].description.starts_with("[mcp:tag] "));
}
