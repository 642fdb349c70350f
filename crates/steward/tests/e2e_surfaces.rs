//! End to end: the terminal surface, start-up without a model, auth and hostile input,
//! bad configuration, graceful shutdown, plain text (no escape codes) on pipes.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

#[tokio::test]
async fn chat_m_answers_once_with_a_tool_and_exits() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "calculate",
        r#"{"expression":"2^10"}"#,
    )));
    fake.push(Step::Reply(Reply::text("1024")));
    let dir = TempDir::new("chat");
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    let out = tokio::task::spawn_blocking(move || {
        cmd.args(["chat", "-m", "2 to the 10th?", "--conversation", "script"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert_eq!(stdout.trim(), "1024", "only the answer goes to stdout");
    assert!(
        stderr.contains("calculate"),
        "tool progress on stderr: {stderr}"
    );
    assert_eq!(fake.request_count(), 2);
    let tool_msg = fake.requests()[1].body["messages"].to_string();
    assert!(tool_msg.contains("1024"), "{tool_msg}");
}

#[tokio::test]
async fn interactive_chat_keeps_the_thread() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("Hi Bo.")));
    fake.push(Step::Reply(Reply::text("You are Bo.")));
    let dir = TempDir::new("chat-i");
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = cmd
            .arg("chat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"I am Bo\nwho am I?\n/exit\n")
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["Hi Bo.", "You are Bo."]
    );
    assert!(
        fake.requests()[1].body["messages"]
            .to_string()
            .contains("I am Bo")
    );
}

#[tokio::test]
async fn without_a_model_serve_starts_and_explains() {
    let dir = TempDir::new("nomodel");
    let mut cmd = base_command(dir.path());
    cmd.env("STEWARD_API_TOKEN", TOKEN);
    let srv = start_server(cmd);
    let c = client();
    let health: Value = c
        .get(srv.url("/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["status"], "ok");
    assert!(health["model"].is_null());
    let resp = c
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"text": "hello?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["kind"], "no_model");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("STEWARD_MODEL")
    );
    // A bare link is refused the same way, not saved to read-later.
    let link = c
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"text": "https://example.com/article"}))
        .send()
        .await
        .unwrap();
    assert_eq!(link.status(), 503);
    let body: Value = link.json().await.unwrap();
    assert_eq!(body["error"]["kind"], "no_model");
    // A stream ends with a `failed` event of the same kind.
    let stream = c
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .header("accept", "text/event-stream")
        .json(&json!({"text": "hello again?"}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let last = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .next_back()
        .unwrap_or_else(|| panic!("no events: {stream}"));
    assert_eq!(last["type"], "failed", "{stream}");
    assert_eq!(last["kind"], "no_model", "{stream}");
    // The OpenAI-compatible API: a 503, or an `error` line before `[DONE]` in a stream.
    let chat = |stream: bool| {
        c.post(srv.url("/v1/chat/completions"))
            .bearer_auth(TOKEN)
            .json(&json!({"model": "steward", "stream": stream,
                          "messages": [{"role": "user", "content": "hi?"}]}))
            .send()
    };
    let plain = chat(false).await.unwrap();
    assert_eq!(plain.status(), 503);
    let body: Value = plain.json().await.unwrap();
    assert_eq!(body["error"]["type"], "no_model", "{body}");
    let streamed = chat(true).await.unwrap().text().await.unwrap();
    let data: Vec<&str> = streamed
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .collect();
    assert_eq!(data.last(), Some(&"[DONE]"), "{streamed}");
    let error: Value = serde_json::from_str(data[data.len() - 2]).unwrap();
    assert_eq!(error["error"]["type"], "no_model", "{streamed}");
    // As the README says: nothing is stored for a message no model could answer.
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    for table in ["messages", "read_later"] {
        let stored: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(stored, 0, "{table}");
    }
}

#[tokio::test]
async fn a_generated_token_is_printed_once_and_required() {
    let dir = TempDir::new("token");
    let srv = start_server(base_command(dir.path()));
    let token = std::fs::read_to_string(dir.path().join("api_token"))
        .unwrap()
        .trim()
        .to_owned();
    assert!(srv.stderr_text().contains(&token), "printed on first start");
    let c = client();
    for auth in [
        None,
        Some("Bearer wrong-token-wrong-token"),
        Some("Basic Zm9vOmJhcg=="),
    ] {
        let mut req = c
            .post(srv.url("/api/v1/messages"))
            .json(&json!({"text": "hi"}));
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 401, "{auth:?}");
    }
    let ok = c
        .get(srv.url("/v1/models"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert!(srv.terminate().success());

    let srv = start_server(base_command(dir.path()));
    assert!(!srv.stderr_text().contains(&token), "never printed again");
}

#[tokio::test]
async fn hostile_http_input_is_refused_cleanly() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("hostile");
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_HTTP_MAX_BODY_BYTES", "4096");
    let srv = start_server(cmd);
    let c = client();
    let malformed = c
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body("{\"text\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), 400);
    let big = c
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"text": "x".repeat(10_000)}))
        .send()
        .await
        .unwrap();
    assert_eq!(big.status(), 413);
    let bad_id = c
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": "../../etc/passwd", "text": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad_id.status(), 400);
    assert_eq!(
        fake.request_count(),
        0,
        "no hostile request reached the model"
    );
    // And the server is still fine.
    assert_eq!(
        c.get(srv.url("/health")).send().await.unwrap().status(),
        200
    );
}

