//! Memory through one desk, for the principal the transport authenticated, end to end with
//! the real binary: the HTTP API, `/mcp` (through steward-mcp's client with the API token)
//! and `steward memory` on one data directory. The same hostile input is refused in the same
//! words by each path, another principal's note is invisible through each, and the owner a
//! surface acts for is the configured one (`STEWARD_OWNER`), a turn's memory tool included.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, Instant};
use steward_core::memory_desk::{MAX_NOTE_TITLE_BYTES, MAX_QUERY_BYTES};
use steward_mcp::{McpManager, ServerSpec, Transport};
use steward_protocol::{ConversationId, Principal, PrincipalId, Provenance};
use steward_store::{NewNote, Store, StoreConfig};
use steward_testkit::{FakeModel, Reply, Step};
use steward_tools::{Tool, ToolContext};
use support::*;

/// The client side's own context (the server acts for whom its token authenticates).
fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test").unwrap(),
        Principal::authenticated(PrincipalId::parse("client").unwrap()),
        None,
    )
}

/// `steward serve` on `dir` with the test token, no embedder, `env` on top.
fn serve(dir: &TempDir, env: &[(&str, &str)]) -> Server {
    let mut cmd = base_command(dir.path());
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_EMBEDDER", "none");
    for (k, v) in env {
        cmd.env(k, v);
    }
    start_server(cmd)
}

/// Steward's own MCP server at `/mcp`, as another MCP client reaches it.
async fn mcp_client(server: &Server) -> Arc<McpManager> {
    let mut headers = BTreeMap::new();
    headers.insert("Authorization".to_owned(), format!("Bearer {TOKEN}"));
    let url = server.url("/mcp");
    let mut spec = ServerSpec::new("home", Transport::Http { url, headers });
    spec.timeout = Duration::from_secs(20);
    let mgr = McpManager::start(vec![spec]);
    let started = Instant::now();
    while !mgr.server("home").unwrap().status().is_connected() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no MCP connection"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    mgr
}

/// One of the MCP server's tools, by its name there; its text or its refusal.
async fn mcp(mgr: &McpManager, name: &str, args: Value) -> Result<String, String> {
    let tool: Arc<dyn Tool> = mgr
        .sources()
        .iter()
        .flat_map(|s| s.tools())
        .find(|t| t.name() == format!("home__{name}"))
        .unwrap_or_else(|| panic!("no tool {name}"));
    tool.run(args, &ctx()).await.map_err(|e| e.to_string())
}

