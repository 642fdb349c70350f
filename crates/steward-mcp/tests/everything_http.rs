//! The MCP client against the real server-everything over streamable HTTP: tools listed and
//! called, a resource read and fenced, custom headers sent, the server process killed
//! mid-session (clear error, no hang), then started again and reconnected with backoff.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use steward_mcp::{McpManager, ServerSpec, Transport, probe};
use support::*;

fn http_spec(url: String) -> ServerSpec {
    let mut headers = BTreeMap::new();
    headers.insert(
        "X-Steward-Test".to_owned(),
        "secret-header-value".to_owned(),
    );
    let mut spec = ServerSpec::new("remote", Transport::Http { url, headers });
    spec.timeout = Duration::from_secs(10);
    spec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_calls_reads_and_survives_a_restart() {
    let port = free_port();
    let mut server = HttpEverything::start(port);
    let mgr = McpManager::start(vec![http_spec(server.url())]);
    let st = connected(&mgr, "remote").await;
    assert_eq!(st.transport, "http");
    assert_eq!(st.pid, None);
    assert!(st.tools.iter().any(|t| t.name == "remote__echo"));

    let echo = tool(&mgr, "remote", "remote__echo");
    let out = echo
        .run(json!({"message": "over http"}), &ctx())
        .await
        .unwrap();
    assert!(out.contains("Echo: over http"), "{out}");
    assert!(
        out.starts_with("<untrusted source=\"mcp:remote/echo\">"),
        "{out}"
    );

    let list = tool(&mgr, "remote", "remote__list_resources");
    let listing = list.run(json!({}), &ctx()).await.unwrap();
    let uri = listing
        .lines()
        .find_map(|l| l.split(" | ").next().filter(|u| u.starts_with("demo://")))
        .unwrap_or_else(|| panic!("no demo:// resource in {listing}"))
        .to_owned();
    let read = tool(&mgr, "remote", "remote__read_resource");
    let text = read.run(json!({"uri": uri}), &ctx()).await.unwrap();
    assert!(
        text.starts_with("<untrusted source=\"mcp:remote/resource\">"),
        "{text}"
    );
    assert_eq!(text.matches("</untrusted>").count(), 1);

    // Kill the HTTP server process: the next call fails clearly, without hanging.
    server.kill();
    let started = Instant::now();
    let err = echo
        .run(json!({"message": "dead"}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(started.elapsed() < Duration::from_secs(12), "the call hung");
    assert!(
        err.contains("lost the connection")
            || err.contains("not connected")
            || err.contains("did not answer"),
        "{err}"
    );
    assert!(!err.contains("secret-header-value"), "{err}");
    wait_for(&mgr, "remote", Duration::from_secs(10), "down", |s| {
        !s.is_connected()
    })
    .await;
    assert!(
        mgr.sources()[0].tools().is_empty(),
        "tools vanish while down"
    );

    // Bring it back on the same port: the supervisor reconnects by itself.
    let _server = HttpEverything::start(port);
    connected(&mgr, "remote").await;
    let out = echo.run(json!({"message": "again"}), &ctx()).await.unwrap();
    assert!(out.contains("Echo: again"), "{out}");
    mgr.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe_reports_tools_and_failures() {
    let server = HttpEverything::start(free_port());
    let report = probe(&http_spec(server.url())).await;
    let tools = report.result.as_ref().expect("probe works");
    assert!(tools.iter().any(|t| t.name == "remote__get_sum"));
    assert!(report.connect > Duration::ZERO);

    // Nothing listens here.
    let dead = probe(&http_spec(format!("http://127.0.0.1:{}/mcp", free_port()))).await;
    let err = dead.result.unwrap_err();
    assert!(!err.is_empty());
    assert!(!err.contains("secret-header-value"), "{err}");

    // A stdio command that does not exist.
    let mut missing = stdio_spec("ghost", vec![]);
    missing.transport = Transport::Stdio {
        command: "/nonexistent/steward-mcp-server".into(),
        args: vec![],
        env: BTreeMap::new(),
    };
    let err = probe(&missing).await.result.unwrap_err();
    assert!(
        err.contains("cannot start `/nonexistent/steward-mcp-server`"),
        "{err}"
    );
}
