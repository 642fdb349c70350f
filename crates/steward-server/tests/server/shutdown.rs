//! Graceful shutdown: a request in flight when shutdown starts still gets its answer.

use crate::support::{Fake, TOKEN, client, final_event, json_of, start, started};
use serde_json::json;
use std::time::Duration;
use tokio::sync::oneshot;

#[tokio::test]
async fn in_flight_request_finishes_after_shutdown_starts() {
    let (release, gate) = oneshot::channel();
    let fake = Fake::gated(|inb| vec![started(inb), final_event("late but here")], gate);
    let mut server = start(fake).await;

    let url = server.url("/api/v1/messages");
    let addr = server.base.trim_start_matches("http://").to_owned();
    let request = tokio::spawn(
        client()
            .post(url.clone())
            .header("authorization", format!("Bearer {TOKEN}"))
            .header("content-type", "application/json")
            .body(json!({"text": "slow one"}).to_string())
            .send(),
    );
    // The turn is submitted (so the request is in flight) before shutdown starts.
    server.fake.submitted.notified().await;
    server.shutdown();

    // Wait until the listener is gone: shutdown is really under way.
    let closed = tokio::time::timeout(Duration::from_secs(30), async {
        while tokio::net::TcpStream::connect(&addr).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(closed.is_ok(), "listener never closed");
    assert!(
        client().get(&url).send().await.is_err(),
        "no new connections"
    );

    release.send(()).unwrap();
    let resp = request.await.unwrap().unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(json_of(resp).await["reply"], "late but here");
    let served = tokio::time::timeout(Duration::from_secs(30), server.task).await;
    assert!(
        served.unwrap().unwrap().is_ok(),
        "serve returns Ok once drained"
    );
}
