//! End to end over HTTP: the real binary, a real SQLite file, the fake model server.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{Value, json};
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

async fn post_message(srv: &Server, conv: &str, text: &str) -> (u16, Value) {
    post_message_keyed(srv, None, conv, text).await
}

fn serve_with_model(dir: &TempDir, fake: &FakeModel) -> Server {
    serve_with_fake(dir, &fake.openai_base_url(), &[])
}

#[tokio::test]
async fn a_message_makes_the_model_call_a_tool_and_the_answer_comes_back() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "calculate",
        r#"{"expression":"19*23"}"#,
    )));
    fake.push(Step::Reply(Reply::text("19 × 23 = 437").with_usage(50, 7)));
    let dir = TempDir::new("tool");
    let srv = serve_with_model(&dir, &fake);

    let (status, body) = post_message(&srv, "e2e-1", "what is 19*23?").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reply"], "19 × 23 = 437");
    assert_eq!(body["conversation_id"], "e2e-1");
    assert_eq!(body["tool_calls"][0]["name"], "calculate");
    assert_eq!(body["tool_calls"][0]["ok"], true);
    assert!(body["usage"]["input_tokens"].as_u64().unwrap() >= 50);

    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].header("authorization"),
        Some("Bearer sk-e2e-secret-value")
    );
    let tool_result = reqs[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .expect("tool result sent to the model");
    assert!(tool_result["content"].as_str().unwrap().contains("437"));
    assert!(
        !srv.stderr_text().contains("sk-e2e-secret-value"),
        "the key must never be logged"
    );
}

#[tokio::test]
async fn sse_events_arrive_in_order() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "current_time",
        r#"{"timezone":"Asia/Tokyo"}"#,
    )));
    fake.push(Step::Reply(Reply::text("It is late in Tokyo.")));
    let dir = TempDir::new("sse");
    let srv = serve_with_model(&dir, &fake);

    let text = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .header("accept", "text/event-stream")
        .json(&json!({"conversation_id": "sse-1", "text": "time in Tokyo?"}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            l.strip_prefix("event: ")
                .or_else(|| l.strip_prefix("event:"))
        })
        .map(str::trim)
        .collect();
    assert_eq!(names.first(), Some(&"started"), "{text}");
    assert_eq!(names.last(), Some(&"final"), "{text}");
    let ts = names
        .iter()
        .position(|n| *n == "tool_started")
        .expect("tool_started");
    let tf = names
        .iter()
        .position(|n| *n == "tool_finished")
        .expect("tool_finished");
    let first_delta = names
        .iter()
        .position(|n| *n == "text_delta")
        .expect("deltas");
    assert!(ts < tf && tf < first_delta, "{names:?}");
    let deltas: String = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .filter(|v| v["type"] == "text_delta")
        .map(|v| v["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(deltas, "It is late in Tokyo.");
}

#[tokio::test]
async fn openai_compatible_api_streamed_and_not() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(
        Reply::text("Hello from Steward.").with_usage(11, 4),
    ));
    fake.push(Step::Reply(Reply::text("Streamed hello.")));
    let dir = TempDir::new("openai");
    let srv = serve_with_model(&dir, &fake);
    let c = client();

    let resp = c
        .post(srv.url("/v1/chat/completions"))
        .bearer_auth(TOKEN)
        .header("x-steward-conversation", "oa-1")
        .json(&json!({"model": "steward", "messages": [{"role": "system", "content": "ignored"}, {"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-steward-conversation"], "oa-1");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "Hello from Steward."
    );
    assert_eq!(body["usage"]["prompt_tokens"], 11);

    let text = c
        .post(srv.url("/v1/chat/completions"))
        .bearer_auth(TOKEN)
        .json(&json!({"stream": true, "user": "oa-1", "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": [{"type": "text", "text": "again"}]}]}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let data: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    assert_eq!(data.last(), Some(&"[DONE]"), "{text}");
    let content: String = data
        .iter()
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(content, "Streamed hello.");
    // Same conversation (header then `user` field): the second model call saw the first exchange.
    let msgs = fake.requests()[1].body["messages"].to_string();
    assert!(msgs.contains("Hello from Steward."), "{msgs}");
    assert!(
        !msgs.contains("ignored"),
        "client-sent history is not trusted as history"
    );
}

#[tokio::test]
async fn a_conversation_survives_a_restart() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("Noted: your cat is Miso.")));
    fake.push(Step::Reply(Reply::text("Your cat is Miso.")));
    let dir = TempDir::new("restart");

    let srv = serve_with_model(&dir, &fake);
    let (status, _) = post_message(&srv, "keep", "my cat is called Miso").await;
    assert_eq!(status, 200);
    assert!(srv.terminate().success());

    let srv = serve_with_model(&dir, &fake);
    let (status, body) = post_message(&srv, "keep", "what is my cat called?").await;
    assert_eq!(status, 200, "{body}");
    let second = fake.requests()[1].body["messages"].to_string();
    assert!(second.contains("my cat is called Miso"), "{second}");
    assert!(second.contains("Noted: your cat is Miso."), "{second}");
}

