//! The two-step registry API an approval gate sits between (`prepare` / `prepare_value`,
//! then `run_prepared`), the registry-level `preview`, and the tool hooks' defaults.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use steward_protocol::{ConversationId, Effect, ToolCall};
use steward_tools::{Tool, ToolContext, ToolError, ToolRegistry, builtin_registry};

/// Counts its runs; its preview behaves as configured.
struct Mailer {
    runs: AtomicUsize,
    preview: PreviewKind,
}

#[derive(Clone, Copy)]
enum PreviewKind {
    Text,
    Fail,
    Panic,
    Slow,
}

#[async_trait::async_trait]
impl Tool for Mailer {
    fn name(&self) -> &str {
        "send_mail"
    }
    fn description(&self) -> &str {
        "send an email"
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
            "required": ["to"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::External
    }
    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        if !args["to"].as_str().unwrap_or_default().contains('@') {
            return Err(ToolError::InvalidArguments(
                "`to` must be an address".into(),
            ));
        }
        Ok(())
    }
    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(format!(
            "sent to {}",
            args["to"].as_str().unwrap_or_default()
        ))
    }
    async fn preview(&self, args: &Value, _ctx: &ToolContext) -> Option<Result<String, ToolError>> {
        Some(match self.preview {
            PreviewKind::Text => Ok(format!("will mail {}", args["to"].as_str().unwrap())),
            PreviewKind::Fail => Err(ToolError::Failed("mailbox unreachable".into())),
            PreviewKind::Panic => panic!("preview exploded with secret-token"),
            PreviewKind::Slow => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok("late".into())
            }
        })
    }
    fn approval_ttl(&self) -> Option<Duration> {
        Some(Duration::from_secs(120))
    }
}

