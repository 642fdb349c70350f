//! The routes for what Steward keeps beside facts and notes, through the real router over a
//! real in-memory store: read-later items (`/api/v1/read-later`), learnings
//! (`/api/v1/learnings`), reminders (`/api/v1/reminders`). Happy paths, unknown ids, another
//! principal's rows (invisible and unchangeable), hostile text back verbatim as JSON data,
//! malformed, oversized and forged input, and no token; plus a fact edit shown with its
//! provenance.

use crate::support::{Fake, client, json_of, start_with};
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_memory::{Memory, MemoryConfig};
use steward_protocol::{FactSource, Provenance};
use steward_store::{MemoryStore, NewFact, Store};

/// Rows of someone the token does not authenticate.
const BOB: &str = "bob";
const HOSTILE: &str = "<script>window.pwned=1</script><img src=x onerror=alert(1)>";

struct Mem {
    server: crate::support::Server,
    store: Arc<dyn Store>,
}

async fn start_memory() -> Mem {
    let store = steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let memory = Arc::new(Memory::new(store.clone(), None, MemoryConfig::default()));
    let mut cfg = crate::support::config();
    cfg.max_body_bytes = 8192;
    cfg.memory = Some(Arc::new(steward_core::MemoryService::new(memory)));
    Mem {
        server: start_with(Fake::standard(), cfg).await,
        store,
    }
}

impl Mem {
    async fn send(&self, method: Method, path: &str, body: Option<Value>) -> reqwest::Response {
        let body = body.map(|b| b.to_string());
        self.server.send(method, path, body.as_deref()).await
    }

    async fn get_json(&self, path: &str) -> Value {
        let resp = self.server.get(path).await;
        assert_eq!(resp.status(), 200, "{path}");
        json_of(resp).await
    }
}

fn ids(list: &Value) -> Vec<i64> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn read_later_is_listed_marked_read_and_deleted() {
    let m = start_memory().await;
    let tags = vec!["rust".to_owned()];
    let a = m
        .store
        .add_read_later("owner", "https://a.example/?q=<b>", HOSTILE, &tags, 1_000)
        .await
        .unwrap();
    let b = m
        .store
        .add_read_later("owner", "https://b.example", "Sourdough", &[], 2_000)
        .await
        .unwrap();

    let body = m.get_json("/api/v1/read-later").await;
    assert_eq!(ids(&body["items"]), [b.id, a.id], "newest first");
    assert_eq!(
        body["items"][1],
        json!({
            "id": a.id, "url": "https://a.example/?q=<b>", "title": HOSTILE,
            "tags": ["rust"], "created_at_ms": 1_000, "read_at_ms": null,
        }),
        "markup comes back verbatim, as JSON data"
    );
    let rust = m.get_json("/api/v1/read-later?tag=rust").await;
    assert_eq!(ids(&rust["items"]), [a.id]);
    let one = m.get_json("/api/v1/read-later?limit=1").await;
    assert_eq!(ids(&one["items"]), [b.id]);

    let path = format!("/api/v1/read-later/{}", a.id);
    let resp = m
        .send(Method::PATCH, &path, Some(json!({"read": true})))
        .await;
    assert_eq!(resp.status(), 200);
    let item = json_of(resp).await["item"].clone();
    assert!(item["read_at_ms"].as_i64().unwrap() > 0, "{item}");
    let unread = m.get_json("/api/v1/read-later").await;
    assert_eq!(ids(&unread["items"]), [b.id], "read items leave the list");
    let all = m.get_json("/api/v1/read-later?include_read=true").await;
    assert_eq!(ids(&all["items"]), [b.id, a.id]);
    let resp = m
        .send(Method::PATCH, &path, Some(json!({"read": false})))
        .await;
    assert_eq!(json_of(resp).await["item"]["read_at_ms"], json!(null));

    assert_eq!(m.send(Method::DELETE, &path, None).await.status(), 204);
    let resp = m.send(Method::DELETE, &path, None).await;
    assert_eq!(resp.status(), 404);
    assert_eq!(json_of(resp).await["error"]["kind"], "not_found");
    let resp = m
        .send(Method::PATCH, &path, Some(json!({"read": true})))
        .await;
    assert_eq!(resp.status(), 404);
    let left = m.get_json("/api/v1/read-later?include_read=true").await;
    assert_eq!(ids(&left["items"]), [b.id]);
}

