//! Steward's MCP server, end to end with the real binary: `steward mcp serve` over stdio
//! (through steward-mcp's client, and raw JSON-RPC for the error paths) and `/mcp` on a real
//! `steward serve` (through the client with the API token; 401 without it); and the one tag
//! rule held by every surface that takes tags (HTTP, the memory tool, MCP, the CLI).

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use steward_mcp::{McpManager, ServerSpec, Transport};
use steward_protocol::{ConversationId, Effect};
use steward_store::MemoryStore;
use steward_tools::{Tool, ToolContext};
use support::{TOKEN, TempDir, base_command, client, start_server, steward_bin};

fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    )
}

/// The data dir's environment for a `steward` child (no model, full-text recall only).
fn child_env(dir: &std::path::Path) -> BTreeMap<String, String> {
    let d = dir.to_string_lossy().into_owned();
    let mut env = BTreeMap::new();
    env.insert("STEWARD_DATA_DIR".to_owned(), d.clone());
    env.insert("HOME".to_owned(), d);
    env.insert("STEWARD_EMBEDDER".to_owned(), "none".to_owned());
    env.insert("STEWARD_LOG".to_owned(), "warn".to_owned());
    env
}

/// One reminder (a memory intention) in the database before the server starts.
async fn seed_reminder(dir: &std::path::Path) {
    let store = steward_store::open(&steward_store::StoreConfig::sqlite_file(
        dir.join("steward.db"),
    ))
    .unwrap();
    store
        .add_intention(
            "owner",
            "call the plumber about the boiler",
            Some(1_900_000_000_000),
            1,
        )
        .await
        .unwrap();
}

