//! The composition root wires configured MCP servers into the agent's tool registry without
//! waiting for them: `app::tools` returns at once, a broken server only offers nothing, and a
//! working one's tools become callable by name once it has connected.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use crate::support;

use config_support::{env_of, load_in, temp_dir, write};
use std::time::{Duration, Instant};
use steward_protocol::{ConversationId, ToolCall};
use steward_tools::ToolContext;
use support::everything_js;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_reach_the_registry_in_the_background() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        &format!(
            "[mcp.servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n\n\
             [mcp.servers.broken]\ncommand = \"/nonexistent/mcp\"\n",
            everything_js()
        ),
    );
    let env = env_of(
        &dir,
        &[
            ("STEWARD_DATA_DIR", dir.to_str().unwrap()),
            ("STEWARD_EMBEDDER", "none"),
        ],
    );
    let loaded = load_in(&dir, None, &env).unwrap();
    let settings = &loaded.settings;
    let clock = steward::app::clock();
    let store = steward_store::open(&steward_store::StoreConfig::sqlite_file(
        dir.join("steward.db"),
    ))
    .unwrap();
    let memory = steward::memory_wiring::build_memory(settings, store, clock.clone()).unwrap();

    let started = Instant::now();
    let registry = steward::app::tools(settings, &memory, clock).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "start-up waited for MCP servers: {:?}",
        started.elapsed()
    );
    let mcp_labels: Vec<String> = registry
        .source_labels()
        .into_iter()
        .filter(|l| l.starts_with("mcp:"))
        .collect();
    assert_eq!(mcp_labels, ["mcp:broken", "mcp:everything"]);

    let ctx = ToolContext::new(
        ConversationId::parse("wiring").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    );
    let call = ToolCall {
        id: "1".into(),
        name: "everything__get_sum".into(),
        arguments: r#"{"a": 20, "b": 22}"#.into(),
    };
    let outcome = loop {
        let outcome = registry.call(&call, &ctx).await;
        if outcome.ok {
            break outcome;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the MCP tool never became available: {}",
            outcome.output
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        outcome.output.contains("The sum of 20 and 22 is 42."),
        "{}",
        outcome.output
    );
    assert!(registry.get("broken__anything").is_none());
}