#[tokio::test]
async fn retry_then_success_and_fallback_model() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("retry");
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_FALLBACK_MODEL", "anthropic:claude-fake")
        .env("ANTHROPIC_API_KEY", "sk-ant-e2e")
        .env("ANTHROPIC_BASE_URL", fake.base_url());
    let srv = start_server(cmd);

    // 429 twice, then 200: one success after three requests.
    for _ in 0..2 {
        fake.push(Step::Error {
            status: 429,
            message: "slow down".into(),
            retry_after: Some("0".into()),
        });
    }
    fake.push(Step::Reply(Reply::text("third time lucky")));
    let (status, body) = post_message(&srv, "r1", "hi").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reply"], "third time lucky");
    assert_eq!(fake.request_count(), 3);

    // Always 500 on the primary: the fallback (another provider, another wire format) answers.
    for _ in 0..3 {
        fake.push(Step::Error {
            status: 500,
            message: "boom".into(),
            retry_after: None,
        });
    }
    fake.push(Step::Reply(Reply::text("fallback here")));
    let (status, body) = post_message(&srv, "r2", "hi").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reply"], "fallback here");
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 7);
    assert_eq!(reqs[6].format, steward_testkit::WireFormat::Anthropic);
    assert_eq!(body["model"], "anthropic:claude-fake");
}

#[tokio::test]
async fn a_running_turn_is_cancelled_over_http() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Hang);
    let dir = TempDir::new("cancel");
    let srv = serve_with_model(&dir, &fake);
    let url = srv.url("/api/v1/messages");
    let waiting = tokio::spawn(async move {
        let resp = client()
            .post(url)
            .bearer_auth(TOKEN)
            .json(&json!({"conversation_id": "stop-me", "text": "take forever"}))
            .send()
            .await
            .unwrap();
        (resp.status().as_u16(), resp.json::<Value>().await.unwrap())
    });
    assert!(
        fake.wait_for_requests(1, std::time::Duration::from_secs(10))
            .await
    );
    let cancel = |conv: &str| {
        client()
            .post(srv.url(&format!("/api/v1/conversations/{conv}/cancel")))
            .bearer_auth(TOKEN)
            .send()
    };
    let resp = cancel("stop-me").await.unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body,
        json!({"conversation_id": "stop-me", "cancelled": true})
    );

    let (status, body) = waiting.await.unwrap();
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["kind"], "cancelled");
    assert_eq!(body["error"]["retryable"], false);

    // Nothing runs now: a no-op. A bad id: 400. No token: 401.
    let body: Value = cancel("stop-me").await.unwrap().json().await.unwrap();
    assert_eq!(body["cancelled"], false);
    assert_eq!(cancel("a%20b").await.unwrap().status(), 400);
    let anon = client()
        .post(srv.url("/api/v1/conversations/stop-me/cancel"))
        .send()
        .await
        .unwrap();
    assert_eq!(anon.status(), 401);
}

