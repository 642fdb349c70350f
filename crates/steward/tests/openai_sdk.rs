//! Steward's OpenAI-compatible API driven by the official `openai` Python SDK
//! (tests/fixtures/openai_sdk_client.py), against the real binary and the fake model: a
//! retried request is one turn, the model objects and responses parse with the SDK's strict
//! types, any `user` string keeps its conversation, unsupported fields get a 400 naming them.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::Value;
use std::path::PathBuf;
use steward_testkit::{FakeModel, Reply, Step};
use support::*;
use tokio::process::Command;

fn serve(dir: &TempDir, fake: &FakeModel, retries: &str) -> Server {
    serve_with_fake(
        dir,
        &fake.openai_base_url(),
        &[("STEWARD_MODEL_RETRIES", retries)],
    )
}

/// Run one scenario of the Python driver against `srv`; its JSON result. Async: the fake
/// model answers on this test's runtime, which a blocking wait would stall.
async fn sdk(srv: &Server, scenario: &str) -> Value {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openai_sdk_client.py");
    let out = Command::new(sdk_python())
        .arg(&script)
        .arg(scenario)
        .env("STEWARD_BASE_URL", srv.url("/v1"))
        .env("STEWARD_TOKEN", TOKEN)
        .kill_on_drop(true)
        .output()
        .await
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the SDK scenario {scenario} failed: {}\n{stdout}\nsteward: {}",
        String::from_utf8_lossy(&out.stderr),
        srv.stderr_text()
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// (role, content) of every stored message of a conversation, oldest first.
fn stored(dir: &TempDir, conversation: &str) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT role, content FROM messages WHERE conversation_id = ?1 ORDER BY seq")
        .unwrap();
    stmt.query_map([conversation], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn count(messages: &[(String, String)], role: &str) -> usize {
    messages.iter().filter(|(r, _)| r == role).count()
}

fn user_texts_sent(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn an_upstream_400_is_one_turn_one_message_one_model_call() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::error(
        400,
        "This model's maximum context length is 8192 tokens",
    ));
    let dir = TempDir::new("sdk-400");
    // Steward's own retries stay on: a 400 must not be retried by anyone.
    let srv = serve(&dir, &fake, "2");
    let out = sdk(&srv, "upstream_400").await;
    assert_eq!(out["ok"], false, "{out}");
    assert_eq!(out["status"], 422, "an upstream 4xx is not a 502: {out}");
    assert_eq!(out["should_retry"], "false", "{out}");
    assert!(
        out["message"]
            .as_str()
            .unwrap()
            .contains("maximum context length"),
        "{out}"
    );
    assert_eq!(fake.requests().len(), 1, "one model call in all");
    let conv = out_conversation_of_user(&dir, "alice");
    let msgs = stored(&dir, &conv);
    assert_eq!(count(&msgs, "user"), 1, "one stored message: {msgs:?}");
}

/// The one conversation whose id starts with `user-<slug>`.
fn out_conversation_of_user(dir: &TempDir, slug: &str) -> String {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let ids: Vec<String> = conn
        .prepare("SELECT id FROM conversations WHERE id LIKE ?1")
        .unwrap()
        .query_map([format!("user-{slug}-%")], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ids.len(), 1, "one conversation for {slug}: {ids:?}");
    ids[0].clone()
}

#[tokio::test]
async fn an_upstream_503_retried_by_the_sdk_stores_the_message_once() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::error(503, "overloaded"));
    fake.push(Step::Reply(Reply::text("recovered")));
    let dir = TempDir::new("sdk-503");
    // No retries inside Steward: the SDK's retry is the one under test.
    let srv = serve(&dir, &fake, "0");
    let out = sdk(&srv, "upstream_503").await;
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["content"], "recovered", "{out}");
    assert_eq!(out["retries"], 1, "the SDK retried once: {out}");
    let reqs = fake.requests();
    assert_eq!(
        reqs.len(),
        2,
        "the retry called the model again (the first call failed)"
    );
    assert_eq!(
        user_texts_sent(&reqs[1].body)
            .iter()
            .filter(|t| t.contains("retry me"))
            .count(),
        1,
        "the resumed turn sends the message once: {:?}",
        user_texts_sent(&reqs[1].body)
    );
    let msgs = stored(&dir, "bob");
    assert_eq!(count(&msgs, "user"), 1, "one stored message: {msgs:?}");
    assert_eq!(count(&msgs, "assistant"), 1, "one stored answer: {msgs:?}");
}

#[tokio::test]
async fn a_retry_after_a_tool_ran_never_runs_the_tool_again() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "calculate",
        r#"{"expression":"19*23"}"#,
    )));
    fake.push(Step::error(503, "overloaded"));
    fake.push(Step::Reply(Reply::text("437")));
    let dir = TempDir::new("sdk-tool");
    let srv = serve(&dir, &fake, "0");
    let out = sdk(&srv, "upstream_503").await;
    assert_eq!(out["ok"], true, "{out}");
    assert!(out["content"].as_str().unwrap().starts_with("437"), "{out}");
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3, "tool round, failed call, resumed call");
    let last = &reqs[2].body["messages"];
    assert!(
        last.as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool"
                && m["content"].as_str().unwrap_or_default().contains("437")),
        "the resumed call carries the first attempt's tool result: {last}"
    );
    let msgs = stored(&dir, "bob");
    assert_eq!(count(&msgs, "user"), 1, "{msgs:?}");
    assert_eq!(count(&msgs, "tool"), 1, "the tool ran once: {msgs:?}");
}

