//! Credentials in a provider's `base_url` (`http://user:PASSWORD@host/v1?api-key=KEY`) as
//! the real binary shows them: `config show`, `doctor`, a bad-URL error, and a failing
//! provider call's HTTP answer and debug-level stderr carry neither the password nor the key.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use std::net::TcpListener as StdListener;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PASSWORD: &str = "pw-canary-5e1d07";
const QUERY_KEY: &str = "qk-canary-c49a2b";

fn with_secrets(host_port: &str) -> String {
    format!("http://user:{PASSWORD}@{host_port}/v1?api-key={QUERY_KEY}")
}

fn assert_clean(what: &str, text: &str) {
    assert!(
        !text.contains(PASSWORD),
        "{what} shows the password:\n{text}"
    );
    assert!(
        !text.contains(QUERY_KEY),
        "{what} shows the query key:\n{text}"
    );
}

/// Run the binary with `vars`; (exit code, stdout + stderr).
fn run(dir: &TempDir, vars: &[(&str, &str)], args: &[&str]) -> (i32, String) {
    let mut cmd = base_command(dir.path());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn unused_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn config_show_masks_url_credentials_of_built_in_and_user_providers() {
    let dir = TempDir::new("url-show");
    std::fs::write(
        dir.path().join("steward.toml"),
        format!(
            "[providers.corp]\nkind = \"openai\"\nbase_url = \"{}\"\n",
            with_secrets("corp.example:8443")
        ),
    )
    .unwrap();
    let openai = with_secrets("127.0.0.1:9");
    let search = format!("http://search.example/?token={QUERY_KEY}");
    let (code, out) = run(
        &dir,
        &[
            ("OPENAI_BASE_URL", &openai),
            ("STEWARD_WEB_SEARCH_URL", &search),
        ],
        &["config", "show"],
    );
    assert_eq!(code, 0, "{out}");
    assert_clean("config show", &out);
    // Still says where: host, path and the parameter's name.
    assert!(out.contains("http://…@127.0.0.1:9/v1?api-key=…"), "{out}");
    assert!(
        out.contains("http://…@corp.example:8443/v1?api-key=…"),
        "{out}"
    );
}

#[test]
fn a_rejected_base_url_is_quoted_masked() {
    let dir = TempDir::new("url-bad");
    let bad = format!("ftp://user:{PASSWORD}@h.example/v1?api-key={QUERY_KEY}");
    let (code, out) = run(&dir, &[("OPENAI_BASE_URL", &bad)], &["config", "show"]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("OPENAI_BASE_URL"), "{out}");
    assert_clean("the config error", &out);
}

#[test]
fn doctor_masks_url_credentials_of_an_unreachable_provider() {
    let dir = TempDir::new("url-doctor");
    let base = with_secrets(&format!("127.0.0.1:{}", unused_port()));
    let (code, out) = run(
        &dir,
        &[
            ("STEWARD_MODEL", "openai:gpt-x"),
            ("OPENAI_API_KEY", "sk-doctor-key"),
            ("OPENAI_BASE_URL", &base),
            ("STEWARD_HTTP_ADDR", "127.0.0.1:0"),
        ],
        &["doctor"],
    );
    assert_ne!(code, 0, "an unreachable provider is a failure:\n{out}");
    assert!(out.contains("cannot reach http://…@127.0.0.1:"), "{out}");
    assert_clean("doctor", &out);
}

/// A model server that answers every request 500 with an error body quoting the request
/// line (so the query) and the URL's password back, as a careless proxy might. Returns
/// its port and the request lines it saw.
async fn echoing_server() -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&buf).into_owned();
                let line = text.lines().next().unwrap_or_default().to_owned();
                log.lock().unwrap().push(line.clone());
                let body = json!({"error": {"message": format!("upstream failed for {line} (user:{PASSWORD})")}})
                    .to_string();
                let resp = format!(
                    "HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (port, seen)
}

#[tokio::test]
async fn a_failing_provider_call_shows_no_url_credentials_in_the_answer_or_the_logs() {
    let (port, seen) = echoing_server().await;
    let dir = TempDir::new("url-turn");
    let mut cmd = base_command(dir.path());
    with_fake_model(
        &mut cmd,
        &with_secrets(&format!("127.0.0.1:{port}")),
        "openai:gpt-x",
    );
    // STEWARD_LOG is debug (base_command): every log line of the call is in stderr.
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_MODEL_RETRIES", "0");
    let srv = start_server(cmd);
    let resp = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": "url-1", "text": "hello"}))
        .send()
        .await
        .unwrap();
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(!status.is_success(), "{status} {body}");
    assert!(body.contains("500"), "the failure is reported: {body}");
    assert_clean("the API answer", &body);
    let lines = seen.lock().unwrap().clone();
    assert!(
        lines.iter().any(|l| l.contains(QUERY_KEY)),
        "the provider really got the key in its URL: {lines:?}"
    );
    let stderr = srv.stderr_text();
    srv.terminate();
    assert_clean("stderr", &stderr);
}
