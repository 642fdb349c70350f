//! The `run_code` tool through the real registry: malformed, oversized and hostile
//! arguments, the approval-card preview, the model-facing report, and the rule that an
//! unavailable sandbox means no tool at all.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;
use steward_protocol::{ConversationId, Effect, ToolCall};
use steward_sandbox::{
    CodeConfig, MAX_CODE_BYTES, MAX_STDIN_BYTES, SandboxStatus, probe, run_code_tool,
};
use steward_tools::{ToolContext, ToolOutcome, ToolRegistry};

fn status() -> &'static SandboxStatus {
    static STATUS: OnceLock<SandboxStatus> = OnceLock::new();
    STATUS.get_or_init(|| probe(&CodeConfig::default()))
}

fn cfg() -> CodeConfig {
    CodeConfig {
        max_output_bytes: 2048,
        timeout: Duration::from_secs(5),
        ..CodeConfig::default()
    }
}

fn registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    r.register(run_code_tool(cfg(), status()).expect("sandbox available here"))
        .unwrap();
    r
}

fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test:code").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    )
}

fn call(args: &Value) -> ToolCall {
    ToolCall {
        id: "c1".into(),
        name: "run_code".into(),
        arguments: args.to_string(),
    }
}

async fn run(args: Value) -> ToolOutcome {
    registry().call(&call(&args), &ctx()).await
}

#[tokio::test]
async fn runs_code_and_reports_exit_code_and_streams() {
    let out =
        run(json!({"language": "python", "code": "print('hi')\nimport sys; sys.exit(2)"})).await;
    assert!(out.ok, "{out:?}");
    assert!(out.output.starts_with("exit code: 2\n"), "{}", out.output);
    assert!(
        out.output.contains("--- stdout ---\nhi\n"),
        "{}",
        out.output
    );
    let out = run(json!({"language": "shell", "code": "cat; echo bad >&2", "stdin": "fed"})).await;
    assert!(out.output.contains("exit code: 0"), "{}", out.output);
    assert!(out.output.contains("--- stdout ---\nfed"), "{}", out.output);
    assert!(out.output.contains("--- stderr ---\nbad"), "{}", out.output);
}

#[tokio::test]
async fn limits_are_reported_in_words() {
    let out =
        run(json!({"language": "shell", "code": "while :; do :; done", "timeout_secs": 1})).await;
    assert!(
        out.output
            .starts_with("stopped: wall-clock limit of 1 s reached"),
        "{}",
        out.output
    );
    let out = run(json!({"language": "shell", "code": "yes"})).await;
    assert!(
        out.output
            .starts_with("stopped: output truncated at 2048 bytes"),
        "{}",
        out.output
    );
    assert!(
        out.output
            .ends_with("[output truncated at 2048 bytes; the program was stopped]")
    );
    let out = run(json!({"language": "python", "code": "b = bytearray(4 << 30)"})).await;
    assert!(
        out.output
            .contains("note: it ran out of memory (limit 512 MiB)"),
        "{}",
        out.output
    );
}

#[tokio::test]
async fn malformed_arguments_are_clear_errors() {
    let too_long = "x".repeat(MAX_CODE_BYTES + 1);
    let big_stdin = "x".repeat(MAX_STDIN_BYTES + 1);
    let cases = [
        (json!({"language": "ruby", "code": "puts 1"}), "language"),
        (json!({"language": "shell", "code": ""}), "code"),
        (
            json!({"language": "shell", "code": "   \n"}),
            "`code` is empty",
        ),
        (json!({"language": "shell"}), "code"),
        (json!({"code": "echo"}), "language"),
        (json!({"language": "shell", "code": too_long}), "code"),
        (
            json!({"language": "shell", "code": "cat", "stdin": big_stdin}),
            "stdin",
        ),
        (
            json!({"language": "shell", "code": "echo", "timeout_secs": 6}),
            "timeout_secs",
        ),
        (
            json!({"language": "shell", "code": "echo", "timeout_secs": 0}),
            "timeout_secs",
        ),
        (
            json!({"language": "shell", "code": "echo", "timeout_secs": 1.5}),
            "timeout_secs",
        ),
        (
            json!({"language": "shell", "code": "echo", "network": true}),
            "network",
        ),
        (json!({"language": "shell", "code": "echo\u{0}rm"}), "NUL"),
        (json!({"language": 7, "code": "echo"}), "language"),
    ];
    for (args, needle) in cases {
        let out = run(args.clone()).await;
        assert!(!out.ok, "{args} was accepted");
        assert!(out.output.starts_with("error: "), "{}", out.output);
        assert!(out.output.contains(needle), "{args}: {}", out.output);
        assert!(
            out.output.len() < 600,
            "error messages stay short: {}",
            out.output
        );
    }
    let out = registry()
        .call(
            &ToolCall {
                id: "c".into(),
                name: "run_code".into(),
                arguments: "{not json".into(),
            },
            &ctx(),
        )
        .await;
    assert!(
        !out.ok && out.output.contains("not valid JSON"),
        "{}",
        out.output
    );
}