#[tokio::test]
async fn learnings_are_listed_most_recurrent_first_and_deleted() {
    let m = start_memory().await;
    let once = m
        .store
        .bump_learning("owner", HOSTILE, 1_000)
        .await
        .unwrap();
    let often = m
        .store
        .bump_learning("owner", "Prefers short answers", 2_000)
        .await
        .unwrap();
    m.store
        .bump_learning("owner", "prefers short answers", 3_000)
        .await
        .unwrap();

    let body = m.get_json("/api/v1/learnings").await;
    assert_eq!(ids(&body["learnings"]), [often.id, once.id]);
    assert_eq!(
        body["learnings"][0],
        json!({"id": often.id, "text": "Prefers short answers", "recurrence": 2, "last_seen_ms": 3_000})
    );
    assert_eq!(body["learnings"][1]["text"], HOSTILE, "verbatim, as data");
    let one = m.get_json("/api/v1/learnings?limit=1").await;
    assert_eq!(ids(&one["learnings"]), [often.id]);

    let path = format!("/api/v1/learnings/{}", once.id);
    assert_eq!(m.send(Method::DELETE, &path, None).await.status(), 204);
    assert_eq!(m.send(Method::DELETE, &path, None).await.status(), 404);
    let left = m.get_json("/api/v1/learnings").await;
    assert_eq!(ids(&left["learnings"]), [often.id]);
    // There is no way to write a learning over HTTP: they come from reflection.
    let resp = m
        .send(
            Method::POST,
            "/api/v1/learnings",
            Some(json!({"text": "planted"})),
        )
        .await;
    assert_eq!(resp.status(), 405);
}

#[tokio::test]
async fn reminders_are_listed_marked_done_reopened_and_deleted() {
    let m = start_memory().await;
    let later = m
        .store
        .add_intention("owner", "Ask about the trip", None, 1_000)
        .await
        .unwrap();
    let soon = m
        .store
        .add_intention("owner", HOSTILE, Some(5_000), 2_000)
        .await
        .unwrap();

    let body = m.get_json("/api/v1/reminders").await;
    assert_eq!(
        ids(&body["reminders"]),
        [soon.id, later.id],
        "soonest due first"
    );
    assert_eq!(
        body["reminders"][0],
        json!({
            "id": soon.id, "text": HOSTILE, "due_at_ms": 5_000, "nudges": 0,
            "done": false, "created_at_ms": 2_000,
        })
    );
    let one = m.get_json("/api/v1/reminders?limit=1").await;
    assert_eq!(ids(&one["reminders"]), [soon.id]);

    let path = format!("/api/v1/reminders/{}", soon.id);
    let resp = m
        .send(Method::PATCH, &path, Some(json!({"done": true})))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(json_of(resp).await["reminder"]["done"], true);
    let open = m.get_json("/api/v1/reminders").await;
    assert_eq!(
        ids(&open["reminders"]),
        [later.id],
        "done ones leave the list"
    );
    let all = m.get_json("/api/v1/reminders?include_done=true").await;
    assert_eq!(ids(&all["reminders"]), [soon.id, later.id]);
    let resp = m
        .send(Method::PATCH, &path, Some(json!({"done": false})))
        .await;
    assert_eq!(json_of(resp).await["reminder"]["done"], false);

    assert_eq!(m.send(Method::DELETE, &path, None).await.status(), 204);
    assert_eq!(m.send(Method::DELETE, &path, None).await.status(), 404);
    let resp = m
        .send(Method::PATCH, &path, Some(json!({"done": true})))
        .await;
    assert_eq!(resp.status(), 404);
}

