//! The MCP client against the real `@modelcontextprotocol/server-everything` over stdio:
//! tools listed and called (directly and through the registry), a resource read and fenced,
//! the server killed mid-session (clear error, no hang, restarted with backoff), and its
//! sampling tool refused.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use std::time::{Duration, Instant};
use steward_mcp::{McpManager, SAMPLING_NEEDS_APPROVAL, SAMPLING_REFUSED, Status};
use steward_protocol::{Effect, ToolCall};
use steward_tools::{OutputTrust, ToolRegistry};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_calls_reads_and_survives_a_kill() {
    let mut spec = everything_stdio();
    spec.trust_annotations = true;
    let mgr = McpManager::start(vec![spec]);
    let st = connected(&mgr, "everything").await;
    let names: Vec<&str> = st.tools.iter().map(|t| t.name.as_str()).collect();
    for expected in [
        "everything__echo",
        "everything__get_sum",
        "everything__list_resources",
        "everything__read_resource",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let echo_info = st
        .tools
        .iter()
        .find(|t| t.name == "everything__echo")
        .unwrap();
    assert_eq!(
        echo_info.effect,
        Effect::Read,
        "readOnlyHint → read (the owner trusts this server's annotations)"
    );
    assert_eq!(echo_info.original, "echo");
    // No annotation saying read-only: the gate must ask.
    let toggle = st
        .tools
        .iter()
        .find(|t| t.name == "everything__toggle_simulated_logging")
        .unwrap();
    assert_ne!(toggle.effect, Effect::Read);
    let pid = st.pid.expect("a stdio server has a pid");

    let echo = tool(&mgr, "everything", "everything__echo");
    // What the call touches, for the taint rule and the card: the message goes to the server.
    let reach = echo.reach(&json!({"message": "see https://example.com/x"}));
    assert_eq!(
        reach.summary.as_deref(),
        Some("everything echo: see https://example.com/x")
    );
    assert_eq!(reach.sends, ["see https://example.com/x"]);
    assert!(reach.urls.is_empty(), "text around a URL is not a URL");
    assert_eq!(echo.output_trust(), OutputTrust::Untrusted);
    let out = echo
        .run(json!({"message": "hello mcp"}), &ctx())
        .await
        .unwrap();
    assert!(
        out.starts_with("<untrusted source=\"mcp:everything/echo\">\n"),
        "{out}"
    );
    assert!(out.contains("Echo: hello mcp"), "{out}");
    assert!(out.ends_with("\n</untrusted>"), "{out}");

    let sum = tool(&mgr, "everything", "everything__get_sum");
    let out = sum.run(json!({"a": 2, "b": 40}), &ctx()).await.unwrap();
    assert!(out.contains("The sum of 2 and 40 is 42."), "{out}");
    // The server validates too: a wrong type comes back as the tool's error, fenced.
    let err = sum
        .run(json!({"a": "x", "b": 1}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("<untrusted"), "{err}");

    // Through the registry, as the agent loop calls it: the source is consulted by name.
    let mut registry = ToolRegistry::new();
    for s in mgr.sources() {
        registry.add_source(s);
    }
    let outcome = registry
        .call(
            &ToolCall {
                id: "c1".into(),
                name: "everything__get_sum".into(),
                arguments: r#"{"a": 1, "b": 2}"#.into(),
            },
            &ctx(),
        )
        .await;
    assert!(outcome.ok, "{}", outcome.output);
    assert!(outcome.output.contains("is 3."), "{}", outcome.output);
    let bad = registry
        .call(
            &ToolCall {
                id: "c2".into(),
                name: "everything__get_sum".into(),
                arguments: r#"{"a": "one"}"#.into(),
            },
            &ctx(),
        )
        .await;
    assert!(!bad.ok);
    assert!(
        bad.output.contains("must be a number"),
        "our schema check first: {}",
        bad.output
    );

    // Resources: listed, then one read, fenced.
    let list = tool(&mgr, "everything", "everything__list_resources");
    let listing = list.run(json!({}), &ctx()).await.unwrap();
    let uri = listing
        .lines()
        .find_map(|l| l.split(" | ").next().filter(|u| u.starts_with("demo://")))
        .unwrap_or_else(|| panic!("no demo:// resource in {listing}"))
        .to_owned();
    let read = tool(&mgr, "everything", "everything__read_resource");
    let r = read.reach(&json!({"uri": uri}));
    assert_eq!(r.summary.as_deref(), Some(uri.as_str()));
    assert_eq!(r.sends, std::slice::from_ref(&uri));
    assert_eq!(read.output_trust(), OutputTrust::Untrusted);
    let text = read.run(json!({"uri": uri}), &ctx()).await.unwrap();
    assert!(
        text.starts_with("<untrusted source=\"mcp:everything/resource\">"),
        "{text}"
    );
    assert!(text.contains(&format!("[resource {uri}]")), "{text}");
    assert_eq!(text.matches("</untrusted>").count(), 1);
    let missing = read
        .run(json!({"uri": "demo://nope/404"}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(missing.contains("refused the request"), "{missing}");

    // Kill the server mid-session: the next call errors clearly and fast.
    kill(pid);
    let started = Instant::now();
    let err = loop {
        match echo.run(json!({"message": "after kill"}), &ctx()).await {
            Err(e) => break e.to_string(),
            // The kill may not have landed yet.
            Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "calls kept succeeding after kill"
        );
    };
    assert!(started.elapsed() < Duration::from_secs(5), "the call hung");
    assert!(
        err.contains("not connected") || err.contains("lost the connection"),
        "{err}"
    );
    // While it is down its tools vanish from the source, and the registry says why.
    let down = wait_for(&mgr, "everything", Duration::from_secs(5), "down", |s| {
        !s.is_connected()
    })
    .await;
    assert!(down.tools.is_empty(), "{:?}", down.status);
    assert!(matches!(
        down.status,
        Status::Down { .. } | Status::Connecting
    ));

    // Restarted with backoff: a new process, and the old tool object works again.
    let again = connected(&mgr, "everything").await;
    assert_ne!(again.pid, Some(pid), "a new process");
    let out = echo.run(json!({"message": "back"}), &ctx()).await.unwrap();
    assert!(out.contains("Echo: back"), "{out}");
    mgr.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_is_refused() {
    // Without allow_sampling the capability is not advertised, so the server hides its tool.
    let plain = McpManager::start(vec![everything_stdio()]);
    let st = connected(&plain, "everything").await;
    let echo = st.tools.iter().find(|t| t.original == "echo").unwrap();
    assert_eq!(
        echo.effect,
        Effect::External,
        "annotations are not trusted by default: even a read-only tool asks"
    );
    assert!(
        !st.tools
            .iter()
            .any(|t| t.original == "trigger-sampling-request"),
        "sampling tool offered without the capability"
    );
    plain.shutdown();
    assert!(!SAMPLING_REFUSED.is_empty());

    // With it, the tool appears; calling it makes the server ask us to sample, and we refuse.
    let mut spec = everything_stdio();
    spec.allow_sampling = true;
    let mgr = McpManager::start(vec![spec]);
    let st = wait_for(
        &mgr,
        "everything",
        Duration::from_secs(30),
        "the sampling tool",
        |s| {
            s.tools
                .iter()
                .any(|t| t.original == "trigger-sampling-request")
        },
    )
    .await;
    let info = st
        .tools
        .iter()
        .find(|t| t.original == "trigger-sampling-request")
        .unwrap();
    assert_eq!(
        info.effect,
        Effect::External,
        "no read-only hint: the gate asks"
    );
    let sample = tool(&mgr, "everything", &info.name);
    let err = sample
        .run(json!({"prompt": "write a poem", "maxTokens": 10}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains(SAMPLING_NEEDS_APPROVAL), "{err}");
    let st = mgr.server("everything").unwrap().status();
    assert_eq!(st.sampling_refused, 1);
    assert!(
        st.is_connected(),
        "a refused sampling request does not break the session"
    );
    mgr.shutdown();
}
