//! The memory routes through the real router, over a real in-memory SQLite store and a
//! `Memory` without an embedder: facts (a user edit makes source=user), notes, search, and
//! hostile input (no token, malformed JSON, oversized bodies, bad keys and ids), plus 503
//! when the binary runs without a memory.

use crate::support::{Fake, client, json_of, start, start_with};
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_memory::{Memory, MemoryConfig};
use steward_protocol::{FactSource, Provenance};
use steward_store::{MemoryStore, NewFact, NewNote};

struct Mem {
    server: crate::support::Server,
    store: Arc<dyn steward_store::Store>,
}

async fn start_memory() -> Mem {
    start_memory_with(8192).await
}

async fn start_memory_with(max_body_bytes: usize) -> Mem {
    let store = steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let memory = Arc::new(Memory::new(store.clone(), None, MemoryConfig::default()));
    let mut cfg = crate::support::config();
    cfg.max_body_bytes = max_body_bytes;
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
}

#[tokio::test]
async fn put_makes_a_user_fact_that_extraction_cannot_overwrite() {
    let m = start_memory().await;
    let extracted = NewFact {
        key: "home.city".into(),
        value: "Lyon".into(),
        source: FactSource::Extracted,
        confidence: 0.8,
        expires_at_ms: None,
        provenance: Provenance::Assistant { conversation: None },
    };
    m.store
        .upsert_fact("owner", &extracted, 1_000)
        .await
        .unwrap();

    let resp = m
        .send(
            Method::PUT,
            "/api/v1/facts/home.city",
            Some(json!({"value": " Paris "})),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let fact = &json_of(resp).await["fact"];
    assert_eq!(fact["value"], "Paris");
    assert_eq!(fact["source"], "user");

    // The user's word now stands against a later extraction.
    let again = NewFact {
        value: "Marseille".into(),
        ..extracted
    };
    m.store.upsert_fact("owner", &again, 2_000).await.unwrap();
    let listed = json_of(m.server.get("/api/v1/facts").await).await;
    let facts = listed["facts"].as_array().unwrap();
    assert_eq!(facts.len(), 1);
    assert_eq!(facts[0]["value"], "Paris");
    assert_eq!(facts[0]["source"], "user");
}

#[tokio::test]
async fn facts_list_in_key_order_with_limit_and_delete() {
    let m = start_memory().await;
    for key in ["b.two", "a.one", "c.three"] {
        let resp = m
            .send(
                Method::PUT,
                &format!("/api/v1/facts/{key}"),
                Some(json!({"value": key})),
            )
            .await;
        assert_eq!(resp.status(), 200);
    }
    let listed = json_of(m.server.get("/api/v1/facts?limit=2").await).await;
    let keys: Vec<&str> = listed["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["a.one", "b.two"]);
    let rest = json_of(m.server.get("/api/v1/facts?limit=2&offset=2").await).await;
    assert_eq!(rest["facts"][0]["key"], "c.three");

    let resp = m.send(Method::DELETE, "/api/v1/facts/b.two", None).await;
    assert_eq!(resp.status(), 204);
    assert!(m.store.get_fact("owner", "b.two").await.unwrap().is_none());
    let resp = m.send(Method::DELETE, "/api/v1/facts/b.two", None).await;
    assert_eq!(resp.status(), 404);
    assert_eq!(json_of(resp).await["error"]["kind"], "not_found");
}

#[tokio::test]
async fn notes_are_created_listed_by_tag_edited_and_deleted() {
    let m = start_memory().await;
    let resp = m
        .send(
            Method::POST,
            "/api/v1/notes",
            Some(json!({"title": "Boiler", "body": "service due in March", "tags": ["House"]})),
        )
        .await;
    assert_eq!(resp.status(), 201);
    let note = json_of(resp).await["note"].clone();
    let id = note["id"].as_i64().unwrap();
    assert_eq!(note["tags"], json!(["house"]));
    assert_eq!(note["provenance"]["origin"], "user");
    let resp = m
        .send(
            Method::POST,
            "/api/v1/notes",
            Some(json!({"title": "Books", "body": "read Dune"})),
        )
        .await;
    assert_eq!(resp.status(), 201);

    let all = json_of(m.server.get("/api/v1/notes").await).await;
    assert_eq!(all["notes"].as_array().unwrap().len(), 2);
    let house = json_of(m.server.get("/api/v1/notes?tag=house").await).await;
    let house = house["notes"].as_array().unwrap();
    assert_eq!(house.len(), 1);
    assert_eq!(house[0]["id"], id);

    let path = format!("/api/v1/notes/{id}");
    let resp = m
        .send(
            Method::PATCH,
            &path,
            Some(json!({"body": "service done in March"})),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let edited = json_of(resp).await["note"].clone();
    assert_eq!(edited["body"], "service done in March");
    assert_eq!(edited["title"], "Boiler", "untouched fields stay");

    let resp = m.send(Method::PATCH, &path, Some(json!({}))).await;
    assert_eq!(resp.status(), 400, "an empty patch changes nothing");

    assert_eq!(m.send(Method::DELETE, &path, None).await.status(), 204);
    assert_eq!(m.send(Method::DELETE, &path, None).await.status(), 404);
    let resp = m
        .send(Method::PATCH, &path, Some(json!({"title": "gone"})))
        .await;
    assert_eq!(resp.status(), 404);
}

#[tokio::test]
async fn search_returns_hits_with_score_source_and_provenance() {
    let m = start_memory().await;
    m.send(
        Method::PUT,
        "/api/v1/facts/pet.name",
        Some(json!({"value": "Biscuit the beagle"})),
    )
    .await;
    m.send(
        Method::POST,
        "/api/v1/notes",
        Some(json!({"title": "Vet", "body": "beagle vaccination in June"})),
    )
    .await;
    let body = json_of(m.server.get("/api/v1/memory/search?q=beagle").await).await;
    let hits = body["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{body}");
    for hit in hits {
        assert!(hit["score"].as_f64().unwrap() > 0.0, "{hit}");
        assert_eq!(hit["provenance"]["origin"], "user");
        // No embedder here: found by words, so no similarity.
        assert_eq!(hit["match"], "words", "{hit}");
        assert!(hit["similarity"].is_null(), "{hit}");
    }
    let fact = hits.iter().find(|h| h["kind"] == "fact").unwrap();
    assert_eq!(fact["source"], "user");
    assert_eq!(fact["title"], "pet.name");

    let notes = json_of(
        m.server
            .get("/api/v1/memory/search?q=beagle&kind=note")
            .await,
    )
    .await;
    let notes = notes["hits"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["kind"], "note");
    let one = json_of(m.server.get("/api/v1/memory/search?q=beagle&limit=1").await).await;
    assert_eq!(one["hits"].as_array().unwrap().len(), 1);

    for bad in [
        "/api/v1/memory/search",
        "/api/v1/memory/search?q=%20",
        "/api/v1/memory/search?q=x&kind=notes",
        "/api/v1/memory/search?q=x&limit=0",
        "/api/v1/memory/search?q=x&limit=1000",
    ] {
        assert_eq!(m.server.get(bad).await.status(), 400, "{bad}");
    }
    let long = format!("/api/v1/memory/search?q={}", "a".repeat(1001));
    assert_eq!(m.server.get(&long).await.status(), 413);
}

#[tokio::test]
async fn every_memory_route_needs_the_token() {
    let m = start_memory().await;
    for (method, path) in [
        (Method::GET, "/api/v1/facts"),
        (Method::PUT, "/api/v1/facts/a"),
        (Method::DELETE, "/api/v1/facts/a"),
        (Method::GET, "/api/v1/notes"),
        (Method::POST, "/api/v1/notes"),
        (Method::PATCH, "/api/v1/notes/1"),
        (Method::DELETE, "/api/v1/notes/1"),
        (Method::GET, "/api/v1/memory/search?q=x"),
        (Method::POST, "/api/v1/facts/a/confirm"),
        (Method::POST, "/api/v1/notes/1/confirm"),
    ] {
        let resp = client()
            .request(method.clone(), m.server.url(path))
            .header("content-type", "application/json")
            .body(r#"{"value":"planted","title":"t","body":"b"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 401, "{method} {path}");
    }
    assert!(m.store.list_facts("owner", 10, 0).await.unwrap().is_empty());
}

#[tokio::test]
async fn hostile_input_is_refused_before_the_memory() {
    let m = start_memory().await;
    for raw in ["{\"value\": ", "not json", ""] {
        let resp = m
            .server
            .send(Method::PUT, "/api/v1/facts/a.b", Some(raw))
            .await;
        assert_eq!(resp.status(), 400, "{raw:?}");
        assert_eq!(json_of(resp).await["error"]["kind"], "bad_request");
    }
    for body in [
        json!({"value": 5}),
        json!({"value": "x", "source": "user"}),
        json!([]),
    ] {
        let resp = m
            .send(Method::PUT, "/api/v1/facts/a.b", Some(body.clone()))
            .await;
        assert_eq!(resp.status(), 422, "{body}");
    }
    let resp = m
        .send(
            Method::PUT,
            "/api/v1/facts/a.b",
            Some(json!({"value": "  "})),
        )
        .await;
    assert_eq!(resp.status(), 400);
    let resp = m
        .send(
            Method::PUT,
            "/api/v1/facts/a.b",
            Some(json!({"value": "v".repeat(4097)})),
        )
        .await;
    assert_eq!(resp.status(), 413, "over the value cap");
    for key in ["Upper", "a%20b", "a%2Fb", "..%2F..", &"k".repeat(65), "%00"] {
        let resp = m
            .send(
                Method::PUT,
                &format!("/api/v1/facts/{key}"),
                Some(json!({"value": "v"})),
            )
            .await;
        assert_eq!(resp.status(), 400, "{key}");
        let msg = json_of(resp).await["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.starts_with("invalid fact key"), "{msg}");
    }
    for id in ["0", "-1", "abc", "1.5", "99999999999999999999"] {
        let resp = m
            .send(Method::DELETE, &format!("/api/v1/notes/{id}"), None)
            .await;
        assert_eq!(resp.status(), 400, "{id}");
    }
    let resp = m
        .send(
            Method::POST,
            "/api/v1/notes",
            Some(json!({"title": "t", "body": "b", "tags": ["two words"]})),
        )
        .await;
    assert_eq!(resp.status(), 400);
    let resp = m
        .send(
            Method::POST,
            "/api/v1/notes",
            Some(json!({"title": "t", "body": "b\u{0}"})),
        )
        .await;
    assert_eq!(resp.status(), 422, "NUL is refused by the store's checks");
    let resp = m
        .send(
            Method::POST,
            "/api/v1/notes",
            Some(json!({"title": "t", "body": "x".repeat(9000)})),
        )
        .await;
    assert_eq!(resp.status(), 413, "over the body limit");
    assert_eq!(json_of(resp).await["error"]["kind"], "payload_too_large");
    assert!(m.store.list_facts("owner", 10, 0).await.unwrap().is_empty());
    let notes = json_of(m.server.get("/api/v1/notes").await).await;
    assert!(notes["notes"].as_array().unwrap().is_empty());
    for bad in [
        "/api/v1/facts?limit=0",
        "/api/v1/facts?limit=x",
        "/api/v1/notes?tag=a%20b",
    ] {
        assert_eq!(m.server.get(bad).await.status(), 400, "{bad}");
    }
}

#[tokio::test]
async fn another_users_note_is_not_found() {
    let m = start_memory().await;
    let theirs = NewNote {
        title: "theirs".into(),
        body: "not the owner's".into(),
        tags: vec![],
        provenance: Provenance::User { conversation: None },
    };
    let note = m
        .store
        .insert_note("someone", &theirs, 1_000)
        .await
        .unwrap();
    let path = format!("/api/v1/notes/{}", note.id);
    let resp = m
        .send(Method::PATCH, &path, Some(json!({"title": "mine now"})))
        .await;
    assert_eq!(resp.status(), 404);
    assert_eq!(m.send(Method::DELETE, &path, None).await.status(), 404);
    let kept = m.store.get_note(note.id).await.unwrap().unwrap();
    assert_eq!(kept.title, "theirs");
    let listed = json_of(m.server.get("/api/v1/notes").await).await;
    assert!(listed["notes"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn without_a_memory_the_routes_answer_503() {
    let server = start(Fake::standard()).await;
    for (method, path) in [
        (Method::GET, "/api/v1/facts"),
        (Method::DELETE, "/api/v1/facts/a"),
        (Method::GET, "/api/v1/notes"),
        (Method::GET, "/api/v1/memory/search?q=x"),
    ] {
        let resp = server.send(method.clone(), path, None).await;
        assert_eq!(resp.status(), 503, "{method} {path}");
        let err = json_of(resp).await;
        assert_eq!(err["error"]["message"], "memory is not enabled");
    }
}

#[tokio::test]
async fn confirming_tainted_memory_takes_only_real_unconfirmed_rows() {
    let m = start_memory().await;
    let tainted = Provenance::Tainted {
        conversation: Some(steward_protocol::ConversationId::parse("c1").unwrap()),
        sources: vec!["fetch_url".into()],
    };
    let fact = NewFact {
        key: "dentist".into(),
        value: "Dr Alvarez".into(),
        source: FactSource::Extracted,
        confidence: 0.8,
        expires_at_ms: None,
        provenance: tainted.clone(),
    };
    m.store.upsert_fact("owner", &fact, 1_000).await.unwrap();
    let note = m
        .store
        .insert_note(
            "owner",
            &NewNote {
                title: "t".into(),
                body: "b".into(),
                tags: vec![],
                provenance: tainted,
            },
            1_000,
        )
        .await
        .unwrap();
    for (path, want) in [
        ("/api/v1/facts/Dentist/confirm".to_owned(), 400),
        ("/api/v1/facts/nobody/confirm".to_owned(), 404),
        ("/api/v1/notes/0/confirm".to_owned(), 400),
        ("/api/v1/notes/abc/confirm".to_owned(), 400),
        (format!("/api/v1/notes/{}/confirm", note.id + 1), 404),
        ("/api/v1/facts/dentist/confirm".to_owned(), 200),
        ("/api/v1/facts/dentist/confirm".to_owned(), 404),
        (format!("/api/v1/notes/{}/confirm", note.id), 200),
        (format!("/api/v1/notes/{}/confirm", note.id), 404),
    ] {
        let resp = m.send(Method::POST, &path, None).await;
        assert_eq!(resp.status(), want, "{path}");
    }
    let f = m.store.get_fact("owner", "dentist").await.unwrap().unwrap();
    assert!(
        matches!(f.provenance, Provenance::Assistant { .. }),
        "{:?}",
        f.provenance
    );
    let n = m.store.get_note(note.id).await.unwrap().unwrap();
    assert!(matches!(n.provenance, Provenance::Assistant { .. }));
}
