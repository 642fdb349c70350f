//! The real `steward serve` under hostile connections: a thousand half-open ones with the
//! process held to 512 file descriptors, a head that never ends, and one client address
//! opening more than its share. Each is a liveness check with generous deadlines, not a
//! timing measurement.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;
use steward_testkit::raw_http::{closed_within, finish_health, half_open};
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

/// Held far above the test's length: only the caps can free a slot in the flood test.
const LONG_SECS: &str = "300";

fn serve_fd_limited(dir: &TempDir, fake: &FakeModel, vars: &[(&str, &str)]) -> Server {
    let mut cmd = fd_limited_command(dir.path(), 512);
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        // A thousand connections at debug level would be a lot of stderr to carry.
        .env("STEWARD_LOG", "info");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    start_server(cmd)
}

fn client_with_deadline() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_thousand_half_open_connections_do_not_lock_out_the_owner() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("still answering")));
    let dir = TempDir::new("conn-flood");
    // Default caps (256 connections, 64 per address); deadlines far away, so without the
    // caps the flood would hold every descriptor the process may open.
    let srv = serve_fd_limited(
        &dir,
        &fake,
        &[
            ("STEWARD_HTTP_HEADER_TIMEOUT_SECS", LONG_SECS),
            ("STEWARD_HTTP_IDLE_TIMEOUT_SECS", LONG_SECS),
        ],
    );
    let to: SocketAddr = srv.addr;
    // All at once, each given 5 s: a server that stopped accepting leaves connects hanging
    // in the kernel's queue, and the test must reach its real question anyway.
    let attempts: Vec<_> = (0..1000u32)
        .map(|i| {
            // 20 addresses × 50: under the per-address cap, so the global cap is what holds.
            let from = 2 + (i % 20) as u8;
            tokio::spawn(tokio::time::timeout(
                Duration::from_secs(5),
                half_open(from, to),
            ))
        })
        .collect();
    let mut flood = Vec::with_capacity(1000);
    for a in attempts {
        if let Ok(Ok(Ok(s))) = a.await {
            flood.push(s);
        }
    }

    let http = client_with_deadline();
    let health = http.get(srv.url("/health")).send().await;
    assert!(
        health.as_ref().is_ok_and(|r| r.status() == 200),
        "/health within 10 s under the flood: {health:?}\n{}",
        srv.stderr_text()
    );
    let turn = http
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": "flood-1", "text": "are you there?"}))
        .send()
        .await;
    let turn = match turn {
        Ok(r) => r,
        Err(e) => panic!(
            "an authenticated turn within 10 s under the flood: {e}\n{}",
            srv.stderr_text()
        ),
    };
    assert_eq!(turn.status(), 200);
    let body: serde_json::Value = turn.json().await.unwrap();
    assert_eq!(body["reply"], "still answering");

    // Checked last so that a server without caps fails on the question above, not here.
    assert!(
        flood.len() >= 900,
        "only {} of 1000 flood connections were established: the test did not flood",
        flood.len()
    );
    let status = srv.terminate();
    assert!(status.success(), "graceful shutdown with the flood open");
    drop(flood);
}

#[tokio::test]
async fn a_head_that_never_ends_is_closed_at_the_configured_header_timeout() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("conn-header");
    let srv = serve_fd_limited(
        &dir,
        &fake,
        &[
            ("STEWARD_HTTP_HEADER_TIMEOUT_SECS", "1"),
            ("STEWARD_HTTP_IDLE_TIMEOUT_SECS", LONG_SECS),
        ],
    );
    let mut stalled = half_open(1, srv.addr).await.unwrap();
    assert!(
        closed_within(&mut stalled, Duration::from_secs(10))
            .await
            .unwrap(),
        "the stalled connection is still open 10 s after a 1 s header timeout"
    );
}

#[tokio::test]
async fn one_address_over_its_cap_displaces_only_its_own_connections() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("conn-per-ip");
    let srv = serve_fd_limited(
        &dir,
        &fake,
        &[
            ("STEWARD_HTTP_HEADER_TIMEOUT_SECS", LONG_SECS),
            ("STEWARD_HTTP_MAX_CONNECTIONS_PER_IP", "3"),
        ],
    );
    let mut neighbour = half_open(2, srv.addr).await.unwrap();
    let mut own = Vec::new();
    for _ in 0..5 {
        own.push(half_open(3, srv.addr).await.unwrap());
    }
    for s in &mut own[..2] {
        assert!(closed_within(s, Duration::from_secs(10)).await.unwrap());
    }
    for s in own[2..].iter_mut().chain([&mut neighbour]) {
        assert!(finish_health(s).await.unwrap().contains("200"));
    }
}