#[tokio::test]
async fn the_preview_shows_rating_unwrapped_commands_and_code_and_runs_nothing() {
    let reg = registry();
    let code = "env -i time nice -n 5 rm -rf / > /tmp/steward-preview-marker";
    let prepared = reg
        .prepare(&call(&json!({"language": "shell", "code": code})))
        .unwrap();
    assert_eq!(prepared.effect, Effect::External);
    let preview = reg.preview(&prepared, &ctx()).await.unwrap().unwrap();
    assert!(preview.starts_with("shell code, risk: high"), "{preview}");
    assert!(preview.contains("$ rm -rf /"), "{preview}");
    assert!(preview.contains("no network"), "{preview}");
    assert!(preview.ends_with(&format!("code:\n{code}")), "{preview}");
    assert!(!PathBuf::from("/tmp/steward-preview-marker").exists());

    let prepared = reg
        .prepare(&call(
            &json!({"language": "python", "code": "print(sum(range(10)))"}),
        ))
        .unwrap();
    let preview = reg.preview(&prepared, &ctx()).await.unwrap().unwrap();
    assert!(preview.starts_with("python code, risk: low"), "{preview}");
}

#[test]
fn no_sandbox_means_no_tool_and_a_missing_python_means_shell_only() {
    let none = SandboxStatus {
        landlock_abi: 0,
        shell: Err("no Landlock".into()),
        python: Err("no Landlock".into()),
    };
    assert!(run_code_tool(cfg(), &none).is_none());

    let st = status();
    let shell_only = SandboxStatus {
        python: Err("not found".into()),
        ..st.clone()
    };
    let tool = run_code_tool(cfg(), &shell_only).expect("shell still works");
    assert_eq!(
        tool.parameters()["properties"]["language"]["enum"],
        json!(["shell"])
    );
    assert!(!tool.description().contains("Python"));
    assert!(
        tool.validate(&json!({"language": "python", "code": "1"}))
            .is_err()
    );

    let missing = probe(&CodeConfig {
        python: PathBuf::from("/nonexistent/python3"),
        ..CodeConfig::default()
    });
    assert!(missing.python.is_err(), "{missing:?}");
    assert!(missing.shell.is_ok(), "{missing:?}");
    assert!(
        missing.summary().contains("python unavailable"),
        "{}",
        missing.summary()
    );
}

/// The background probe offers `run_code` through a tool source once the sandbox has
/// worked, and the registry finds it by name.
#[test]
fn the_code_source_offers_run_code_after_the_probe() {
    use steward_sandbox::CodeSource;
    use steward_tools::ToolSource;
    let source = CodeSource::probe_in_background(CodeConfig::default());
    assert!(
        source.wait(std::time::Duration::from_secs(20)),
        "probe never finished"
    );
    let names: Vec<String> = source.tools().iter().map(|t| t.name().to_owned()).collect();
    assert_eq!(names, ["run_code"]);
    let mut registry = ToolRegistry::new();
    registry.add_source(source);
    assert!(registry.get("run_code").is_some());
}

/// A lazy source probes nothing until asked: start-up pays nothing for the sandbox, the
/// first tool listing starts the probe (and is empty), a later one offers `run_code`.
#[test]
fn a_lazy_code_source_probes_on_first_use() {
    use steward_sandbox::CodeSource;
    use steward_tools::ToolSource;
    let source = CodeSource::lazy(CodeConfig::default());
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!source.started());
    assert!(source.tools().is_empty(), "offered before the probe passed");
    assert!(source.started());
    assert!(
        source.wait(std::time::Duration::from_secs(20)),
        "probe never finished"
    );
    assert_eq!(source.tools().len(), 1);
}
