//! Approval history through the real binary: a card confirmed over HTTP lists with who
//! decided it (the configured owner), where (`http`) and when, its page carries the whole
//! trail in order, a card cancelled from the terminal says `cli`, and the pending count the
//! web app's badge reads follows each decision.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{Value, json};
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

/// Not the default owner, so `decided.by` can only come from the configuration.
const OWNER: &str = "ann";

async fn get(srv: &Server, path: &str) -> Value {
    let resp = client()
        .get(srv.url(path))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200, "{path}");
    resp.json().await.unwrap()
}

/// A turn in which the model asks to create `table`; the card's action id.
async fn park(srv: &Server, fake: &FakeModel, conv: &str, table: &str) -> String {
    let sql = format!("CREATE TABLE {table} (x)");
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        &json!({ "sql": sql }).to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Approve?")));
    let resp = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": conv, "text": format!("make {table}")}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    body["approvals"][0]["action_id"]
        .as_str()
        .expect("a card")
        .to_owned()
}

fn listed<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["action"]["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed: {list}"))
}

#[tokio::test]
async fn a_card_confirmed_over_http_lists_who_decided_it_where_and_when() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("history");
    let env = [("STEWARD_SQL_ALLOW_DDL", "true"), ("STEWARD_OWNER", OWNER)];
    let srv = serve_with_fake(&dir, &fake.openai_base_url(), &env);
    assert_eq!(
        get(&srv, "/api/v1/approvals/count").await,
        json!({"pending": 0})
    );

    let confirmed = park(&srv, &fake, "hist-1", "histone").await;
    let cancelled = park(&srv, &fake, "hist-2", "histtwo").await;
    assert_eq!(
        get(&srv, "/api/v1/approvals/count").await,
        json!({"pending": 2})
    );
    let pending = get(&srv, "/api/v1/approvals").await;
    assert_eq!(listed(&pending, &confirmed)["decided"], json!(null));

    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    fake.push(Step::Reply(Reply::text("Made it.")));
    let resp = client()
        .post(srv.url(&format!("/api/v1/approvals/{confirmed}/confirm")))
        .bearer_auth(TOKEN)
        .json(&json!({"revision": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        get(&srv, "/api/v1/approvals/count").await,
        json!({"pending": 1})
    );

    // Cancelled from the terminal: another process, another surface, the same owner.
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(["approvals", "cancel", &cancelled]);
    let out = tokio::process::Command::from(cmd).output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        get(&srv, "/api/v1/approvals/count").await,
        json!({"pending": 0})
    );

    let all = get(&srv, "/api/v1/approvals?status=all").await;
    let item = listed(&all, &confirmed);
    assert_eq!(item["action"]["status"], "executed");
    let decided = &item["decided"];
    assert_eq!(decided["decision"], "confirm");
    assert_eq!(decided["by"], OWNER, "the configured owner decided it");
    assert_eq!(decided["surface"], "http", "over the HTTP API");
    let at = decided["at_ms"].as_i64().unwrap();
    assert!(at >= before, "decided at {at}, after {before}");
    let other = &listed(&all, &cancelled)["decided"];
    assert_eq!(
        (&other["decision"], &other["by"], &other["surface"]),
        (&json!("cancel"), &json!(OWNER), &json!("cli"))
    );

    let page = get(&srv, &format!("/api/v1/approvals/{confirmed}")).await;
    assert_eq!(&page["decided"], decided, "the page agrees with the list");
    let trail: Vec<(&str, &str, &str)> = page["trail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["event"].as_str().unwrap(),
                s["by"].as_str().unwrap(),
                s["surface"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        trail,
        [
            ("created", OWNER, "http"),
            ("confirm", OWNER, "http"),
            ("running", OWNER, "http"),
            ("executed", OWNER, "http"),
        ]
    );
    let times: Vec<i64> = page["trail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["at_ms"].as_i64().unwrap())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "oldest first: {times:?}"
    );

    let resp = client()
        .get(srv.url("/api/v1/approvals/count"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401, "the badge needs a credential too");
}
