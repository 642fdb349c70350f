//! Remote embedders against fake OpenAI / Ollama / Gemini servers on 127.0.0.1.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::IntoResponse;
use serde_json::{Value, json};
use steward_memory::embed::{EmbedError, Embedder, RemoteEmbedder, RemoteKind};

#[derive(Debug, Clone)]
struct Seen {
    path: String,
    auth: Option<String>,
    goog_key: Option<String>,
    body: Value,
}

type Respond = dyn Fn(&Value) -> (u16, Value) + Send + Sync;

struct Fake {
    seen: Mutex<Vec<Seen>>,
    respond: Box<Respond>,
}

async fn handle(
    State(fake): State<Arc<Fake>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> impl IntoResponse {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    fake.seen.lock().unwrap().push(Seen {
        path: uri.path().to_string(),
        auth: header("authorization"),
        goog_key: header("x-goog-api-key"),
        body: body.clone(),
    });
    let (status, reply) = (fake.respond)(&body);
    (StatusCode::from_u16(status).unwrap(), axum::Json(reply))
}

/// Starts a server answering every request with `respond(body)`; returns its base URL.
async fn serve(
    respond: impl Fn(&Value) -> (u16, Value) + Send + Sync + 'static,
) -> (String, Arc<Fake>) {
    let fake = Arc::new(Fake {
        seen: Mutex::new(Vec::new()),
        respond: Box::new(respond),
    });
    let app = Router::new().fallback(handle).with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), fake)
}

/// A vector that encodes which input it belongs to: [3n, 4n, 0] for input "tN"
/// (norm 5n, so normalisation is visible).
fn vector_for(text: &str) -> Vec<f32> {
    let n: f32 = text.trim_start_matches('t').parse().unwrap();
    vec![3.0 * (n + 1.0), 4.0 * (n + 1.0), 0.0]
}

/// OpenAI-shaped answer, deliberately returned in reverse order with correct `index`es.
fn openai_reply(body: &Value) -> (u16, Value) {
    let inputs = body["input"].as_array().unwrap();
    let mut data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector_for(t.as_str().unwrap())}))
        .collect();
    data.reverse();
    (
        200,
        json!({"object": "list", "data": data, "model": body["model"]}),
    )
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("t{i}")).collect()
}

fn assert_unit_and_ordered(vs: &[Vec<f32>]) {
    for v in vs {
        assert!(
            (v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6,
            "{v:?}"
        );
    }
}

#[tokio::test]
async fn openai_request_shape_auth_order_and_normalisation() {
    let (base, fake) = serve(openai_reply).await;
    let e = RemoteEmbedder::new(
        RemoteKind::OpenAi,
        format!("{base}/v1/"),
        Some("sk-test-key".into()),
        "text-embedding-3-small".into(),
        3,
    )
    .unwrap();
    assert_eq!(e.model_id(), "openai:text-embedding-3-small");
    let input = vec!["t0".to_string(), "t1".to_string(), "t2".to_string()];
    let vs = e.embed(&input).await.unwrap();
    assert_eq!(vs.len(), 3);
    assert_unit_and_ordered(&vs);

    let seen = fake.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(seen[0].auth.as_deref(), Some("Bearer sk-test-key"));
    assert_eq!(seen[0].body["model"], "text-embedding-3-small");
    assert_eq!(seen[0].body["input"], json!(["t0", "t1", "t2"]));
}

#[tokio::test]
async fn order_is_kept_across_request_batches() {
    // Distinguishable vectors: the i-th reply is one-hot-ish on a per-text axis.
    let (base, fake) = serve(|body| {
        let data: Vec<Value> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let n: f32 = t.as_str().unwrap().trim_start_matches('t').parse().unwrap();
                json!({"index": i, "embedding": [n, 1.0]})
            })
            .collect();
        (200, json!({"data": data}))
    })
    .await;
    let e = RemoteEmbedder::new(
        RemoteKind::Ollama,
        format!("{base}/v1"),
        None,
        "nomic".into(),
        2,
    )
    .unwrap();
    let input = texts(200);
    let vs = e.embed(&input).await.unwrap();
    assert_eq!(vs.len(), 200);
    for (i, v) in vs.iter().enumerate() {
        let n = i as f32;
        let norm = (n * n + 1.0).sqrt();
        assert!(
            (v[0] - n / norm).abs() < 1e-5,
            "vector {i} out of place: {v:?}"
        );
    }
    let seen = fake.seen.lock().unwrap();
    assert!(seen.len() >= 3, "200 texts should need several requests");
    let sent: usize = seen
        .iter()
        .map(|s| s.body["input"].as_array().unwrap().len())
        .sum();
    assert_eq!(sent, 200);
}

