//! MCP tool schemas as the model gets them, end to end: the real binary (`steward serve`)
//! with a stdio MCP server whose tools use `$ref`/`$defs` (a real Pydantic schema, and a
//! remote reference), the fake model recording every request. The loaded tool's schema
//! arrives resolved and with its whole description, while the index keeps a one-line
//! summary; the remote reference is reported where a person looks (`mcp list`, the log);
//! an override naming no tool is warned about at start.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

const MARKER: &str = "END-OF-DESCRIPTION-MARKER";
const REMOTE: &str =
    "remote $ref `https://schemas.example/query.json` not followed (Steward never fetches schemas)";

fn refs_js() -> String {
    let js = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../steward-mcp/tests/fixtures/refs-server.mjs");
    assert!(js.is_file(), "fixture missing: {}", js.display());
    js.to_string_lossy().into_owned()
}

fn write_config(dir: &TempDir) {
    std::fs::write(
        dir.path().join("steward.toml"),
        format!(
            "[mcp.servers.refs]\ncommand = \"node\"\nargs = [{:?}]\n\
             tools.serch.effect = \"read\"\n",
            refs_js()
        ),
    )
    .unwrap();
}

fn tool<'a>(request: &'a Value, name: &str) -> Option<&'a Value> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loaded_tool_arrives_resolved_and_whole() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "load_tools",
        r#"{"names":["refs__search"]}"#,
    )));
    fake.push(Step::Reply(Reply::text("loaded")));
    let dir = TempDir::new("mcp-refs");
    write_config(&dir);
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN);
    let srv = start_server(cmd);
    let started = Instant::now();
    while !srv.stderr_text().contains("MCP server connected") {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the MCP server never connected:\n{}",
            srv.stderr_text()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let resp = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": "refs-1", "text": "weather in Oslo last week?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);

    // Before loading: only the index line, the first sentence of the description.
    let index = tool(&reqs[0].body, "load_tools").expect("load_tools offered");
    let index_text = index["function"]["description"].as_str().unwrap();
    assert!(
        index_text
            .lines()
            .any(|l| l == "refs__search: Search the weather archive."),
        "{index_text}"
    );
    assert!(!index_text.contains(MARKER), "{index_text}");
    assert!(tool(&reqs[0].body, "refs__search").is_none());

    // Loaded: the whole description and the resolved schema.
    let search = tool(&reqs[1].body, "refs__search").expect("loaded tool offered");
    let description = search["function"]["description"].as_str().unwrap();
    assert!(description.starts_with("[mcp:refs] Search the weather archive.\n\nParagraph 1:"));
    assert!(description.ends_with(MARKER), "{description}");
    assert!(description.len() > 3_000, "{}", description.len());
    assert!(description.contains("Key features:\n - nested queries"));
    let params = &search["function"]["parameters"];
    let query = &params["properties"]["query"];
    assert_eq!(query["type"], "object", "{params}");
    assert_eq!(
        query["properties"]["location"]["properties"]["city"],
        json!({"type": "string", "description": "City name"})
    );
    assert_eq!(
        query["properties"]["unit"]["enum"],
        json!(["celsius", "fahrenheit"])
    );
    assert_eq!(
        query["properties"]["filters"]["items"]["required"],
        json!(["field", "op", "value"])
    );
    assert_eq!(
        params["properties"]["tree"]["properties"]["children"]["items"]["properties"]["label"]["type"],
        "string"
    );
    assert_eq!(params["required"], json!(["query"]));

    // The log says what a person should fix: the override naming no tool (`serch`), and
    // the remote reference of `lookup`.
    let log = srv.stderr_text();
    assert!(
        log.contains("tools.serch.effect names no tool of this server"),
        "{log}"
    );
    assert!(log.contains(REMOTE), "{log}");
    assert_eq!(log.matches(REMOTE).count(), 1, "reported once: {log}");
}

#[test]
fn mcp_list_and_doctor_report_remote_refs_and_unknown_overrides() {
    let dir = TempDir::new("mcp-refs-list");
    write_config(&dir);
    let out = base_command(dir.path())
        .args(["mcp", "list"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let lookup = stdout
        .split("\n    refs__")
        .find(|t| t.starts_with("lookup"))
        .unwrap_or_else(|| panic!("no lookup tool in {stdout}"));
    assert!(
        lookup.contains(&format!("\n      warning: {REMOTE}")),
        "{stdout}"
    );
    assert!(
        stdout.contains("  warning: [mcp.servers.refs] tools.serch.effect names no tool"),
        "{stdout}"
    );

    let out = base_command(dir.path()).arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("warn mcp refs: [mcp.servers.refs] tools.serch.effect names no tool"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("warn mcp refs: tool lookup: {REMOTE}")),
        "{stdout}"
    );
    assert!(stdout.contains("ok   mcp refs: ok, 2 tools"), "{stdout}");
}
