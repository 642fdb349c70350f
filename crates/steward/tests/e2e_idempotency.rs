//! `Idempotency-Key` on the Steward API, end to end (real binary, real SQLite, the fake
//! model): the same key is the same turn, replayed or resumed; the same key with other
//! content is refused; nothing is stored or run twice.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::Value;
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

async fn post(srv: &Server, key: &str, conv: &str, text: &str) -> (u16, Value) {
    post_message_keyed(srv, Some(key), conv, text).await
}

fn serve(dir: &TempDir, fake: &FakeModel) -> Server {
    serve_with_fake(
        dir,
        &fake.openai_base_url(),
        &[("STEWARD_MODEL_RETRIES", "0")],
    )
}

fn roles(dir: &TempDir, conversation: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT role FROM messages WHERE conversation_id = ?1 ORDER BY seq")
        .unwrap();
    stmt.query_map([conversation], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[tokio::test]
async fn the_same_key_gets_the_same_answer_without_running_again() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "calculate",
        r#"{"expression":"6*7"}"#,
    )));
    fake.push(Step::Reply(Reply::text("42")));
    let dir = TempDir::new("idem-replay");
    let srv = serve(&dir, &fake);

    let (s1, first) = post(&srv, "key-1", "idem", "what is 6*7?").await;
    assert_eq!(s1, 200, "{first}");
    let (s2, again) = post(&srv, "key-1", "idem", "what is 6*7?").await;
    assert_eq!(s2, 200, "{again}");
    assert_eq!(again["reply"], first["reply"]);
    assert_eq!(again["turn_id"], first["turn_id"], "the same turn");
    assert_eq!(
        again["tool_calls"], first["tool_calls"],
        "its tool calls shown again"
    );
    assert_eq!(fake.requests().len(), 2, "no model call for the replay");
    assert_eq!(
        roles(&dir, "idem"),
        ["user", "assistant", "tool", "assistant"]
    );

    // The same key with other text is a client bug: refused, nothing stored or called.
    let (s3, other) = post(&srv, "key-1", "idem", "something else").await;
    assert_eq!(s3, 400, "{other}");
    assert_eq!(other["error"]["kind"], "input");
    assert!(
        other["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Idempotency-Key")
    );
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(roles(&dir, "idem").len(), 4);

    // A new key is a new turn, even with the same text.
    fake.push(Step::Reply(Reply::text("still 42")));
    let (s4, new) = post(&srv, "key-2", "idem", "what is 6*7?").await;
    assert_eq!(s4, 200, "{new}");
    assert_ne!(new["turn_id"], first["turn_id"]);
    assert_eq!(roles(&dir, "idem").len(), 6);
}

#[tokio::test]
async fn a_failed_turn_is_resumed_by_its_key_and_a_lasting_failure_replayed() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::error(503, "overloaded"));
    fake.push(Step::Reply(Reply::text("back")));
    let dir = TempDir::new("idem-resume");
    let srv = serve(&dir, &fake);

    let (s1, failed) = post(&srv, "k", "resume", "hello").await;
    assert_eq!(s1, 502, "{failed}");
    assert_eq!(failed["error"]["retryable"], true);
    let (s2, ok) = post(&srv, "k", "resume", "hello").await;
    assert_eq!(s2, 200, "{ok}");
    assert_eq!(ok["reply"], "back");
    assert_eq!(ok["turn_id"], failed["turn_id"], "the same turn, resumed");
    assert_eq!(
        roles(&dir, "resume"),
        ["user", "assistant"],
        "the message stored once"
    );

    // A failure no retry can fix is sent again, without another model call.
    fake.push(Step::error(400, "context too long"));
    let (s3, refused) = post(&srv, "k2", "resume", "a very long text").await;
    assert_eq!(s3, 422, "{refused}");
    let calls = fake.requests().len();
    let (s4, again) = post(&srv, "k2", "resume", "a very long text").await;
    assert_eq!(s4, 422, "{again}");
    assert_eq!(again["error"], refused["error"]);
    assert_eq!(fake.requests().len(), calls, "no second model call");
    assert_eq!(
        roles(&dir, "resume").len(),
        3,
        "and no second stored message"
    );
}