#[tokio::test]
async fn ollama_needs_no_key_and_sends_none() {
    let (base, fake) = serve(openai_reply).await;
    let e = RemoteEmbedder::new(
        RemoteKind::Ollama,
        format!("{base}/v1"),
        None,
        "all-minilm".into(),
        3,
    )
    .unwrap();
    assert_eq!(e.model_id(), "ollama:all-minilm");
    let vs = e.embed(&["t4".to_string()]).await.unwrap();
    assert_unit_and_ordered(&vs);
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(seen[0].auth, None);
}

#[tokio::test]
async fn gemini_request_shape_key_header_and_order() {
    let (base, fake) = serve(|body| {
        let embeddings: Vec<Value> = body["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| json!({"values": vector_for(r["content"]["parts"][0]["text"].as_str().unwrap())}))
            .collect();
        (200, json!({"embeddings": embeddings}))
    })
    .await;
    let e = RemoteEmbedder::new(
        RemoteKind::Gemini,
        base.clone(),
        Some("AIza-test-key".into()),
        "text-embedding-004".into(),
        3,
    )
    .unwrap();
    let vs = e
        .embed(&["t0".to_string(), "t7".to_string()])
        .await
        .unwrap();
    assert_unit_and_ordered(&vs);
    let seen = fake.seen.lock().unwrap();
    assert_eq!(
        seen[0].path,
        "/v1beta/models/text-embedding-004:batchEmbedContents"
    );
    assert_eq!(seen[0].goog_key.as_deref(), Some("AIza-test-key"));
    assert_eq!(seen[0].auth, None, "the key goes in x-goog-api-key only");
    assert_eq!(
        seen[0].body,
        json!({"requests": [
            {"model": "models/text-embedding-004", "content": {"parts": [{"text": "t0"}]}},
            {"model": "models/text-embedding-004", "content": {"parts": [{"text": "t7"}]}},
        ]})
    );
}

#[tokio::test]
async fn wrong_dimensions_are_an_error() {
    let (base, _fake) = serve(openai_reply).await;
    let e =
        RemoteEmbedder::new(RemoteKind::OpenAi, base, Some("k".into()), "m".into(), 1536).unwrap();
    match e.embed(&["t0".to_string()]).await {
        Err(EmbedError::Decode(msg)) => assert!(msg.contains("1536") && msg.contains('3'), "{msg}"),
        other => panic!("expected a dims error, got {other:?}"),
    }
}

#[tokio::test]
async fn wrong_count_is_an_error() {
    let (base, _fake) = serve(|_| {
        (
            200,
            json!({"data": [{"index": 0, "embedding": [1.0, 0.0, 0.0]}]}),
        )
    })
    .await;
    let e = RemoteEmbedder::new(RemoteKind::OpenAi, base, Some("k".into()), "m".into(), 3).unwrap();
    let r = e.embed(&["t0".to_string(), "t1".to_string()]).await;
    assert!(matches!(r, Err(EmbedError::Decode(_))), "{r:?}");
}

#[tokio::test]
async fn unauthorised_error_never_contains_the_key() {
    let key = "sk-live-SECRET-0123456789";
    // A server that echoes the key back, as OpenAI's own 401 message does.
    let (base, _fake) = serve(move |_| {
        (
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {key}"), "type": "invalid_request_error"}}),
        )
    })
    .await;
    let e = RemoteEmbedder::new(RemoteKind::OpenAi, base, Some(key.into()), "m".into(), 3).unwrap();
    let err = e.embed(&["t0".to_string()]).await.unwrap_err();
    match &err {
        EmbedError::Http { status, message } => {
            assert_eq!(*status, 401);
            assert!(message.contains("Incorrect API key"), "{message}");
        }
        other => panic!("expected HTTP 401, got {other:?}"),
    }
    for shown in [err.to_string(), format!("{err:?}")] {
        assert!(!shown.contains("SECRET"), "key leaked: {shown}");
    }
}

#[tokio::test]
async fn unreachable_server_is_a_connect_error() {
    // Bind then drop, so the port is (almost certainly) closed.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let e = RemoteEmbedder::new(
        RemoteKind::OpenAi,
        format!("http://127.0.0.1:{port}/v1"),
        Some("sk-unreachable-key".into()),
        "m".into(),
        3,
    )
    .unwrap();
    let err = e.embed(&["t0".to_string()]).await.unwrap_err();
    assert!(matches!(err, EmbedError::Connect(_)), "{err:?}");
    assert!(!format!("{err:?}").contains("sk-unreachable-key"));
}

#[tokio::test]
async fn no_texts_means_no_request() {
    let (base, fake) = serve(openai_reply).await;
    let e = RemoteEmbedder::new(RemoteKind::OpenAi, base, Some("k".into()), "m".into(), 3).unwrap();
    assert!(e.embed(&[]).await.unwrap().is_empty());
    assert!(fake.seen.lock().unwrap().is_empty());
}
