//! Registry behaviour against hostile or broken calls and tools: every failure must come
//! back as `ok: false` text for the model, never a panic or an Err.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use steward_protocol::{ConversationId, Effect, ToolCall};
use steward_tools::{Tool, ToolContext, ToolError, ToolRegistry, builtin_registry};

/// A configurable test tool: echoes its `text` argument, or misbehaves on purpose.
struct TestTool {
    name: &'static str,
    behaviour: Behaviour,
}

#[derive(Clone, Copy)]
enum Behaviour {
    Echo,
    Panic,
    Sleep(Duration),
    Output(&'static str, usize),
    Fail,
}

#[async_trait::async_trait]
impl Tool for TestTool {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "test tool"
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "count": {"type": "integer"}},
            "required": ["text"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        if args["text"] == "forbidden" {
            return Err(ToolError::InvalidArguments(
                "`text` may not be forbidden".into(),
            ));
        }
        Ok(())
    }
    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        match self.behaviour {
            Behaviour::Echo => Ok(args["text"].as_str().unwrap_or_default().to_owned()),
            Behaviour::Panic => panic!("tool exploded on purpose"),
            Behaviour::Sleep(d) => {
                tokio::time::sleep(d).await;
                Ok("slept".into())
            }
            Behaviour::Output(piece, n) => Ok(piece.repeat(n)),
            Behaviour::Fail => Err(ToolError::Failed("disk on fire".into())),
        }
    }
}

fn tool(name: &'static str, behaviour: Behaviour) -> Arc<dyn Tool> {
    Arc::new(TestTool { name, behaviour })
}

fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test:1").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    )
}

fn call(name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

fn echo_registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    r.register(tool("echo", Behaviour::Echo)).unwrap();
    r
}

#[test]
fn duplicate_names_are_refused() {
    let mut r = echo_registry();
    let err = r.register(tool("echo", Behaviour::Panic)).unwrap_err();
    assert!(
        matches!(err, ToolError::DuplicateName(ref n) if n == "echo"),
        "{err:?}"
    );
    assert_eq!(r.len(), 1);
}

#[test]
fn bad_names_are_refused() {
    let mut r = ToolRegistry::new();
    for bad in ["", "Echo", "echo-tool", "echo tool", "écho", "a/b"] {
        assert!(
            r.register(tool(bad, Behaviour::Echo)).is_err(),
            "accepted {bad:?}"
        );
    }
    let long: &'static str = Box::leak("a".repeat(65).into_boxed_str());
    assert!(r.register(tool(long, Behaviour::Echo)).is_err());
    assert!(r.is_empty());
    assert!(r.register(tool("echo_2", Behaviour::Echo)).is_ok());
    assert!(r.get("echo_2").is_some() && r.get("echo").is_none());
    let longest: &'static str = Box::leak("a".repeat(64).into_boxed_str());
    assert!(r.register(tool(longest, Behaviour::Echo)).is_ok());
}

#[test]
fn specs_are_sorted_and_stable() {
    let mut r = ToolRegistry::new();
    for name in ["zeta", "alpha", "mid_1", "beta"] {
        r.register(tool(name, Behaviour::Echo)).unwrap();
    }
    let names: Vec<String> = r.specs().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["alpha", "beta", "mid_1", "zeta"]);
    let first = serde_json::to_string(&r.specs()).unwrap();
    let second = serde_json::to_string(&r.specs()).unwrap();
    assert_eq!(first, second);
    let builtin = builtin_registry();
    assert_eq!(
        serde_json::to_string(&builtin.specs()).unwrap(),
        serde_json::to_string(&builtin_registry().specs()).unwrap()
    );
}

