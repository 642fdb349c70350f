//! A hostile MCP server (tests/fixtures/hostile-server.mjs) cannot get past the client: junk
//! lines, a huge result, an over-long line, a hang, a malformed result, a crash, a sampling
//! request, a result that tries to close the fence, hostile names, descriptions and schemas,
//! and a secret it prints — each contained, and the session survives what it can survive.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use steward_mcp::{INHERITED_ENV, McpManager, SAMPLING_REFUSED, ServerSpec, Transport};
use steward_protocol::Effect;
use steward_tools::{DEFAULT_MAX_OUTPUT_BYTES, ToolRegistry};
use support::*;

const TOKEN: &str = "hostile-token-0123456789";

fn spec() -> ServerSpec {
    let script = hostile_js();
    let mut env = BTreeMap::new();
    env.insert("HOSTILE_TOKEN".to_owned(), TOKEN.to_owned());
    let mut spec = ServerSpec::new(
        "hostile",
        Transport::Stdio {
            command: node(),
            args: vec![script],
            env,
        },
    );
    spec.timeout = Duration::from_secs(2);
    spec.effects.insert("fence".to_owned(), Effect::External);
    spec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_server_is_contained() {
    let mgr = McpManager::start(vec![spec()]);
    let st = connected(&mgr, "hostile").await;

    // Names are sanitised and namespaced; descriptions single-line and bounded; effects from
    // annotations, with the configured override winning.
    let weird = st
        .tools
        .iter()
        .find(|t| t.original.contains("Weird"))
        .unwrap();
    assert_eq!(weird.name, "hostile________weird_name_");
    assert!(!weird.summary.contains('\n'));
    assert!(
        weird.summary.chars().count() < 340,
        "{}",
        weird.summary.len()
    );
    // (How annotations map to effects is pinned in annotations.rs.)
    let effect = |n: &str| st.tools.iter().find(|t| t.original == n).unwrap().effect;
    assert_eq!(effect("delete-all"), Effect::Destructive);
    assert_eq!(effect("sample"), Effect::External);
    assert_eq!(
        effect("huge"),
        Effect::External,
        "its readOnlyHint is not trusted by default"
    );

    // Its draft-07 `definitions` reference is followed; its long description reaches the
    // model whole (bounded), while the listing keeps one short line.
    let weird_tool = tool(&mgr, "hostile", &weird.name);
    assert_eq!(
        weird_tool.parameters()["properties"]["r"],
        json!({"type": "string"})
    );
    assert!(weird.warnings.is_empty(), "{:?}", weird.warnings);
    let full = weird_tool.description();
    assert!(
        full.starts_with("[mcp:hostile] line one\n\nline two </untrusted> xxx"),
        "{full}"
    );
    assert!(full.len() > 5_000 && full.len() < 8_300, "{}", full.len());

    // Every tool, hostile schema included, is accepted by the registry's checker.
    let mut registry = ToolRegistry::new();
    for t in mgr.sources()[0].tools() {
        registry
            .register(t.clone())
            .unwrap_or_else(|e| panic!("{} refused: {e}", t.name()));
    }

    // A result that tries to close the fence stays inside it.
    let fence = tool(&mgr, "hostile", "hostile__fence")
        .run(json!({}), &ctx())
        .await
        .unwrap();
    assert_eq!(fence.matches("</untrusted>").count(), 1, "{fence}");
    assert_eq!(fence.matches("<untrusted").count(), 1, "{fence}");
    assert!(fence.contains("&lt;/untrusted>"), "{fence}");

    // 3 MB of output is cut well below the registry cap, and the fence still closes.
    let huge = tool(&mgr, "hostile", "hostile__huge")
        .run(json!({}), &ctx())
        .await
        .unwrap();
    assert!(huge.len() < DEFAULT_MAX_OUTPUT_BYTES, "{}", huge.len());
    assert!(huge.ends_with("</untrusted>"));
    assert!(huge.contains("more bytes not shown"));

    // A 5 MB line (over the 4 MB message cap) is dropped; the answer after it arrives.
    let flood = tool(&mgr, "hostile", "hostile__flood")
        .run(json!({}), &ctx())
        .await
        .unwrap();
    assert!(flood.contains("after the flood"), "{flood}");

    // A call that never gets an answer times out (2 s here) instead of hanging the turn; the
    // server still answers pings, so the session is kept.
    let started = Instant::now();
    let hang = tool(&mgr, "hostile", "hostile__hang")
        .run(json!({}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert!(hang.contains("did not answer within 2 s"), "{hang}");

    // A malformed result is an error, not a crash.
    let junk = tool(&mgr, "hostile", "hostile__junk")
        .run(json!({}), &ctx())
        .await;
    assert!(junk.is_err(), "{junk:?}");

    // Non-text content is summarised, never passed through.
    let media = tool(&mgr, "hostile", "hostile__media")
        .run(json!({}), &ctx())
        .await
        .unwrap();
    assert!(media.contains("[image image/png, 12 KB]"), "{media}");
    assert!(media.contains("[audio audio/wav, 3 B]"), "{media}");
    assert!(
        media.contains("[resource link file:///tmp/x.txt (x)]"),
        "{media}"
    );
    assert!(
        media.contains("[resource file:///tmp/b.bin application/octet-stream, 3 B]"),
        "{media}"
    );
    assert!(!media.contains("AAAA"), "{media}");

    // Sampling is refused with an MCP error the server sees.
    let sample = tool(&mgr, "hostile", "hostile__sample")
        .run(json!({}), &ctx())
        .await
        .unwrap();
    assert!(sample.contains(SAMPLING_REFUSED), "{sample}");
    assert!(sample.contains("-32600"), "{sample}");

    // The server gets only the inherited variables and its own `env`; its secret never
    // reaches our logs or listings, and is redacted from what it returns.
    let env = tool(&mgr, "hostile", "hostile__env")
        .run(json!({}), &ctx())
        .await
        .unwrap();
    let names = env
        .lines()
        .nth(1)
        .unwrap()
        .split(" token=")
        .next()
        .unwrap()
        .to_owned();
    for name in names.split(',').filter(|n| !n.is_empty()) {
        assert!(
            INHERITED_ENV.contains(&name) || name == "HOSTILE_TOKEN",
            "the server inherited {name}"
        );
    }
    assert!(env.contains("token=[redacted]"), "{env}");
    assert!(!env.contains(TOKEN));
    let st = mgr.server("hostile").unwrap().status();
    let stderr = st.stderr.join("\n");
    assert!(
        stderr.contains("starting with token [redacted]"),
        "{stderr}"
    );
    assert!(!format!("{st:?}").contains(TOKEN));
    assert!(st.is_connected(), "all of the above left the session up");
    let pid = st.pid;

    // A crash mid-call: a clear error, then a restart.
    let crash = tool(&mgr, "hostile", "hostile__crash")
        .run(json!({}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        crash.contains("lost the connection") || crash.contains("not connected"),
        "{crash}"
    );
    let again = wait_for(&mgr, "hostile", Duration::from_secs(20), "a restart", |s| {
        s.is_connected() && s.pid != pid
    })
    .await;
    assert!(!again.tools.is_empty());
    mgr.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_starts_is_retried_with_growing_backoff() {
    let mut spec = stdio_spec("broken", vec!["-e".into(), "process.exit(1)".into()]);
    spec.timeout = Duration::from_secs(5);
    let mgr = McpManager::start(vec![spec]);
    // Start-up did not wait for it: the manager exists and reports it as not connected.
    assert!(!mgr.statuses()[0].is_connected());
    let st = wait_for(
        &mgr,
        "broken",
        Duration::from_secs(20),
        "three attempts",
        |s| matches!(s.status, steward_mcp::Status::Down { attempts, .. } if attempts >= 3),
    )
    .await;
    if let steward_mcp::Status::Down {
        retry_in, error, ..
    } = st.status
    {
        // 500 ms × 2² ± 20 % for the third attempt.
        assert!(retry_in >= Duration::from_millis(1600), "{retry_in:?}");
        assert!(retry_in <= Duration::from_millis(2400), "{retry_in:?}");
        assert!(!error.is_empty());
    }
    assert!(mgr.sources()[0].tools().is_empty());
    mgr.shutdown();
}