fn mailer(preview: PreviewKind) -> (Arc<Mailer>, ToolRegistry) {
    let tool = Arc::new(Mailer {
        runs: AtomicUsize::new(0),
        preview,
    });
    let mut r = ToolRegistry::new().with_timeout(Duration::from_millis(200));
    r.register(tool.clone()).unwrap();
    (tool, r)
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
        id: "c1".into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[tokio::test]
async fn prepare_then_run_runs_exactly_the_prepared_arguments() {
    let (tool, r) = mailer(PreviewKind::Text);
    let prepared = r
        .prepare(&call("send_mail", r#"{"to":"ann@example.org"}"#))
        .unwrap();
    assert_eq!(prepared.name, "send_mail");
    assert_eq!(prepared.effect, Effect::External);
    assert_eq!(prepared.args, json!({"to": "ann@example.org"}));
    // Preparing runs nothing: the gate sits here.
    assert_eq!(tool.runs.load(Ordering::SeqCst), 0);
    let out = r.run_prepared(&prepared, &ctx()).await;
    assert_eq!(
        (out.ok, out.output.as_str()),
        (true, "sent to ann@example.org")
    );
    assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn prepare_fails_exactly_as_call_does() {
    let (tool, r) = mailer(PreviewKind::Text);
    let cases = [
        ("send_mail", "{"),
        ("send_mail", "{}"),
        ("send_mail", r#"{"to": 5}"#),
        ("send_mail", r#"{"to": "nobody"}"#),
        ("send_mail", r#"{"to": "a@b", "cc": "x"}"#),
        ("send_mall", r#"{"to": "a@b"}"#),
    ];
    for (name, arguments) in cases {
        let refused = r.prepare(&call(name, arguments)).unwrap_err();
        let called = r.call(&call(name, arguments), &ctx()).await;
        assert!(!refused.ok, "{arguments}");
        assert!(refused.output.starts_with("error: "), "{}", refused.output);
        assert_eq!(refused, called, "{name} {arguments}");
    }
    assert_eq!(tool.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn prepare_value_rechecks_a_revision_with_the_tools_own_validator() {
    let (tool, r) = mailer(PreviewKind::Text);
    let bad = [
        (json!({"to": "bob"}), "`to` must be an address"),
        (json!({"to": "b@x", "extra": 1}), "unknown argument `extra`"),
        (json!("b@x"), "must be an object"),
        (
            json!({"to": "b@x", "body": "x".repeat(300 * 1024)}),
            "too large",
        ),
    ];
    for (args, expected) in bad {
        let out = r.prepare_value("send_mail", args).unwrap_err();
        assert!(!out.ok && out.output.contains(expected), "{}", out.output);
    }
    let out = r.prepare_value("nope", json!({})).unwrap_err();
    assert!(out.output.contains("unknown tool `nope`"), "{}", out.output);
    let prepared = r
        .prepare_value("send_mail", json!({"to": "bob@example.org"}))
        .unwrap();
    let out = r.run_prepared(&prepared, &ctx()).await;
    assert_eq!(out.output, "sent to bob@example.org");
    assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn preview_results_and_failures_come_back_as_text() {
    let args = r#"{"to":"ann@example.org"}"#;
    let (tool, r) = mailer(PreviewKind::Text);
    let prepared = r.prepare(&call("send_mail", args)).unwrap();
    assert_eq!(
        r.preview(&prepared, &ctx()).await,
        Some(Ok("will mail ann@example.org".to_owned()))
    );
    assert_eq!(
        tool.runs.load(Ordering::SeqCst),
        0,
        "a preview must not run the tool"
    );

    let (_, r) = mailer(PreviewKind::Fail);
    let prepared = r.prepare(&call("send_mail", args)).unwrap();
    assert_eq!(
        r.preview(&prepared, &ctx()).await,
        Some(Err("mailbox unreachable".to_owned()))
    );

    let (_, r) = mailer(PreviewKind::Panic);
    let prepared = r.prepare(&call("send_mail", args)).unwrap();
    let err = r.preview(&prepared, &ctx()).await.unwrap().unwrap_err();
    assert!(err.contains("crashed"), "{err}");
    assert!(!err.contains("secret-token"), "{err}");

    let (_, r) = mailer(PreviewKind::Slow);
    let prepared = r.prepare(&call("send_mail", args)).unwrap();
    let err = r.preview(&prepared, &ctx()).await.unwrap().unwrap_err();
    assert_eq!(
        err,
        ToolError::Timeout(Duration::from_millis(200)).to_string()
    );
}

#[tokio::test]
async fn hooks_default_to_none() {
    let r = builtin_registry();
    let prepared = r.prepare(&call("current_time", "{}")).unwrap();
    assert_eq!(prepared.effect, Effect::Read);
    assert_eq!(r.preview(&prepared, &ctx()).await, None);
    assert_eq!(prepared.tool.approval_ttl(), None);
    let (_, r) = mailer(PreviewKind::Text);
    let tool = r.get("send_mail").unwrap();
    assert_eq!(tool.approval_ttl(), Some(Duration::from_secs(120)));
}

#[tokio::test]
async fn run_prepared_caps_output_and_debug_hides_arguments() {
    let (_, r) = mailer(PreviewKind::Text);
    let r = r.with_max_output_bytes(12);
    let prepared = r
        .prepare_value(
            "send_mail",
            json!({"to": "ann@example.org", "body": "private words"}),
        )
        .unwrap();
    let out = r.run_prepared(&prepared, &ctx()).await;
    assert_eq!(out.output, "sent to ann@\n[… truncated 11 bytes]");
    let debug = format!("{prepared:?}");
    assert!(
        debug.contains("send_mail") && debug.contains("External"),
        "{debug}"
    );
    assert!(
        !debug.contains("private words") && !debug.contains("ann@"),
        "{debug}"
    );
}

/// Refuses when the effect it would have now is not the one on the approved card.
struct Drifting;

#[async_trait::async_trait]
impl Tool for Drifting {
    fn name(&self) -> &str {
        "drift"
    }
    fn description(&self) -> &str {
        "changes under your feet"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }
    fn effect(&self) -> Effect {
        Effect::Write
    }
    async fn run(&self, _args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        match ctx.approved_preview.as_deref() {
            Some("affects 2 rows") => Ok("changed 2 rows".into()),
            _ => Err(ToolError::EffectChanged {
                preview: "affects 2 rows".into(),
            }),
        }
    }
}

#[tokio::test]
async fn run_approved_reports_a_changed_effect_as_its_own_variant() {
    use steward_tools::ApprovedRun;
    let mut r = ToolRegistry::new();
    r.register(Arc::new(Drifting)).unwrap();
    let prepared = r.prepare_value("drift", json!({})).unwrap();
    let mut seen = ctx();
    seen.approved_preview = Some("affects 1 row".into());
    assert_eq!(
        r.run_approved(&prepared, &seen).await,
        ApprovedRun::EffectChanged {
            preview: "affects 2 rows".into()
        }
    );
    // The plain path still reports it as a failure for the model, with the new effect.
    let out = r.run_prepared(&prepared, &seen).await;
    assert!(!out.ok);
    assert!(
        out.output.contains("effect changed") && out.output.contains("affects 2 rows"),
        "{}",
        out.output
    );
    seen.approved_preview = Some("affects 2 rows".into());
    let ApprovedRun::Ran(out) = r.run_approved(&prepared, &seen).await else {
        panic!("expected a run")
    };
    assert!(out.ok && out.output == "changed 2 rows", "{out:?}");
}