async fn connected(mgr: &McpManager, name: &str) {
    let started = Instant::now();
    while !mgr.server(name).unwrap().status().is_connected() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no connection: {:?}",
            mgr.server(name).unwrap().status()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn tool(mgr: &McpManager, name: &str) -> Arc<dyn Tool> {
    mgr.sources()
        .iter()
        .flat_map(|s| s.tools())
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// Save, list, search and recall a note, list the seeded reminder, and get an error for bad
/// arguments: the same script for stdio and HTTP.
async fn exercise(mgr: &McpManager, server: &str) {
    let st = mgr.server(server).unwrap().status();
    let names: Vec<&str> = st.tools.iter().map(|t| t.name.as_str()).collect();
    for t in [
        "steward_recall",
        "steward_search_notes",
        "steward_save_note",
        "steward_list_notes",
        "steward_list_reminders",
    ] {
        assert!(
            names.contains(&format!("{server}__{t}").as_str()),
            "{t} missing: {names:?}"
        );
    }
    let effect = |n: &str| st.tools.iter().find(|t| t.original == n).unwrap().effect;
    assert_eq!(effect("steward_recall"), Effect::Read);
    assert_eq!(effect("steward_list_reminders"), Effect::Read);
    assert_ne!(
        effect("steward_save_note"),
        Effect::Read,
        "a write is not advertised read-only"
    );

    let t = |n: &str| tool(mgr, &format!("{server}__{n}"));
    let saved = t("steward_save_note")
        .run(json!({"title": "Boiler", "body": "The boiler model is Vaillant ecoTEC plus 825", "tags": ["house"]}), &ctx())
        .await
        .unwrap();
    assert!(saved.contains("saved note"), "{saved}");
    let listed = t("steward_list_notes")
        .run(json!({"tags": ["house"]}), &ctx())
        .await
        .unwrap();
    assert!(
        listed.contains("Boiler: The boiler model is Vaillant"),
        "{listed}"
    );
    let found = t("steward_search_notes")
        .run(json!({"query": "Vaillant boiler"}), &ctx())
        .await
        .unwrap();
    assert!(found.contains("Boiler"), "{found}");
    let recalled = t("steward_recall")
        .run(json!({"query": "Vaillant"}), &ctx())
        .await
        .unwrap();
    assert!(recalled.contains("Vaillant"), "{recalled}");
    let reminders = t("steward_list_reminders")
        .run(json!({}), &ctx())
        .await
        .unwrap();
    assert!(
        reminders.contains("call the plumber about the boiler"),
        "{reminders}"
    );
    assert!(reminders.contains("| open | due 2030-03-17"), "{reminders}");

    // Bad arguments: a clear error naming the field, no crash, and the session stays up.
    let bad = t("steward_save_note")
        .run(json!({"title": 5, "body": ""}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(bad.contains("invalid arguments"), "{bad}");
    assert!(bad.contains("title"), "{bad}");
    let huge = t("steward_search_notes")
        .run(json!({"query": "x".repeat(100_000)}), &ctx())
        .await
        .unwrap_err()
        .to_string();
    assert!(huge.contains("query"), "{huge}");
    assert!(mgr.server(server).unwrap().status().is_connected());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_server_serves_memory_to_an_mcp_client() {
    let dir = TempDir::new("mcp-stdio");
    seed_reminder(dir.path()).await;
    let mut spec = ServerSpec::new(
        "steward",
        Transport::Stdio {
            command: steward_bin().to_owned(),
            args: vec!["mcp".into(), "serve".into()],
            env: child_env(dir.path()),
        },
    );
    spec.timeout = Duration::from_secs(20);
    // Its read-only annotations are what `exercise` checks, so the client must believe them.
    spec.trust_annotations = true;
    let mgr = McpManager::start(vec![spec]);
    connected(&mgr, "steward").await;
    exercise(&mgr, "steward").await;
    mgr.shutdown();
}

/// A raw JSON-RPC session with `steward mcp serve`, for the error paths an SDK client hides.
struct Raw {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Raw {
    fn start(dir: &std::path::Path) -> Raw {
        let mut cmd = Command::new(steward_bin());
        cmd.args(["mcp", "serve"])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(child_env(dir))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Raw {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, text: &str) {
        self.stdin.write_all(text.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The response with this id (other messages are skipped).
    fn response(&self, id: i64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no response {id}"));
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn call(&mut self, id: i64, name: &str, args: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
        self.send(&msg.to_string());
        self.response(id)
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn stdio_server_answers_hostile_requests_with_mcp_errors() {
    let dir = TempDir::new("mcp-raw");
    let mut raw = Raw::start(dir.path());
    raw.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#);
    assert_eq!(raw.response(0)["result"]["serverInfo"]["name"], "steward");
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    // Unknown tool: a JSON-RPC invalid-params error.
    let r = raw.call(1, "rm_rf", json!({}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool"),
        "{r}"
    );
    // Arguments over the size limit: the same, before any parsing by the tool.
    let r = raw.call(2, "steward_recall", json!({"query": "q".repeat(300_000)}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too large"),
        "{r}"
    );
    // Schema violations: a tool error the caller's model can read and fix.
    let r = raw.call(
        3,
        "steward_list_notes",
        json!({"limit": "all", "extra": true}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("argument `limit` must be an integer"),
        "{text}"
    );
    // Arguments that are not an object, junk lines and an over-long line: errors or
    // silence, never a crash; the next request is answered.
    let r = raw.call(4, "steward_list_notes", json!(5));
    assert!(r.get("error").is_some(), "{r}");
    raw.send("this is not json");
    raw.send(&"x".repeat(5 * 1024 * 1024));
    raw.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    let r = raw.response(5);
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), 5, "{r}");
    let r = raw.call(6, "steward_list_reminders", json!({}));
    assert_eq!(r["result"]["content"][0]["text"], "no reminders", "{r}");
    assert!(
        raw.child.try_wait().unwrap().is_none(),
        "the server is still running"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_mcp_needs_the_token_and_serves_memory() {
    let dir = TempDir::new("mcp-http");
    seed_reminder(dir.path()).await;
    let mut cmd = base_command(dir.path());
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_EMBEDDER", "none");
    let server = start_server(cmd);
    let url = server.url("/mcp");
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}});

    for auth in [
        None,
        Some("Bearer wrong-token-0123456789"),
        Some("Basic b3duZXI6cHc="),
    ] {
        let mut req = client()
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .json(&init);
        if let Some(a) = auth {
            req = req.header("Authorization", a);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 401, "{auth:?}");
    }
    let resp = client()
        .post(&url)
        .bearer_auth(TOKEN)
        .header("Accept", "application/json, text/event-stream")
        .json(&init)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // A body over http.max_body_bytes (1 MiB by default) is refused before it is parsed.
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"pad": "x".repeat(2 << 20)}});
    let resp = client()
        .post(&url)
        .bearer_auth(TOKEN)
        .header("Accept", "application/json, text/event-stream")
        .json(&big)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 413);

    let mut headers = BTreeMap::new();
    headers.insert("Authorization".to_owned(), format!("Bearer {TOKEN}"));
    let mut spec = ServerSpec::new("home", Transport::Http { url, headers });
    spec.timeout = Duration::from_secs(20);
    // Its read-only annotations are what `exercise` checks, so the client must believe them.
    spec.trust_annotations = true;
    let mgr = McpManager::start(vec![spec]);
    connected(&mgr, "home").await;
    exercise(&mgr, "home").await;
    mgr.shutdown();
    assert!(!server.stderr_text().contains(TOKEN));
}

/// One tag rule on every surface that takes tags: the HTTP notes route, the `save_note`
/// memory tool, the MCP server's `steward_save_note` and `steward_list_notes`, and the CLI
/// refuse the same over-long tag and the same eleventh tag, with the same words (the rule's
/// `ValueError`), and all accept the same tag at the length limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_surface_holds_tags_to_one_rule() {
    use steward_protocol::{MAX_TAG_LEN, MAX_TAGS, Tag};
    let dir = TempDir::new("one-tag-rule");
    let mut cmd = base_command(dir.path());
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_EMBEDDER", "none");
    let server = start_server(cmd);
    let mut headers = BTreeMap::new();
    headers.insert("Authorization".to_owned(), format!("Bearer {TOKEN}"));
    let mut spec = ServerSpec::new(
        "home",
        Transport::Http {
            url: server.url("/mcp"),
            headers,
        },
    );
    spec.timeout = Duration::from_secs(20);
    let mgr = McpManager::start(vec![spec]);
    connected(&mgr, "home").await;
    let store: Arc<dyn steward_store::Store> = steward_store::open(
        &steward_store::StoreConfig::sqlite_file(dir.path().join("steward.db")),
    )
    .unwrap();
    let memory = Arc::new(steward_memory::Memory::new(
        store,
        None,
        steward_memory::MemoryConfig::default(),
    ));
    let save_note = steward_tools::memory_tools(memory)
        .into_iter()
        .find(|t| t.name() == "save_note")
        .unwrap();

    let longest = "b".repeat(MAX_TAG_LEN);
    let too_long = "t".repeat(MAX_TAG_LEN + 1);
    let too_many: Vec<String> = (0..=MAX_TAGS).map(|i| format!("t{i}")).collect();
    let long_words = Tag::parse(&too_long).unwrap_err().to_string();
    let many_words = Tag::normalise_all(&too_many).unwrap_err().to_string();
    assert_eq!(many_words, format!("at most {MAX_TAGS} tags are allowed"));

    // Each surface saves a note with `tags` and answers Ok or the text of its refusal.
    let notes_url = server.url("/api/v1/notes");
    let http = |tags: Vec<String>| {
        let url = notes_url.clone();
        async move {
            let resp = client()
                .post(url)
                .bearer_auth(TOKEN)
                .json(&json!({"title": "http", "body": "b", "tags": tags}))
                .send()
                .await
                .unwrap();
            let status = resp.status().as_u16();
            let body: Value = resp.json().await.unwrap();
            match status {
                201 => Ok(()),
                400 => Err(body["error"]["message"].as_str().unwrap().to_owned()),
                other => panic!("HTTP {other}: {body}"),
            }
        }
    };
    let tool = |tags: Vec<String>| {
        let t = Arc::clone(&save_note);
        async move {
            let args = json!({"title": "tool", "body": "b", "tags": tags});
            t.validate(&args).map_err(|e| e.to_string())?;
            t.run(args, &ctx())
                .await
                .map(drop)
                .map_err(|e| e.to_string())
        }
    };
    let mcp = |name: &'static str, tags: Vec<String>| {
        let t = self::tool(&mgr, name);
        async move {
            let args = json!({"title": "mcp", "body": "b", "tags": tags});
            let args = if name.ends_with("list_notes") {
                json!({"tags": tags})
            } else {
                args
            };
            t.run(args, &ctx())
                .await
                .map(drop)
                .map_err(|e| e.to_string())
        }
    };
    let cli = |tags: Vec<String>| {
        let mut cmd = base_command(dir.path());
        cmd.env("STEWARD_EMBEDDER", "none")
            .args(["memory", "note", "add", "--title", "cli", "b"]);
        for t in &tags {
            cmd.args(["--tag", t]);
        }
        let out = cmd.output().unwrap();
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    };

    for (tags, words) in [
        (vec![too_long.clone()], &long_words),
        (too_many.clone(), &many_words),
    ] {
        let refusals = [
            ("HTTP", http(tags.clone()).await),
            ("memory tool", tool(tags.clone()).await),
            (
                "MCP save",
                mcp("home__steward_save_note", tags.clone()).await,
            ),
            (
                "MCP list",
                mcp("home__steward_list_notes", tags.clone()).await,
            ),
            ("CLI", cli(tags.clone())),
        ];
        for (surface, got) in refusals {
            let err = got.expect_err(surface);
            assert!(
                err.contains(words.as_str()),
                "{surface}: {err:?} lacks {words:?}"
            );
        }
    }
    assert_eq!(http(vec![longest.clone()]).await, Ok(()));
    assert_eq!(tool(vec![longest.clone()]).await, Ok(()));
    let saved = mcp("home__steward_save_note", vec![longest.clone()]).await;
    assert_eq!(saved, Ok(()));
    assert_eq!(cli(vec![longest.clone()]), Ok(()));
    let listed = self::tool(&mgr, "home__steward_list_notes")
        .run(json!({"tags": [longest]}), &ctx())
        .await
        .unwrap();
    for title in ["http", "tool", "mcp", "cli"] {
        assert!(
            listed.contains(&format!("{title}: b")),
            "{title} missing: {listed}"
        );
    }
    assert_eq!(
        listed.lines().filter(|l| l.starts_with("[note ")).count(),
        4,
        "only the four accepted notes: {listed}"
    );
    mgr.shutdown();
}
