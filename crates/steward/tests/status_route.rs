//! `GET /api/v1/status` over the real app (`app::build` from a steward.toml): the model
//! binding, the database's size (never its path), the lazily loaded embedder, two real MCP
//! servers (one working, one broken), a recent error holding a configured secret (redacted),
//! and a turn's usage priced by the built-in table in the owner's time zone.

use crate::config_support;
use crate::support;

use config_support::{env_of, load_in, temp_dir, write};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use steward::logging::recent::RecentErrors;
use steward_core::Assistant;
use steward_protocol::{ConversationId, Inbound, Surface, TurnEvent};
use steward_server::{ConnLimits, ServerConfig};
use steward_testkit::{FakeModel, Reply, Step};
use support::{TOKEN, client, everything_js};
use tracing_subscriber::layer::SubscriberExt;

const SECRET: &str = "sk-status-canary-8841-abcdef";

async fn status(base: &str, query: &str) -> (String, Value) {
    let resp = client()
        .get(format!("{base}/api/v1/status{query}"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    let json = serde_json::from_str(&text).unwrap();
    (text, json)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_of_the_real_app() {
    let fake = FakeModel::start().await.unwrap();
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        &format!(
            "model = \"openai:gpt-4o\"\ntimezone = \"Asia/Kolkata\"\n\
             [providers.openai]\napi_key = {SECRET:?}\nbase_url = {:?}\n\
             [memory]\nembedder = \"local\"\nmodel_dir = {:?}\nextract = false\n\
             [mcp.servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n\
             [mcp.servers.broken]\ncommand = \"/nonexistent/mcp\"\n",
            fake.openai_base_url(),
            steward_memory::embed::test_model_dir(),
            everything_js()
        ),
    );
    let env = env_of(&dir, &[("STEWARD_DATA_DIR", dir.to_str().unwrap())]);
    let loaded = load_in(&dir, None, &env).unwrap();
    steward::logging::redact_settings(&loaded.settings);
    let app = steward::app::build(&loaded, steward::app::Overrides::default())
        .await
        .unwrap();

    // A dependency logging the key, caught by a ring of this test's own.
    let ring = RecentErrors::new(app.clock.clone());
    {
        let _guard =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(ring.clone()));
        tracing::error!(target: "some_dependency", "request failed: invalid key {SECRET}");
        tracing::info!("not an error");
    }

    let source = steward::status::AppStatus::new(
        &app,
        steward::app::database_path(&loaded.settings),
        Some(ring),
    );
    let mut cfg = ServerConfig::new(TOKEN, steward::app::owner_id(&loaded.settings).unwrap());
    cfg.status = Some(Arc::new(source));
    cfg.clock = app.clock.clone();
    let router = steward_server::router(
        Arc::new(app.steward.clone()),
        Arc::new(app.steward.clone()),
        cfg,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(steward_server::serve_with(
        listener,
        router,
        ConnLimits::default(),
        async move {
            let _ = stopped.await;
        },
    ));

    let (text, body) = status(&base, "").await;
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["model"], "openai:gpt-4o");
    assert_eq!(body["fallback_model"], Value::Null);
    assert!(body["database"]["bytes"].as_u64().unwrap() > 0, "{body}");
    assert_eq!(body["database"].as_object().unwrap().len(), 1, "bytes only");
    assert_eq!(
        body["embedder"],
        serde_json::json!({"state": "not_loaded", "model": "local:all-MiniLM-L6-v2"})
    );
    assert_eq!(body["usage"]["days"].as_array().unwrap().len(), 30);
    assert_eq!(body["usage"]["total"]["calls"], 0);
    // The error is there, its secret is not, nor any filesystem path.
    let errors = body["recent_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{body}");
    assert_eq!(errors[0]["level"], "ERROR");
    assert_eq!(errors[0]["target"], "some_dependency");
    assert_eq!(
        errors[0]["message"],
        "request failed: invalid key [redacted]"
    );
    assert!(!text.contains(SECRET), "{text}");
    assert!(!text.contains(dir.to_str().unwrap()), "{text}");

    // A turn: one priced model call in the ledger.
    fake.push(Step::Reply(Reply::text("Hello.").with_usage(1000, 100)));
    let inbound = Inbound::new(
        ConversationId::parse("status-test").unwrap(),
        steward::local_user::principal(&loaded.settings).unwrap(),
        Surface::Cli,
        "hi",
    );
    let mut rx = app.steward.submit(inbound);
    let mut last = None;
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .unwrap()
    {
        last = Some(ev);
    }
    assert!(matches!(last, Some(TurnEvent::Final { .. })), "{last:?}");

    // Both MCP servers as they are once the working one has connected.
    let started = Instant::now();
    let (text, body) = loop {
        let (text, body) = status(&base, "?days=2").await;
        let connected = body["mcp"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "everything" && m["state"] == "connected");
        if connected {
            break (text, body);
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "never connected: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mcp = body["mcp"].as_array().unwrap();
    let by_name = |n: &str| mcp.iter().find(|m| m["name"] == n).unwrap();
    assert!(
        by_name("everything")["tools"].as_u64().unwrap() > 0,
        "{body}"
    );
    assert_eq!(by_name("everything")["last_error"], Value::Null);
    let broken = by_name("broken");
    assert_ne!(broken["state"], "connected");
    assert_eq!(broken["tools"], 0);
    assert!(!text.contains(SECRET), "{text}");

    let usage = &body["usage"];
    assert_eq!(usage["timezone"], "Asia/Kolkata");
    assert_eq!(usage["days"].as_array().unwrap().len(), 2);
    // gpt-4o at the built-in $2.50 / $10 per million: 1000 × 2.5 + 100 × 10 = 3500 µ$.
    assert_eq!(
        usage["total"],
        serde_json::json!({"calls": 1, "input_tokens": 1000, "output_tokens": 100,
                           "cost_usd": 0.0035, "unpriced_calls": 0})
    );
    assert_eq!(usage["by_model"][0]["model"], "openai:gpt-4o");
    assert_eq!(usage["days"][1]["calls"], 1, "today, in India: {usage}");

    let _ = stop.send(());
    let _ = server.await;
    app.steward.shutdown(Duration::from_secs(2)).await;
    if let Some(mcp) = &app.mcp {
        mcp.shutdown_and_wait(Duration::from_secs(5)).await;
    }
}