#[tokio::test]
async fn well_formed_calls_run() {
    let r = echo_registry();
    let out = r.call(&call("echo", r#"{"text":"hi"}"#), &ctx()).await;
    assert_eq!((out.ok, out.output.as_str()), (true, "hi"));
}

#[tokio::test]
async fn empty_arguments_mean_an_empty_object() {
    let r = echo_registry();
    // "" is {} — which then lacks the required field, so the error must name it.
    let out = r.call(&call("echo", ""), &ctx()).await;
    assert!(!out.ok);
    assert!(
        out.output.contains("missing required argument `text`"),
        "{}",
        out.output
    );
    let builtin = builtin_registry();
    let out = builtin.call(&call("current_time", ""), &ctx()).await;
    assert!(out.ok, "{}", out.output);
}

#[tokio::test]
async fn malformed_json_is_reported_helpfully() {
    let r = echo_registry();
    let huge = "x".repeat(1 << 20);
    let huge_string = format!("{{\"text\":\"{huge}\"}}");
    let cases: [(&str, &str); 6] = [
        ("{", "not valid JSON"),
        ("[1,", "not valid JSON"),
        ("null", "must be an object, got null"),
        ("\"x\"", "must be an object, got a string"),
        (&huge, "too large"),
        (&huge_string, "too large"),
    ];
    for (args, expected) in cases {
        let out = r.call(&call("echo", args), &ctx()).await;
        assert!(!out.ok, "accepted {:.20}", args);
        assert!(out.output.starts_with("error: "), "{}", out.output);
        assert!(out.output.contains(expected), "{}", out.output);
        assert!(
            out.output.len() < 500,
            "error message too long: {}",
            out.output.len()
        );
    }
    // The JSON error shows the expected shape so the model can retry correctly.
    let out = r.call(&call("echo", "{"), &ctx()).await;
    assert!(out.output.contains(r#"{"text":"..."}"#), "{}", out.output);
}

#[tokio::test]
async fn unknown_tool_names_the_available_ones() {
    let mut r = echo_registry();
    r.register(tool("other", Behaviour::Echo)).unwrap();
    let out = r.call(&call("ech0", "{}"), &ctx()).await;
    assert!(!out.ok);
    assert_eq!(
        out.output,
        "error: unknown tool `ech0`; available tools: echo, other"
    );
    let long_name = "n".repeat(100_000);
    let out = r.call(&call(&long_name, "{}"), &ctx()).await;
    assert!(!out.ok && out.output.len() < 300, "{}", out.output.len());
}

#[tokio::test]
async fn schema_violations_name_the_field() {
    let r = echo_registry();
    let cases = [
        (r#"{}"#, "missing required argument `text`"),
        (
            r#"{"text": 5}"#,
            "argument `text` must be a string, got a number",
        ),
        (
            r#"{"text": "a", "count": "3"}"#,
            "argument `count` must be an integer",
        ),
        (
            r#"{"text": "a", "colour": "red"}"#,
            "unknown argument `colour`",
        ),
    ];
    for (args, expected) in cases {
        let out = r.call(&call("echo", args), &ctx()).await;
        assert!(!out.ok, "accepted {args}");
        assert!(out.output.contains(expected), "{args}: {}", out.output);
        assert!(out.output.contains("`echo`"), "{}", out.output);
    }
}

#[tokio::test]
async fn validate_and_tool_errors_become_text() {
    let mut r = echo_registry();
    r.register(tool("broken", Behaviour::Fail)).unwrap();
    let out = r
        .call(&call("echo", r#"{"text":"forbidden"}"#), &ctx())
        .await;
    assert_eq!(
        (out.ok, out.output.as_str()),
        (
            false,
            "error: invalid arguments: `text` may not be forbidden"
        )
    );
    let out = r.call(&call("broken", r#"{"text":"a"}"#), &ctx()).await;
    assert_eq!(
        (out.ok, out.output.as_str()),
        (false, "error: disk on fire")
    );
}

#[tokio::test]
async fn a_panicking_tool_is_contained() {
    let mut r = echo_registry();
    r.register(tool("bomb", Behaviour::Panic)).unwrap();
    let out = r.call(&call("bomb", r#"{"text":"a"}"#), &ctx()).await;
    assert!(!out.ok);
    assert!(out.output.contains("crashed"), "{}", out.output);
    // The payload is not leaked to the model.
    assert!(!out.output.contains("exploded"), "{}", out.output);
    // And the registry still works afterwards.
    assert!(r.call(&call("echo", r#"{"text":"a"}"#), &ctx()).await.ok);
}

#[tokio::test]
async fn a_slow_tool_times_out() {
    let mut r = ToolRegistry::new().with_timeout(Duration::from_millis(50));
    r.register(tool("slow", Behaviour::Sleep(Duration::from_secs(3600))))
        .unwrap();
    r.register(tool("quick", Behaviour::Sleep(Duration::ZERO)))
        .unwrap();
    let out = r.call(&call("slow", r#"{"text":"a"}"#), &ctx()).await;
    assert!(!out.ok);
    assert_eq!(
        out.output,
        format!("error: {}", ToolError::Timeout(Duration::from_millis(50)))
    );
    let out = r.call(&call("quick", r#"{"text":"a"}"#), &ctx()).await;
    assert_eq!((out.ok, out.output.as_str()), (true, "slept"));
}

#[tokio::test]
async fn long_output_is_cut_at_a_char_boundary() {
    let mut r = ToolRegistry::new().with_max_output_bytes(10);
    // "€" is 3 bytes: 10 bytes falls inside the 4th one, so 3 (9 bytes) are kept.
    r.register(tool("euros", Behaviour::Output("€", 100)))
        .unwrap();
    r.register(tool("short", Behaviour::Output("€", 3)))
        .unwrap();
    let out = r.call(&call("euros", r#"{"text":"a"}"#), &ctx()).await;
    assert!(out.ok);
    assert_eq!(out.output, "€€€\n[… truncated 291 bytes]");
    let out = r.call(&call("short", r#"{"text":"a"}"#), &ctx()).await;
    assert_eq!(out.output, "€€€");
}

#[test]
fn unsupported_schemas_are_refused() {
    struct Patterned;
    #[async_trait::async_trait]
    impl Tool for Patterned {
        fn name(&self) -> &str {
            "patterned"
        }
        fn description(&self) -> &str {
            "x"
        }
        fn parameters(&self) -> Value {
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x$"}}})
        }
        fn effect(&self) -> Effect {
            Effect::Read
        }
        async fn run(&self, _args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
            Ok(String::new())
        }
    }
    let mut r = ToolRegistry::new();
    let err = r.register(Arc::new(Patterned)).unwrap_err();
    assert!(err.to_string().contains("pattern"), "{err}");
}

#[test]
fn debug_output_lists_tools() {
    let text = format!("{:?}", echo_registry());
    assert!(text.contains("echo"), "{text}");
}