#[tokio::test]
async fn another_principals_rows_are_invisible_and_unchangeable() {
    let m = start_memory().await;
    let item = m
        .store
        .add_read_later(BOB, "https://bob.example", "bob's", &[], 1)
        .await
        .unwrap();
    let learning = m.store.bump_learning(BOB, "bob's habit", 1).await.unwrap();
    let intention = m
        .store
        .add_intention(BOB, "bob's errand", None, 1)
        .await
        .unwrap();

    for (path, key) in [
        ("/api/v1/read-later?include_read=true", "items"),
        ("/api/v1/learnings", "learnings"),
        ("/api/v1/reminders?include_done=true", "reminders"),
    ] {
        let body = m.get_json(path).await;
        assert_eq!(body[key], json!([]), "{path}");
    }
    for (method, path, body) in [
        (
            Method::PATCH,
            format!("/api/v1/read-later/{}", item.id),
            Some(json!({"read": true})),
        ),
        (
            Method::DELETE,
            format!("/api/v1/read-later/{}", item.id),
            None,
        ),
        (
            Method::DELETE,
            format!("/api/v1/learnings/{}", learning.id),
            None,
        ),
        (
            Method::PATCH,
            format!("/api/v1/reminders/{}", intention.id),
            Some(json!({"done": true})),
        ),
        (
            Method::DELETE,
            format!("/api/v1/reminders/{}", intention.id),
            None,
        ),
    ] {
        let resp = m.send(method.clone(), &path, body).await;
        assert_eq!(resp.status(), 404, "{method} {path}");
    }
    let items = m.store.list_read_later(BOB, &[], false, 10).await.unwrap();
    assert_eq!(items.len(), 1, "bob's item is unread and still there");
    assert_eq!(m.store.top_learnings(BOB, 10).await.unwrap().len(), 1);
    let open = m.store.list_intentions(BOB, true).await.unwrap();
    assert_eq!(open.len(), 1, "bob's errand is still open");
}