/// An HTTP call with the token: status and JSON body.
async fn http(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = client()
        .request(method, server.url(path))
        .bearer_auth(TOKEN);
    if let Some(body) = body {
        req = req.json(&body);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// `steward memory ARGS` on `dir`, with `env` on top.
fn cli(dir: &TempDir, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = base_command(dir.path());
    cmd.env("STEWARD_EMBEDDER", "none").arg("memory").args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn cli_err(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "succeeded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn store(dir: &TempDir) -> Arc<dyn Store> {
    steward_store::open(&StoreConfig::sqlite_file(dir.path().join("steward.db"))).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_hostile_input_is_refused_in_the_same_words_by_every_surface() {
    let dir = TempDir::new("desk-words");
    let server = serve(&dir, &[]);
    let mgr = mcp_client(&server).await;
    let long_title = "t".repeat(MAX_NOTE_TITLE_BYTES + 1);
    let long_query = "q".repeat(MAX_QUERY_BYTES + 1);
    let title_words = format!("title is longer than {MAX_NOTE_TITLE_BYTES} bytes");
    let query_words = format!("query is longer than {MAX_QUERY_BYTES} bytes");

    // A title over the limit. (Before the desk: MCP refused it at 200 characters in the
    // schema's words, the CLI saved it.)
    let (status, body) = http(
        &server,
        reqwest::Method::POST,
        "/api/v1/notes",
        Some(json!({"title": long_title, "body": "b"})),
    )
    .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["message"], title_words.as_str());
    let via_mcp = mcp(
        &mgr,
        "steward_save_note",
        json!({"title": long_title, "body": "b"}),
    )
    .await;
    assert!(
        via_mcp.as_ref().unwrap_err().contains(&title_words),
        "{via_mcp:?}"
    );
    let via_cli = cli_err(&cli(
        &dir,
        &[],
        &["note", "add", "--title", &long_title, "b"],
    ));
    assert!(via_cli.contains(&title_words), "{via_cli}");

    // A blank body. (Before: three different sentences.)
    let blank = "body must not be empty";
    let (status, body) = http(
        &server,
        reqwest::Method::POST,
        "/api/v1/notes",
        Some(json!({"title": "t", "body": "  "})),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["message"], blank);
    let via_mcp = mcp(
        &mgr,
        "steward_save_note",
        json!({"title": "t", "body": "  "}),
    )
    .await;
    assert!(via_mcp.as_ref().unwrap_err().contains(blank), "{via_mcp:?}");
    let via_cli = cli_err(&cli(&dir, &[], &["note", "add", "--title", "t", "  "]));
    assert!(via_cli.contains(blank), "{via_cli}");

    // A query over the limit. (Before: HTTP said `q`, MCP refused at 500 characters, the
    // CLI took any length.)
    let path = format!("/api/v1/memory/search?q={long_query}");
    let (status, body) = http(&server, reqwest::Method::GET, &path, None).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["message"], query_words.as_str());
    for tool in ["steward_recall", "steward_search_notes"] {
        let got = mcp(&mgr, tool, json!({"query": long_query})).await;
        assert!(
            got.as_ref().unwrap_err().contains(&query_words),
            "{tool}: {got:?}"
        );
    }
    let via_cli = cli_err(&cli(&dir, &[], &["search", &long_query]));
    assert!(via_cli.contains(&query_words), "{via_cli}");

    assert!(
        store(&dir)
            .list_notes("owner", &Default::default(), 10)
            .await
            .unwrap()
            .is_empty(),
        "nothing was stored"
    );
    mgr.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_principals_note_is_invisible_through_every_surface() {
    let dir = TempDir::new("desk-theirs");
    let server = serve(&dir, &[]);
    let mgr = mcp_client(&server).await;
    let theirs = NewNote {
        title: "Garage".into(),
        body: "the garage door code is 4711".into(),
        tags: vec!["house".into()],
        provenance: Provenance::Tainted {
            conversation: None,
            sources: vec!["fetch_url".into()],
        },
    };
    let note = store(&dir)
        .insert_note("bob", &theirs, 1_000)
        .await
        .unwrap();
    let id = note.id.to_string();

    // HTTP: not found, not listed, not found by its words, not confirmable.
    let path = format!("/api/v1/notes/{id}");
    let patch = Some(json!({"title": "mine now"}));
    assert_eq!(
        http(&server, reqwest::Method::PATCH, &path, patch).await.0,
        404
    );
    assert_eq!(
        http(&server, reqwest::Method::DELETE, &path, None).await.0,
        404
    );
    let confirm = format!("/api/v1/notes/{id}/confirm");
    assert_eq!(
        http(&server, reqwest::Method::POST, &confirm, None).await.0,
        404
    );
    let (_, listed) = http(&server, reqwest::Method::GET, "/api/v1/notes", None).await;
    assert_eq!(listed["notes"], json!([]));
    let (_, found) = http(
        &server,
        reqwest::Method::GET,
        "/api/v1/memory/search?q=garage",
        None,
    )
    .await;
    assert_eq!(found["hits"], json!([]));

    // The terminal: the same. (Before the desk, `note edit` and `note delete` took any id.)
    let edit = cli_err(&cli(
        &dir,
        &[],
        &["note", "edit", &id, "--title", "mine now"],
    ));
    assert!(edit.contains(&format!("no note {id}")), "{edit}");
    let delete = cli_err(&cli(&dir, &[], &["note", "delete", &id]));
    assert!(delete.contains(&format!("no note {id}")), "{delete}");
    let confirmed = cli_err(&cli(&dir, &[], &["confirm", "note", &id]));
    assert!(confirmed.contains("no unconfirmed note"), "{confirmed}");
    let notes = cli(&dir, &[], &["notes"]);
    assert!(!String::from_utf8_lossy(&notes.stdout).contains("Garage"));
    let search = cli(&dir, &[], &["search", "garage"]);
    assert!(!String::from_utf8_lossy(&search.stdout).contains("4711"));

    // MCP: not listed, not found (the client fences what a server says).
    let listed = mcp(&mgr, "steward_list_notes", json!({"tags": ["house"]}))
        .await
        .unwrap();
    assert!(listed.contains("\nno notes\n"), "{listed}");
    for tool in ["steward_recall", "steward_search_notes"] {
        let got = mcp(&mgr, tool, json!({"query": "garage door code"}))
            .await
            .unwrap();
        assert!(got.contains("\nno matches\n"), "{tool}: {got}");
    }

    let kept = store(&dir).get_note(note.id).await.unwrap().unwrap();
    assert_eq!(
        (kept.title.as_str(), kept.provenance),
        ("Garage", theirs.provenance)
    );
    mgr.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configured_owner_is_whom_a_turn_its_memory_tool_and_every_surface_act_for() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "remember",
        r#"{"key":"home.city","value":"Oslo"}"#,
    )));
    fake.push(Step::Reply(Reply::text("Noted.")));
    let dir = TempDir::new("desk-ann");
    let ann = [("STEWARD_OWNER", "ann")];
    let server = serve_with_fake(
        &dir,
        &fake.openai_base_url(),
        &[ann[0], ("STEWARD_EMBEDDER", "none")],
    );

    // A turn over HTTP: its memory tool writes for the principal the token authenticated.
    let (status, body) = post_message_keyed(&server, None, "ann-1", "I live in Oslo").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reply"], "Noted.");
    let db = store(&dir);
    let anns = db.get_fact("ann", "home.city").await.unwrap();
    assert_eq!(anns.map(|f| f.value).as_deref(), Some("Oslo"));
    assert!(db.get_fact("owner", "home.city").await.unwrap().is_none());
    let (_, facts) = http(&server, reqwest::Method::GET, "/api/v1/facts", None).await;
    assert_eq!(facts["facts"][0]["key"], "home.city", "{facts}");

    // /mcp acts for ann too.
    let mgr = mcp_client(&server).await;
    let saved = mcp(
        &mgr,
        "steward_save_note",
        json!({"title": "Boiler", "body": "Vaillant"}),
    )
    .await;
    assert!(saved.unwrap().contains("saved note"));
    let filter = Default::default();
    assert_eq!(db.list_notes("ann", &filter, 10).await.unwrap().len(), 1);
    assert!(
        db.list_notes("owner", &filter, 10)
            .await
            .unwrap()
            .is_empty()
    );
    mgr.shutdown();

    // And the terminal: the same owner sees ann's fact, the default one does not.
    let listed = cli(&dir, &ann, &["facts"]);
    assert!(String::from_utf8_lossy(&listed.stdout).contains("home.city = Oslo"));
    let default = cli(&dir, &[], &["facts"]);
    assert!(!String::from_utf8_lossy(&default.stdout).contains("Oslo"));

    // Steward's own id is no owner a surface may act for.
    let refused = cli_err(&cli(&dir, &[("STEWARD_OWNER", "system")], &["facts"]));
    assert!(refused.contains("owner"), "{refused}");
}
