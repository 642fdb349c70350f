//! Connection limits over real loopback sockets: the header and idle deadlines, the
//! per-address cap, and a flood of pre-auth connections that must not displace the owner.
//! Clients bind distinct 127.0.0.x source addresses to stand for distinct hosts.

use crate::desk::FakeDesk;
use crate::support::{Fake, TOKEN, client, final_event, start_limited, started};
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;
use steward_server::ConnLimits;
use steward_testkit::raw_http::{
    closed_within, connect_from, finish_health, half_open, read_response,
};
use tokio::io::AsyncWriteExt;
use tokio::sync::oneshot;

/// Long enough that only the mechanism under test (never a deadline) can close anything.
const LONG: Duration = Duration::from_secs(120);

fn limits(max: usize, per_ip: usize) -> ConnLimits {
    ConnLimits {
        header_timeout: LONG,
        idle_timeout: LONG,
        max_connections: max,
        max_connections_per_ip: per_ip,
    }
}

fn addr_of(base: &str) -> SocketAddr {
    base.trim_start_matches("http://").parse().unwrap()
}

#[tokio::test]
async fn a_connection_stalled_in_its_headers_is_closed_after_the_header_timeout() {
    let cfg = ConnLimits {
        header_timeout: Duration::from_secs(1),
        ..limits(64, 64)
    };
    let srv = start_limited(
        Fake::standard(),
        FakeDesk::empty(),
        crate::support::config(),
        cfg,
    )
    .await;
    let mut stalled = half_open(1, addr_of(&srv.base)).await.unwrap();
    assert!(
        closed_within(&mut stalled, Duration::from_secs(10))
            .await
            .unwrap(),
        "a head never finished must be closed at the header deadline"
    );
    // A connection that never sends a byte is held to the same deadline.
    let mut silent = connect_from(1, addr_of(&srv.base)).await.unwrap();
    assert!(
        closed_within(&mut silent, Duration::from_secs(10))
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_idle_timeout() {
    let cfg = ConnLimits {
        idle_timeout: Duration::from_secs(1),
        ..limits(64, 64)
    };
    let srv = start_limited(
        Fake::standard(),
        FakeDesk::empty(),
        crate::support::config(),
        cfg,
    )
    .await;
    let mut s = half_open(1, addr_of(&srv.base)).await.unwrap();
    assert!(finish_health(&mut s).await.unwrap().contains("200"));
    // The header deadline is two minutes: only the idle one can close it this soon.
    assert!(
        closed_within(&mut s, Duration::from_secs(10))
            .await
            .unwrap(),
        "an idle keep-alive connection must be closed at the idle deadline"
    );
}

#[tokio::test]
async fn the_per_address_cap_displaces_that_addresses_oldest_connections_only() {
    let srv = start_limited(
        Fake::standard(),
        FakeDesk::empty(),
        crate::support::config(),
        limits(64, 4),
    )
    .await;
    let to = addr_of(&srv.base);
    let mut neighbours = Vec::new();
    for _ in 0..4 {
        neighbours.push(half_open(2, to).await.unwrap());
    }
    let mut flood = Vec::new();
    for _ in 0..6 {
        flood.push(half_open(3, to).await.unwrap());
    }
    // The two oldest of 127.0.0.3 made room for its newest four.
    for s in &mut flood[..2] {
        assert!(closed_within(s, Duration::from_secs(10)).await.unwrap());
    }
    for s in flood[2..].iter_mut().chain(neighbours.iter_mut()) {
        assert!(finish_health(s).await.unwrap().contains("200"));
    }
}

#[tokio::test]
async fn a_flood_of_pre_auth_connections_never_displaces_the_owner() {
    let (release, gate) = oneshot::channel();
    let fake = Fake::gated(|inb| vec![started(inb), final_event("still served")], gate);
    let srv = start_limited(
        fake,
        FakeDesk::empty(),
        crate::support::config(),
        limits(8, 8),
    )
    .await;
    let to = addr_of(&srv.base);

    // The owner: one kept-alive connection that authenticated and is now idle…
    let mut idle_owner = connect_from(1, to).await.unwrap();
    let authed =
        format!("GET /v1/models HTTP/1.1\r\nHost: s\r\nAuthorization: Bearer {TOKEN}\r\n\r\n");
    idle_owner.write_all(authed.as_bytes()).await.unwrap();
    assert!(
        read_response(&mut idle_owner)
            .await
            .unwrap()
            .contains("200")
    );
    // …and a turn in progress.
    let turn = tokio::spawn(
        client()
            .post(srv.url("/api/v1/messages"))
            .bearer_auth(TOKEN)
            .json(&json!({"text": "long one"}))
            .send(),
    );
    srv.fake.submitted.notified().await;

    let mut flood = Vec::new();
    for i in 0..60u8 {
        flood.push(half_open(10 + i % 6, to).await.unwrap());
    }
    assert!(
        client()
            .get(srv.url("/health"))
            .send()
            .await
            .unwrap()
            .status()
            == 200,
        "a newcomer still gets in"
    );
    idle_owner.write_all(authed.as_bytes()).await.unwrap();
    assert!(
        read_response(&mut idle_owner)
            .await
            .unwrap()
            .contains("200"),
        "the owner's idle connection survived the flood"
    );
    release.send(()).unwrap();
    let resp = turn.await.unwrap().unwrap();
    assert_eq!(resp.status(), 200);
    let flood_alive = {
        let mut alive = 0;
        for s in &mut flood {
            if !closed_within(s, Duration::from_millis(20)).await.unwrap() {
                alive += 1;
            }
        }
        alive
    };
    assert!(
        flood_alive <= 8,
        "{flood_alive} flood connections kept past the cap"
    );
}