#[test]
fn an_unknown_provider_is_a_clear_error_at_start() {
    let dir = TempDir::new("badprov");
    let out = base_command(dir.path())
        .env("STEWARD_MODEL", "nosuch:model-1")
        .arg("serve")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nosuch"), "{err}");
    assert!(err.contains("openai"), "lists the known providers: {err}");
}

#[tokio::test]
async fn sigterm_lets_a_running_turn_finish() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Delay {
        ms: 800,
        then: Box::new(Step::Reply(Reply::text("done in time"))),
    });
    let dir = TempDir::new("sigterm");
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN);
    let srv = start_server(cmd);
    let url = srv.url("/api/v1/messages");
    let pending = tokio::spawn(async move {
        client()
            .post(url)
            .bearer_auth(TOKEN)
            .json(&json!({"text": "slow one"}))
            .send()
            .await
    });
    assert!(fake.wait_for_requests(1, Duration::from_secs(10)).await);
    let status = tokio::task::spawn_blocking(move || srv.terminate())
        .await
        .unwrap();
    assert!(status.success());
    let resp = pending.await.unwrap().unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["reply"], "done in time");
}

#[test]
fn config_show_masks_secrets_and_names_sources() {
    let dir = TempDir::new("show");
    std::fs::write(
        dir.path().join("steward.toml"),
        "model = \"openai:gpt-from-file\"\n",
    )
    .unwrap();
    let out = base_command(dir.path())
        .env("OPENAI_API_KEY", "sk-very-secret-abcd")
        .env("STEWARD_HTTP_ADDR", "127.0.0.1:9999")
        .args(["config", "show"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("sk-very-secret"), "{text}");
    assert!(
        !text.contains("abcd"),
        "not even the tail of a secret: {text}"
    );
    assert!(text.contains("gpt-from-file"));
    assert!(text.contains("STEWARD_HTTP_ADDR"));
}

/// Output to a pipe or a file is plain text: no colour or other escape codes from `serve`'s
/// logs, `chat`, `doctor` or `memory`, and `chat` keeps its logs in `<data dir>/steward.log`
/// (also plain), off the terminal.
#[tokio::test]
async fn nothing_printed_to_a_pipe_carries_escape_codes() {
    const ESC: char = '\u{1b}';
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("no-escapes");
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN);
    let srv = start_server(cmd);
    fake.push(Step::Reply(Reply::text("Hello from serve.")));
    let resp = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": "pipes", "text": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let serve_err = srv.stderr_text();
    assert!(srv.terminate().success());
    assert!(serve_err.contains("DEBUG"), "serve logged: {serve_err}");
    assert!(!serve_err.contains(ESC), "serve's logs: {serve_err:?}");

    fake.push(Step::Reply(Reply::text("Hello from chat.")));
    let mut chat = base_command(dir.path());
    with_fake_model(&mut chat, &fake.openai_base_url(), "openai:gpt-fake");
    let d = dir.path().to_path_buf();
    let outputs = tokio::task::spawn_blocking(move || {
        let chat = chat.args(["chat", "-m", "hi"]).output().unwrap();
        let doctor = base_command(&d).arg("doctor").output().unwrap();
        let search = base_command(&d)
            .args(["memory", "search", "hello"])
            .output()
            .unwrap();
        [chat, doctor, search]
    })
    .await
    .unwrap();
    let [chat, doctor, search] = &outputs;
    assert!(chat.status.success(), "{chat:?}");
    assert!(String::from_utf8_lossy(&chat.stdout).contains("Hello from chat."));
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains("ok   database"),
        "{doctor:?}"
    );
    for (name, out) in [
        ("chat", chat),
        ("doctor", doctor),
        ("memory search", search),
    ] {
        for text in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(text);
            assert!(!text.contains(ESC), "{name}: {text:?}");
        }
    }
    // chat's logs (debug here) are in the log file, not on its stderr.
    let chat_err = String::from_utf8_lossy(&chat.stderr);
    assert!(!chat_err.contains("DEBUG"), "{chat_err}");
    let log = std::fs::read_to_string(dir.path().join("steward.log")).unwrap();
    assert!(log.contains("DEBUG"), "{log}");
    assert!(!log.contains(ESC), "{log:?}");
}

/// `chat` and `memory` log at the configured `log` level (steward.toml here; an empty
/// STEWARD_LOG counts as unset), as `serve` does.
#[tokio::test]
async fn chat_and_memory_log_at_the_level_in_steward_toml() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("Hello.")));
    let dir = TempDir::new("log-level");
    std::fs::write(dir.path().join("steward.toml"), "log = \"debug\"\n").unwrap();
    let mut chat = base_command(dir.path());
    with_fake_model(&mut chat, &fake.openai_base_url(), "openai:gpt-fake");
    chat.env("STEWARD_LOG", "");
    let d = dir.path().to_path_buf();
    let (chat, search) = tokio::task::spawn_blocking(move || {
        let chat = chat.args(["chat", "-m", "hi"]).output().unwrap();
        let search = base_command(&d)
            .env_remove("STEWARD_LOG")
            .args(["memory", "search", "hello"])
            .output()
            .unwrap();
        (chat, search)
    })
    .await
    .unwrap();
    assert!(chat.status.success(), "{chat:?}");
    let log = std::fs::read_to_string(dir.path().join("steward.log")).unwrap();
    assert!(log.contains("DEBUG"), "chat's log file: {log}");
    assert!(search.status.success(), "{search:?}");
    let stderr = String::from_utf8_lossy(&search.stderr);
    assert!(stderr.contains("DEBUG"), "memory search's stderr: {stderr}");
}
