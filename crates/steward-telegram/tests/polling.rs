//! The polling loop against the fake Bot API: the polling call's own body, the offset,
//! backoff decisions on 429 / 5xx / refused connections (recorded, not slept), skipping an
//! undecodable update, cancellation, and the token kept out of logs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use steward_telegram::{Pause, PollEnd, UpdateKind};

use crate::support::{LogCapture, RecordedPause, allow, start, until};
use steward_testkit::telegram::{FakeBotApi, Scripted, TOKEN, private_text};

const ANN: u64 = 1001;

#[tokio::test]
async fn the_polling_call_names_the_four_update_kinds_and_a_long_poll() {
    let fake = FakeBotApi::start().await.unwrap();
    let mut run = start(&fake.base, allow("1001", false), RecordedPause::default());
    fake.push_update(private_text(1, ANN, "hi"));
    run.next().await;
    let first = fake.polls().remove(0);
    assert_eq!(
        first["allowed_updates"],
        json!([
            "message",
            "edited_message",
            "callback_query",
            "message_reaction"
        ])
    );
    assert_eq!(first["timeout"], json!(1));
    assert!(first.get("offset").is_none(), "{first}");
    assert_eq!(run.stop().await, PollEnd::Cancelled);
}

#[tokio::test]
async fn the_offset_moves_past_the_last_update_and_nothing_comes_twice() {
    let fake = FakeBotApi::start().await.unwrap();
    fake.push_update(private_text(40, ANN, "one"));
    fake.push_update(private_text(41, ANN, "two"));
    let mut run = start(&fake.base, allow("1001", false), RecordedPause::default());
    assert_eq!(run.next().await.update_id, 40);
    assert_eq!(run.next().await.update_id, 41);
    until(|| fake.polls().len() >= 3).await;
    let polls = fake.polls();
    assert_eq!(polls[1]["offset"], json!(42), "{polls:?}");
    assert_eq!(polls[2]["offset"], json!(42), "{polls:?}");
    assert!(run.admitted.try_recv().is_err(), "an update came twice");
    run.stop().await;
}

#[tokio::test]
async fn a_429_waits_exactly_its_retry_after_then_delivers() {
    let fake = FakeBotApi::start().await.unwrap();
    fake.script(Scripted::Error {
        code: 429,
        description: "Too Many Requests: retry after 7",
        retry_after: Some(7),
    });
    fake.push_update(private_text(5, ANN, "after the flood"));
    let pause = RecordedPause::default();
    let mut run = start(&fake.base, allow("1001", false), pause.clone());
    assert_eq!(run.next().await.update_id, 5);
    assert_eq!(pause.waits(), vec![Duration::from_secs(7)]);
    run.stop().await;
}

#[tokio::test]
async fn server_errors_back_off_growing_and_the_loop_still_delivers() {
    let fake = FakeBotApi::start().await.unwrap();
    fake.script(Scripted::Raw {
        status: 502,
        body: "<html><body>502 Bad Gateway</body></html>",
    });
    fake.script(Scripted::Error {
        code: 500,
        description: "Internal Server Error",
        retry_after: None,
    });
    fake.script(Scripted::Raw {
        status: 503,
        body: "",
    });
    fake.push_update(private_text(9, ANN, "still here"));
    let pause = RecordedPause::default();
    let mut run = start(&fake.base, allow("1001", false), pause.clone());
    assert_eq!(run.next().await.update_id, 9);
    // Jitter fixed at 0: half of 1 s, 2 s, 4 s.
    assert_eq!(
        pause.waits(),
        vec![
            Duration::from_millis(500),
            Duration::from_secs(1),
            Duration::from_secs(2)
        ]
    );
    run.stop().await;
}

/// Starts the fake on a port that refused connections, at the loop's second wait.
#[derive(Clone)]
struct FakeComesUp {
    addr: std::net::SocketAddr,
    fake: Arc<Mutex<Option<FakeBotApi>>>,
    waits: RecordedPause,
}

#[async_trait::async_trait]
impl Pause for FakeComesUp {
    async fn pause(&self, wait: Duration) {
        self.waits.pause(wait).await;
        if self.waits.waits().len() == 2 {
            let listener = tokio::net::TcpListener::bind(self.addr).await.unwrap();
            let fake = FakeBotApi::serve(listener).unwrap();
            fake.push_update(private_text(77, ANN, "back online"));
            *self.fake.lock().unwrap() = Some(fake);
        }
    }
}

