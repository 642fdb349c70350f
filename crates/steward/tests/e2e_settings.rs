//! The runtime settings end to end: the real binary, `/api/v1/settings`, the fake model. A
//! change is in force from the next turn without a restart, survives a restart, never beats
//! the environment, and no secret is ever listed.

use crate::support;

use serde_json::{Value, json};
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

/// `steward serve` with the model named in `./steward.toml` (so it can change at runtime)
/// and `env` on top.
fn serve_from_file(dir: &TempDir, fake: &FakeModel, env: &[(&str, &str)]) -> Server {
    std::fs::write(
        dir.path().join("steward.toml"),
        "model = \"openai:gpt-fake\"\n",
    )
    .unwrap();
    let mut cmd = base_command(dir.path());
    cmd.env("OPENAI_API_KEY", "sk-e2e-secret-value")
        .env("OPENAI_BASE_URL", fake.openai_base_url())
        .env("STEWARD_API_TOKEN", TOKEN);
    for (k, v) in env {
        cmd.env(k, v);
    }
    start_server(cmd)
}

async fn put_setting(srv: &Server, key: &str, value: Value) -> (u16, Value) {
    let resp = client()
        .put(srv.url(&format!("/api/v1/settings/{key}")))
        .bearer_auth(TOKEN)
        .json(&json!({ "value": value }))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap())
}

async fn settings(srv: &Server) -> Value {
    let resp = client()
        .get(srv.url("/api/v1/settings"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    resp.json().await.unwrap()
}

fn setting<'a>(list: &'a Value, key: &str) -> &'a Value {
    list["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == key)
        .unwrap_or_else(|| panic!("{key} not listed: {list}"))
}

/// The text of the last user message the fake model was sent.
fn last_user_text(fake: &FakeModel) -> String {
    let reqs = fake.requests();
    let body = &reqs.last().unwrap().body;
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .unwrap()
}

#[tokio::test]
async fn a_change_is_in_force_from_the_next_turn_and_survives_a_restart() {
    let fake = FakeModel::start().await.unwrap();
    fake.set_default(Reply::text("ok"));
    let dir = TempDir::new("settings");
    let srv = serve_from_file(&dir, &fake, &[]);

    let list = settings(&srv).await;
    assert_eq!(setting(&list, "timezone")["value"], "UTC");
    assert_eq!(setting(&list, "timezone")["source"], "default");
    assert_eq!(setting(&list, "model")["source"], "file");
    // Only runtime fields, and never a secret: not the token, not the provider key.
    let text = list.to_string();
    assert!(!text.contains(TOKEN) && !text.contains("sk-e2e-secret-value"));
    assert!(
        !text.contains("api_token") && !text.contains("api_key"),
        "{text}"
    );

    let (status, body) = post_message_keyed(&srv, None, "set-1", "hello").await;
    assert_eq!(status, 200, "{body}");
    assert!(last_user_text(&fake).contains("time zone: UTC"));

    let (status, body) = put_setting(&srv, "timezone", json!("Europe/Berlin")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["source"], "app");
    let (status, body) = put_setting(&srv, "model", json!("openai:gpt-other")).await;
    assert_eq!(status, 200, "{body}");

    let (status, body) = post_message_keyed(&srv, None, "set-1", "and now?").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        last_user_text(&fake).contains("time zone: Europe/Berlin"),
        "{}",
        last_user_text(&fake)
    );
    assert_eq!(fake.requests().last().unwrap().body["model"], "gpt-other");
    let health: Value = client()
        .get(srv.url("/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["model"], "openai:gpt-other");

    // A restart keeps what was set in the app.
    assert!(srv.terminate().success());
    let srv = serve_from_file(&dir, &fake, &[]);
    let list = settings(&srv).await;
    assert_eq!(setting(&list, "timezone")["value"], "Europe/Berlin");
    assert_eq!(setting(&list, "timezone")["source"], "app");
    let (status, _) = post_message_keyed(&srv, None, "set-2", "after restart").await;
    assert_eq!(status, 200);
    assert!(last_user_text(&fake).contains("time zone: Europe/Berlin"));
    assert_eq!(fake.requests().last().unwrap().body["model"], "gpt-other");

    // Reset: back to the file's model and the default zone.
    for key in ["timezone", "model"] {
        let resp = client()
            .delete(srv.url(&format!("/api/v1/settings/{key}")))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
    }
    let (status, _) = post_message_keyed(&srv, None, "set-2", "reset?").await;
    assert_eq!(status, 200);
    assert!(last_user_text(&fake).contains("time zone: UTC"));
    assert_eq!(fake.requests().last().unwrap().body["model"], "gpt-fake");
    assert!(!srv.stderr_text().contains("sk-e2e-secret-value"));
}

#[tokio::test]
async fn a_bad_value_changes_nothing_and_the_environment_wins() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("ok")));
    let dir = TempDir::new("settings-bad");
    let srv = serve_from_file(&dir, &fake, &[("STEWARD_TIMEZONE", "Asia/Tokyo")]);

    let (status, body) = put_setting(&srv, "timezone", json!("Europe/Berlin")).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("STEWARD_TIMEZONE")
    );
    for (key, value) in [
        ("agent.max_rounds", json!(0)),
        ("agent.max_rounds", json!("lots")),
        ("model", json!("nosuch:model")),
        ("model", json!("no-colon")),
    ] {
        let (status, body) = put_setting(&srv, key, value.clone()).await;
        assert_eq!(status, 422, "{key}={value}: {body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(key),
            "{body}"
        );
    }
    for key in [
        "api_token",
        "data_dir",
        "providers.openai.api_key",
        "http.addr",
    ] {
        let (status, _) = put_setting(&srv, key, json!("x")).await;
        assert_eq!(status, 404, "{key}");
    }
    let list = settings(&srv).await;
    assert_eq!(setting(&list, "timezone")["locked_by"], "STEWARD_TIMEZONE");
    assert_eq!(setting(&list, "agent.max_rounds")["source"], "default");
    assert_eq!(setting(&list, "model")["value"], "openai:gpt-fake");
    let (status, _) = post_message_keyed(&srv, None, "bad-1", "hi").await;
    assert_eq!(status, 200);
    assert!(last_user_text(&fake).contains("time zone: Asia/Tokyo"));
    assert_eq!(fake.requests().last().unwrap().body["model"], "gpt-fake");
}