#[tokio::test]
async fn hostile_queries_ids_and_bodies_are_refused() {
    let m = start_memory().await;
    let item = m
        .store
        .add_read_later("owner", "https://a.example", "a", &[], 1)
        .await
        .unwrap();
    let intention = m.store.add_intention("owner", "x", None, 1).await.unwrap();
    for path in [
        "/api/v1/read-later?limit=0",
        "/api/v1/read-later?limit=501",
        "/api/v1/read-later?limit=99999999999999999999",
        "/api/v1/read-later?include_read=yes",
        "/api/v1/read-later?tag=two%20words",
        "/api/v1/read-later?tag=%3Cscript%3E",
        "/api/v1/learnings?limit=501",
        "/api/v1/learnings?limit=-1",
        "/api/v1/reminders?limit=1001",
        "/api/v1/reminders?include_done=1",
    ] {
        let resp = m.server.get(path).await;
        assert_eq!(resp.status(), 400, "{path}");
        assert_eq!(
            json_of(resp).await["error"]["kind"],
            "bad_request",
            "{path}"
        );
    }
    for base in [
        "/api/v1/read-later",
        "/api/v1/learnings",
        "/api/v1/reminders",
    ] {
        for id in [
            "0",
            "-1",
            "abc",
            "1.5",
            "99999999999999999999",
            "1%20OR%201=1",
            "%00",
        ] {
            let path = format!("{base}/{id}");
            let resp = m.send(Method::DELETE, &path, None).await;
            assert_eq!(resp.status(), 400, "{path}");
        }
    }
    let rl = format!("/api/v1/read-later/{}", item.id);
    let rm = format!("/api/v1/reminders/{}", intention.id);
    for (path, field) in [(&rl, "read"), (&rm, "done")] {
        for body in [
            json!({}),
            json!({field: "yes"}),
            json!({field: true, "user": "bob"}),
            json!([true]),
        ] {
            let resp = m.send(Method::PATCH, path, Some(body.clone())).await;
            assert_eq!(resp.status(), 422, "{path} {body}");
        }
        for raw in ["{", "not json"] {
            let resp = m.server.send(Method::PATCH, path, Some(raw)).await;
            assert_eq!(resp.status(), 400, "{path} {raw:?}");
        }
        let resp = client()
            .patch(m.server.url(path))
            .bearer_auth(crate::support::TOKEN)
            .header("content-type", "text/plain")
            .body(format!("{{\"{field}\": true}}"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 415, "{path}");
        let huge = json!({field: true, "pad": "x".repeat(10_000)});
        let resp = m.send(Method::PATCH, path, Some(huge)).await;
        assert_eq!(resp.status(), 413, "{path}");
    }
    // Nothing was changed by any of it.
    let items = m
        .store
        .list_read_later("owner", &[], true, 10)
        .await
        .unwrap();
    assert_eq!(items[0].read_at_ms, None);
    assert_eq!(
        m.store.list_intentions("owner", true).await.unwrap().len(),
        1
    );
}

#[tokio::test]
async fn every_new_memory_route_needs_the_token() {
    let m = start_memory().await;
    let item = m
        .store
        .add_read_later("owner", "https://a.example", "a", &[], 1)
        .await
        .unwrap();
    let learning = m.store.bump_learning("owner", "l", 1).await.unwrap();
    let intention = m.store.add_intention("owner", "i", None, 1).await.unwrap();
    let rl = format!("/api/v1/read-later/{}", item.id);
    let le = format!("/api/v1/learnings/{}", learning.id);
    let rm = format!("/api/v1/reminders/{}", intention.id);
    for (method, path) in [
        (Method::GET, "/api/v1/read-later"),
        (Method::PATCH, rl.as_str()),
        (Method::DELETE, rl.as_str()),
        (Method::GET, "/api/v1/learnings"),
        (Method::DELETE, le.as_str()),
        (Method::GET, "/api/v1/reminders"),
        (Method::PATCH, rm.as_str()),
        (Method::DELETE, rm.as_str()),
    ] {
        let resp = client()
            .request(method.clone(), m.server.url(path))
            .header("content-type", "application/json")
            .body(r#"{"read":true,"done":true}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 401, "{method} {path}");
    }
    assert_eq!(
        m.store
            .list_read_later("owner", &[], true, 10)
            .await
            .unwrap()[0]
            .read_at_ms,
        None
    );
    assert_eq!(m.store.top_learnings("owner", 10).await.unwrap().len(), 1);
    assert_eq!(
        m.store.list_intentions("owner", true).await.unwrap().len(),
        1
    );
}

#[tokio::test]
async fn an_edited_fact_is_listed_as_the_users_word_with_its_provenance() {
    let m = start_memory().await;
    let extracted = NewFact {
        key: "diet".into(),
        value: "vegetarian".into(),
        source: FactSource::Extracted,
        confidence: 0.7,
        expires_at_ms: None,
        provenance: Provenance::Assistant { conversation: None },
    };
    m.store.upsert_fact("owner", &extracted, 1).await.unwrap();
    let before = m.get_json("/api/v1/facts").await;
    assert_eq!(before["facts"][0]["source"], "extracted");
    assert_eq!(
        before["facts"][0]["provenance"],
        json!({"origin": "assistant"})
    );

    let resp = m
        .send(
            Method::PUT,
            "/api/v1/facts/diet",
            Some(json!({"value": "vegan"})),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let after = m.get_json("/api/v1/facts").await;
    let fact = &after["facts"][0];
    assert_eq!(
        (&fact["value"], &fact["source"], &fact["provenance"]),
        (&json!("vegan"), &json!("user"), &json!({"origin": "user"}))
    );
    let found = m.get_json("/api/v1/memory/search?q=vegan&kind=fact").await;
    assert_eq!(
        found["hits"][0]["source"], "user",
        "search shows it the same way"
    );
}
