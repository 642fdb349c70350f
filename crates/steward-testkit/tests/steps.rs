//! Step scripting across formats: FIFO order, the default reply, Delay, Hang,
//! waiting for requests, server lifetime and the standalone binary.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{client, client_with_timeout};
use serde_json::{Value, json};
use steward_testkit::{FakeModel, Reply, Step, WireFormat};

async fn openai_text(c: &reqwest::Client, base: &str) -> String {
    let v: Value = c
        .post(format!("{base}/v1/chat/completions"))
        .json(&json!({"model": "m", "messages": []}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn anthropic_text(c: &reqwest::Client, base: &str) -> String {
    let v: Value = c
        .post(format!("{base}/v1/messages"))
        .json(&json!({"model": "m", "messages": []}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["content"][0]["text"].as_str().unwrap().to_owned()
}

async fn gemini_text(c: &reqwest::Client, base: &str) -> String {
    let v: Value = c
        .post(format!("{base}/v1beta/models/g:generateContent"))
        .json(&json!({"contents": []}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["candidates"][0]["content"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn steps_are_fifo_across_formats_then_default() {
    let fake = FakeModel::start().await.unwrap();
    fake.push_many([
        Step::Reply(Reply::text("one")),
        Step::Reply(Reply::text("two")),
        Step::Reply(Reply::text("three")),
    ]);
    let (c, base) = (client(), fake.base_url());
    assert_eq!(anthropic_text(&c, &base).await, "one");
    assert_eq!(gemini_text(&c, &base).await, "two");
    assert_eq!(openai_text(&c, &base).await, "three");
    assert_eq!(openai_text(&c, &base).await, "ok", "initial default");
    fake.set_default(Reply::text("fallback"));
    assert_eq!(gemini_text(&c, &base).await, "fallback");
    assert_eq!(
        anthropic_text(&c, &base).await,
        "fallback",
        "the default is not consumed"
    );
    let formats: Vec<WireFormat> = fake.requests().iter().map(|r| r.format).collect();
    use WireFormat::*;
    assert_eq!(
        formats,
        [Anthropic, Gemini, OpenAi, OpenAi, Gemini, Anthropic]
    );
    assert_eq!(fake.request_count(), 6);
}

#[tokio::test]
async fn delay_waits_before_answering() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::delay(300, Reply::text("late")));
    let started = Instant::now();
    assert_eq!(openai_text(&client(), &fake.base_url()).await, "late");
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[tokio::test]
async fn delayed_error_is_still_an_error() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::delay(10, Step::error(500, "boom")));
    let response = client()
        .post(format!("{}/v1/messages", fake.base_url()))
        .json(&json!({"model": "m"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 500);
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["error"]["type"], "api_error");
}

#[tokio::test]
async fn delay_longer_than_client_timeout_times_out() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::delay(5_000, Reply::text("too late")));
    let c = client_with_timeout(Duration::from_millis(200));
    let err = c
        .post(format!("{}/chat/completions", fake.openai_base_url()))
        .json(&json!({"model": "m"}))
        .send()
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err}");
}

#[tokio::test]
async fn hang_never_answers_but_the_server_keeps_serving() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Hang);
    let base = fake.base_url();
    let hung = tokio::spawn(async move {
        client_with_timeout(Duration::from_millis(300))
            .post(format!(
                "{base}/v1beta/models/g:streamGenerateContent?alt=sse"
            ))
            .json(&json!({"contents": []}))
            .send()
            .await
    });
    assert!(fake.wait_for_requests(1, Duration::from_secs(5)).await);
    // The hung request holds no lock: another request is answered meanwhile.
    assert_eq!(anthropic_text(&client(), &fake.base_url()).await, "ok");
    let err = hung.await.unwrap().unwrap_err();
    assert!(err.is_timeout(), "{err}");
}

#[tokio::test]
async fn wait_for_requests_reports_arrival_and_timeout() {
    let fake = FakeModel::start().await.unwrap();
    assert!(!fake.wait_for_requests(1, Duration::from_millis(50)).await);
    let other = fake.clone();
    let waiter =
        tokio::spawn(async move { other.wait_for_requests(2, Duration::from_secs(5)).await });
    let c = client();
    openai_text(&c, &fake.base_url()).await;
    gemini_text(&c, &fake.base_url()).await;
    assert!(waiter.await.unwrap());
    assert!(fake.wait_for_requests(0, Duration::ZERO).await);
}

#[tokio::test]
async fn recording_can_be_turned_off() {
    let fake = FakeModel::start().await.unwrap();
    fake.set_recording(false);
    fake.push(Reply::text("still scripted"));
    assert_eq!(
        openai_text(&client(), &fake.base_url()).await,
        "still scripted"
    );
    assert_eq!(fake.request_count(), 0);
    assert!(fake.requests().is_empty());
}

#[tokio::test]
async fn dropping_the_last_handle_stops_accepting() {
    let fake = FakeModel::start().await.unwrap();
    let url = format!("{}/v1/models", fake.base_url());
    let clone = fake.clone();
    drop(fake);
    // A clone keeps the server alive.
    let c = client_with_timeout(Duration::from_secs(2));
    assert!(c.get(&url).send().await.unwrap().status().is_success());
    drop(clone);
    // Let the aborted accept loop actually stop before probing.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let fresh = client_with_timeout(Duration::from_secs(2));
    assert!(fresh.get(&url).send().await.is_err());
}

#[tokio::test]
async fn unknown_path_gets_a_json_404() {
    let fake = FakeModel::start().await.unwrap();
    let response = client()
        .post(format!("{}/v2/nothing", fake.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let v: Value = response.json().await.unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/v2/nothing")
    );
}

struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn binary_listens_and_answers_ok() {
    let mut child = Child(
        Command::new(env!("CARGO_BIN_EXE_steward-fake-model"))
            .args(["--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stdout = child.0.stdout.take().unwrap();
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    let addr = line.trim().strip_prefix("listening on ").unwrap();
    assert!(
        addr.starts_with("127.0.0.1:") && !addr.ends_with(":0"),
        "{addr}"
    );
    let base = format!("http://{addr}");
    let c = client();
    assert_eq!(openai_text(&c, &base).await, "ok");
    assert_eq!(gemini_text(&c, &base).await, "ok");
}

#[tokio::test]
async fn binary_rejects_unknown_arguments() {
    let status = Command::new(env!("CARGO_BIN_EXE_steward-fake-model"))
        .arg("--bogus")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}