#[tokio::test]
async fn refused_connections_keep_the_loop_alive_and_never_log_the_token() {
    let logs = LogCapture::default();
    let _guard = logs.install();
    // A port nobody listens on (taken and let go): connections are refused until the fake
    // comes up on it.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let pause = FakeComesUp {
        addr,
        fake: Arc::new(Mutex::new(None)),
        waits: RecordedPause::default(),
    };
    let mut run = start(
        &format!("http://{addr}"),
        allow("1001", false),
        pause.clone(),
    );
    assert_eq!(run.next().await.update_id, 77);
    assert_eq!(pause.waits.waits().len(), 2);
    run.stop().await;
    let text = logs.text();
    assert!(text.contains("getUpdates failed"), "{text}");
    assert!(!text.contains(TOKEN) && !text.contains("AAFake"), "{text}");
}

#[tokio::test]
async fn a_connection_dropped_mid_answer_is_waited_out_and_loses_no_update() {
    let fake = FakeBotApi::start().await.unwrap();
    fake.script(Scripted::Drop);
    fake.push_update(private_text(12, ANN, "after the drop"));
    let pause = RecordedPause::default();
    let mut run = start(&fake.base, allow("1001", false), pause.clone());
    assert_eq!(run.next().await.update_id, 12);
    assert_eq!(pause.waits(), vec![Duration::from_millis(500)]);
    assert_eq!(
        fake.polls().len(),
        2,
        "one dropped poll, one that delivered"
    );
    run.stop().await;
}

#[tokio::test]
async fn hostile_success_answers_are_failures_not_crashes_and_quote_nothing() {
    let logs = LogCapture::default();
    let _guard = logs.install();
    let fake = FakeBotApi::start().await.unwrap();
    for body in [
        "<html>captive portal: secret-looking page</html>",
        r#"{"ok":true,"result":"secret-looking string"}"#,
        r#"{"ok":true}"#,
        "",
    ] {
        fake.script(Scripted::Raw { status: 200, body });
    }
    fake.push_update(private_text(21, ANN, "through"));
    let pause = RecordedPause::default();
    let mut run = start(&fake.base, allow("1001", false), pause.clone());
    assert_eq!(run.next().await.update_id, 21);
    assert_eq!(pause.waits().len(), 4);
    run.stop().await;
    let text = logs.text();
    assert_eq!(text.matches("did not decode").count(), 4, "{text}");
    assert!(!text.contains("secret-looking"), "{text}");
}

#[tokio::test]
async fn an_update_of_an_unknown_shape_is_skipped_not_retried() {
    let fake = FakeBotApi::start().await.unwrap();
    fake.push_update(json!({"update_id": 3, "message": {"bogus": true}}));
    fake.push_update(private_text(4, ANN, "fine"));
    let pause = RecordedPause::default();
    let mut run = start(&fake.base, allow("1001", false), pause.clone());
    let admitted = run.next().await;
    assert_eq!(
        (admitted.update_id, admitted.kind),
        (4, UpdateKind::Message)
    );
    until(|| fake.polls().len() >= 2).await;
    assert_eq!(fake.polls()[1]["offset"], json!(5));
    assert!(
        pause.waits().is_empty(),
        "a bad update counted as a failure"
    );
    run.stop().await;
}

#[tokio::test]
async fn cancelling_ends_a_poll_that_is_waiting_and_a_pause() {
    let fake = FakeBotApi::start().await.unwrap();
    let run = start(&fake.base, allow("1001", false), RecordedPause::default());
    until(|| !fake.polls().is_empty()).await;
    assert_eq!(run.stop().await, PollEnd::Cancelled);

    // In a (real, long) pause after a failure.
    fake.script(Scripted::Error {
        code: 429,
        description: "Too Many Requests: retry after 3000",
        retry_after: Some(3000),
    });
    let pause = SleepingPause::default();
    let mut run = start(&fake.base, allow("1001", false), pause.clone());
    until(|| pause.0.waits() == vec![Duration::from_secs(3000)]).await;
    run.cancel.cancel();
    let end = tokio::time::timeout(Duration::from_secs(20), &mut run.task).await;
    assert_eq!(end.unwrap().unwrap(), PollEnd::Cancelled);
}

/// Records the wait, then really takes it.
#[derive(Clone, Default)]
struct SleepingPause(RecordedPause);

#[async_trait::async_trait]
impl Pause for SleepingPause {
    async fn pause(&self, wait: Duration) {
        self.0.pause(wait).await;
        steward_telegram::TokioPause.pause(wait).await;
    }
}

#[tokio::test]
async fn the_loop_ends_when_nobody_takes_admitted_updates() {
    let fake = FakeBotApi::start().await.unwrap();
    let run = start(&fake.base, allow("1001", false), RecordedPause::default());
    drop(run.admitted);
    fake.push_update(private_text(1, ANN, "anyone?"));
    let end = tokio::time::timeout(Duration::from_secs(20), run.task).await;
    assert_eq!(end.unwrap().unwrap(), PollEnd::ReceiverGone);
}