#[tokio::test]
async fn models_parse_with_the_sdk_strict_types() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("sdk-models");
    let srv = serve(&dir, &fake, "0");
    let out = sdk(&srv, "models").await;
    assert_eq!(out["listed"], serde_json::json!(["steward"]), "{out}");
    assert_eq!(out["retrieved"], "steward", "{out}");
    assert!(out["created"].as_u64().unwrap() > 1_700_000_000, "{out}");
    assert_eq!(out["missing"], 404, "{out}");
}

#[tokio::test]
async fn any_user_string_keeps_its_conversation() {
    let fake = FakeModel::start().await.unwrap();
    for i in 0..6 {
        fake.push(Step::Reply(Reply::text(format!("answer {i}"))));
    }
    let dir = TempDir::new("sdk-users");
    let srv = serve(&dir, &fake, "0");
    let out = sdk(&srv, "users").await;
    let mut seen = Vec::new();
    for name in ["alice@example.com", "user 42", "ü-user"] {
        let pair = &out[name];
        assert_eq!(pair[0]["ok"], true, "{name}: {pair}");
        assert_eq!(pair[1]["ok"], true, "{name}: {pair}");
        let conv = pair[0]["conversation"].as_str().unwrap().to_owned();
        assert_eq!(
            pair[1]["conversation"],
            conv.as_str(),
            "{name} keeps its conversation"
        );
        assert!(!seen.contains(&conv), "{name} has its own conversation");
        seen.push(conv);
    }
    // Each second turn saw its first one: the history is the conversation's.
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 6);
    for (i, r) in reqs.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
        let sent = user_texts_sent(&r.body);
        let n = i / 2;
        assert!(
            sent.iter().any(|t| t == &format!("first {n}")),
            "turn {i} carries its conversation's history: {sent:?}"
        );
        assert!(
            !sent.iter().any(|t| t == &format!("first {}", (n + 1) % 3)),
            "and no other's: {sent:?}"
        );
    }
}

#[tokio::test]
async fn unsupported_fields_get_a_400_naming_them() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("sdk-unsupported");
    let srv = serve(&dir, &fake, "0");
    let out = sdk(&srv, "unsupported").await;
    for (field, prefix) in [
        ("n", "n:"),
        ("tools", "tools:"),
        ("json_mode", "response_format:"),
    ] {
        let r = &out[field];
        assert_eq!(r["ok"], false, "{field}: {r}");
        assert_eq!(r["status"], 400, "{field}: {r}");
        assert_eq!(r["type"], "BadRequestError", "{field}: {r}");
        assert!(
            // The SDK words it "Error code: 400 - <our message>".
            r["message"]
                .as_str()
                .unwrap()
                .contains(&format!("- {prefix}")),
            "{field}: the message names the field: {r}"
        );
    }
    assert!(fake.requests().is_empty(), "nothing reached the model");
}

#[tokio::test]
async fn streamed_chunks_validate_and_the_sdk_reads_them() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(
        Reply::text("streamed answer").with_usage(11, 3),
    ));
    fake.push(Step::Reply(Reply::text("second answer")));
    let dir = TempDir::new("sdk-stream");
    let srv = serve(&dir, &fake, "0");
    let out = sdk(&srv, "stream").await;
    let chunks = out["chunks"].as_array().unwrap();
    assert_eq!(chunks.last().unwrap(), "[DONE]", "{out}");
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "streamed answer");
    let usage = chunks
        .iter()
        .find(|c| !c["usage"].is_null())
        .expect("usage chunk");
    assert_eq!(usage["usage"]["completion_tokens"], 3);
    assert!(
        chunks
            .iter()
            .any(|c| c["choices"][0]["finish_reason"] == "stop"),
        "a stop chunk: {out}"
    );
    assert_eq!(out["sdk_text"], "second answer");
}

#[tokio::test]
async fn a_client_system_message_reaches_the_model_fenced() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("Ahoy")));
    let dir = TempDir::new("sdk-system");
    let srv = serve(&dir, &fake, "0");
    let out = sdk(&srv, "system").await;
    assert_eq!(out["ok"], true, "{out}");
    let body = &fake.requests()[0].body;
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(
        !system.contains("pirate"),
        "Steward's system prompt stays its own"
    );
    let sent = user_texts_sent(body);
    let last = sent.last().unwrap();
    assert!(
        last.contains("<client_instructions>") && last.contains("Answer like a pirate."),
        "the client's instructions are fenced in the turn: {last}"
    );
    // Applied to that turn only: never stored in the history.
    let msgs = stored(&dir, "captain");
    assert!(msgs.iter().all(|(_, c)| !c.contains("pirate")), "{msgs:?}");
}