#[tokio::test]
async fn conversations_are_listed_paged_renamed_and_deleted() {
    let fake = FakeModel::start().await.unwrap();
    for i in 0..3 {
        fake.push(Step::Reply(Reply::text(format!("answer {i}"))));
    }
    let dir = TempDir::new("readside");
    let srv = serve_with_model(&dir, &fake);
    for i in 0..3 {
        let (status, _) = post_message(&srv, "readside", &format!("question {i}")).await;
        assert_eq!(status, 200);
    }
    let c = client();
    let get = |path: String| c.get(srv.url(&path)).bearer_auth(TOKEN).send();
    let json_of = |r: reqwest::Response| async move {
        let status = r.status().as_u16();
        (status, r.json::<Value>().await.unwrap_or(Value::Null))
    };

    let (status, list) = json_of(get("/api/v1/conversations".into()).await.unwrap()).await;
    assert_eq!(status, 200, "{list}");
    let mine = &list["conversations"][0];
    assert_eq!(mine["id"], "readside");
    assert_eq!(mine["message_count"], 6);
    assert_eq!(mine["title"], Value::Null);

    // Pages walk backwards, each oldest first.
    let (_, page) = json_of(
        get("/api/v1/conversations/readside?limit=2".into())
            .await
            .unwrap(),
    )
    .await;
    let seqs: Vec<u64> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [4, 5], "{page}");
    assert_eq!(page["messages"][1]["role"], "assistant");
    assert_eq!(page["messages"][1]["content"], "answer 2");
    assert_eq!(page["next_before"], 4);
    let (_, rest) = json_of(
        get("/api/v1/conversations/readside?before=4&limit=10".into())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(rest["messages"].as_array().unwrap().len(), 4);
    assert_eq!(rest["messages"][0]["content"], "question 0");
    assert_eq!(rest["next_before"], Value::Null, "the start");

    // Rename and clear; hostile titles are refused, nothing changes.
    let patch = |id: &str, body: String| {
        c.patch(srv.url(&format!("/api/v1/conversations/{id}")))
            .bearer_auth(TOKEN)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let (status, renamed) = json_of(
        patch("readside", json!({"title": " Trip ✈ "}).to_string())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{renamed}");
    assert_eq!(renamed["title"], "Trip ✈");
    for (bad, want) in [
        (json!({"title": "a\nb"}).to_string(), 400),
        (json!({"title": "\u{202e}evil"}).to_string(), 400),
        (json!({"title": "x".repeat(201)}).to_string(), 400),
        (json!({"title": ""}).to_string(), 400),
        ("{not json".to_owned(), 400),
        (json!({"title": 7}).to_string(), 422),
    ] {
        let (status, body) = json_of(patch("readside", bad.clone()).await.unwrap()).await;
        assert_eq!(status, want, "{bad}: {body}");
    }
    let (_, list) = json_of(get("/api/v1/conversations".into()).await.unwrap()).await;
    assert_eq!(
        list["conversations"][0]["title"], "Trip ✈",
        "refusals changed nothing"
    );
    let (status, _) = json_of(
        patch("nobody", json!({"title": "x"}).to_string())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 404);
    let (_, cleared) = json_of(
        patch("readside", json!({"title": null}).to_string())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(cleared["title"], Value::Null);

    // Bad input to the reads.
    for path in [
        "/api/v1/conversations?limit=0",
        "/api/v1/conversations?limit=99999",
        "/api/v1/conversations/readside?before=-1",
        "/api/v1/conversations/readside?limit=x",
        "/api/v1/conversations/a%20b",
    ] {
        let (status, body) = json_of(get(path.into()).await.unwrap()).await;
        assert_eq!(status, 400, "{path}: {body}");
    }
    let (status, _) = json_of(get("/api/v1/conversations/nobody".into()).await.unwrap()).await;
    assert_eq!(status, 404);

    // Delete: refused while a turn runs, then done; its history is gone.
    fake.push(Step::Hang);
    let url = srv.url("/api/v1/messages");
    let running = tokio::spawn(async move {
        client()
            .post(url)
            .bearer_auth(TOKEN)
            .json(&json!({"conversation_id": "readside", "text": "hang"}))
            .send()
            .await
            .unwrap()
            .status()
    });
    assert!(
        fake.wait_for_requests(4, std::time::Duration::from_secs(10))
            .await
    );
    let delete = || {
        c.delete(srv.url("/api/v1/conversations/readside"))
            .bearer_auth(TOKEN)
            .send()
    };
    let (status, body) = json_of(delete().await.unwrap()).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["kind"], "busy");
    c.post(srv.url("/api/v1/conversations/readside/cancel"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(running.await.unwrap(), 409);
    // The worker lets go of the conversation right after the turn ends.
    let mut status = 0;
    for _ in 0..50 {
        status = delete().await.unwrap().status().as_u16();
        if status != 409 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(status, 204);
    let (status, _) = json_of(get("/api/v1/conversations/readside".into()).await.unwrap()).await;
    assert_eq!(status, 404);
    assert_eq!(delete().await.unwrap().status(), 404);
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let left: i64 = conn
        .query_row(
            "SELECT count(*) FROM messages WHERE conversation_id = 'readside'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
}
