//! The API document (`GET /api/v1/openapi.json`) against the real router: it is served as
//! generated, behind auth; it is valid OpenAPI 3.1 (by `openapi-spec-validator`, a real
//! validator); every documented operation is answered by the router (never its 404/405
//! fallbacks); and every answer the walk got — successes, refusals, 401s — has a status the
//! document lists for it and a body valid against the schema it gives
//! (`openapi_check.py`, with `openapi-schema-validator`). `openapi_routes.rs` checks the
//! other direction: nothing is routed that the document lacks.

use crate::openapi_fixture::{Documented, samples, start_documented};
use crate::support::{Fake, Server, TOKEN, client};
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use steward_protocol::FailureKind;

pub const METHODS: [&str; 5] = ["get", "put", "post", "patch", "delete"];

/// Every (method, path template) the document lists, in document order.
pub fn operations(doc: &Value) -> Vec<(String, String)> {
    let mut ops = Vec::new();
    for (template, item) in doc["paths"].as_object().unwrap() {
        for method in METHODS {
            if item.get(method).is_some() {
                ops.push((method.to_owned(), template.clone()));
            }
        }
    }
    ops
}

/// The document the server serves, fetched with the token.
pub async fn served_document(server: &Server) -> Value {
    let resp = server.get("/api/v1/openapi.json").await;
    assert_eq!(resp.status(), 200);
    let ct = resp.headers()[CONTENT_TYPE].to_str().unwrap().to_owned();
    assert_eq!(ct, "application/json");
    serde_json::from_str(&resp.text().await.unwrap()).unwrap()
}

/// The 404 and 405 the router gives when no route matched: what "not routed" looks like.
pub fn is_fallback(status: u16, body: &Value) -> bool {
    let kind = &body["error"]["kind"];
    (status == 404 && body["error"]["message"] == "no such route")
        || (status == 405 && kind == "method_not_allowed")
}

/// One answer the walk got, for `openapi_check.py`.
struct Exchange {
    method: String,
    template: String,
    path: String,
    status: u16,
    content_type: Option<String>,
    /// The JSON body; None when empty or not JSON (an SSE stream).
    body: Option<Value>,
    raw_len: usize,
}

impl Exchange {
    fn to_json(&self) -> Value {
        json!({
            "method": self.method,
            "template": self.template,
            "path": self.path,
            "status": self.status,
            "content_type": self.content_type,
            "body": self.body,
            "raw_len": self.raw_len,
        })
    }
}

async fn exchange(
    method: &str,
    template: &str,
    path: &str,
    req: reqwest::RequestBuilder,
) -> Exchange {
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get(CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned());
    let text = resp.text().await.unwrap();
    let is_json = content_type
        .as_deref()
        .is_some_and(|c| c.starts_with("application/json"));
    let body = if is_json {
        Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: not JSON ({e})")))
    } else {
        None
    };
    Exchange {
        method: method.to_owned(),
        template: template.to_owned(),
        path: path.to_owned(),
        status,
        content_type,
        body,
        raw_len: text.len(),
    }
}

fn request(server: &Server, method: &str, path: &str) -> reqwest::RequestBuilder {
    let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
    client().request(method, server.url(path))
}

fn needs_auth(template: &str) -> bool {
    ["/api/", "/v1/", "/mcp"]
        .iter()
        .any(|p| template.starts_with(p))
}

/// Send every documented operation's samples, then each one unauthenticated, then each body
/// malformed and mistyped; every answer recorded.
async fn walk(doc: &Value, documented: &Documented) -> Vec<Exchange> {
    let server = &documented.server;
    let mut seen = Vec::new();
    for (method, template) in operations(doc) {
        let op = &doc["paths"][&template][&method];
        for sample in samples(&method, &template, &documented.seeded) {
            let mut req = request(server, &method, &sample.path)
                .header(AUTHORIZATION, format!("Bearer {TOKEN}"));
            for (name, value) in &sample.headers {
                req = req.header(*name, *value);
            }
            if let Some(body) = &sample.body {
                req = req
                    .header(CONTENT_TYPE, "application/json")
                    .body(body.to_string());
            }
            let ex = exchange(&method, &template, &sample.path, req).await;
            let body = ex.body.clone().unwrap_or(Value::Null);
            assert!(
                !is_fallback(ex.status, &body),
                "{method} {} is documented but the router has no such route: {body}",
                sample.path
            );
            if let Some(want) = sample.want {
                assert_eq!(ex.status, want, "{method} {}: {body}", sample.path);
            }
            seen.push(ex);
        }
        let path = &samples(&method, &template, &documented.seeded)[0].path;
        // Without credentials: 401 on every guarded path, before anything else.
        let ex = exchange(&method, &template, path, request(server, &method, path)).await;
        if needs_auth(&template) {
            assert_eq!(ex.status, 401, "{method} {path} without a token");
            seen.push(ex);
        } else {
            assert_ne!(ex.status, 401, "{method} {path} needs no token");
        }
        if op.get("requestBody").is_some() {
            for (content_type, body) in [("application/json", "{\"half"), ("text/plain", "{}")] {
                let req = request(server, &method, path)
                    .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
                    .header(CONTENT_TYPE, content_type)
                    .body(body);
                let ex = exchange(&method, &template, path, req).await;
                assert!(
                    (400..500).contains(&ex.status),
                    "{method} {path} took a {content_type} body {body:?}: {}",
                    ex.status
                );
                seen.push(ex);
            }
        }
    }
    seen
}

/// The Python of the venv `scripts/py-test-clients.sh` makes (it holds the validators); a
/// clear failure, never a skip, when it is missing.
fn python() -> PathBuf {
    let dir = std::env::var_os("STEWARD_TEST_PY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/py-clients")
        });
    let python = dir.join("bin/python");
    let installed = std::fs::read_to_string(dir.join(".installed")).unwrap_or_default();
    assert!(
        python.is_file() && installed.contains("openapi-spec-validator=="),
        "the Python test clients (with the OpenAPI validators) are not installed in {} — run \
         scripts/py-test-clients.sh (scripts/test does)",
        dir.display()
    );
    python
}

/// Run `openapi_check.py` on `doc` and `exchanges`; its report, and whether it passed.
fn check(doc: &Value, exchanges: &[Value]) -> (bool, String) {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "steward-openapi-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let doc_path = dir.join("openapi.json");
    let ex_path = dir.join("exchanges.json");
    std::fs::write(&doc_path, doc.to_string()).unwrap();
    std::fs::write(&ex_path, Value::Array(exchanges.to_vec()).to_string()).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/server/openapi_check.py");
    let out = Command::new(python())
        .arg(script)
        .arg(&doc_path)
        .arg(&ex_path)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), report)
}

#[tokio::test]
async fn the_served_document_is_the_generated_one_and_needs_a_token() {
    let documented = start_documented(Fake::standard()).await;
    let server = &documented.server;
    let served = served_document(server).await;
    let generated: Value =
        serde_json::from_str(&steward_server::api_document(true).unwrap()).unwrap();
    assert_eq!(served, generated);
    assert_eq!(served["openapi"], "3.1.0");
    // Without `/mcp` mounted, the document does not list it.
    let without: Value =
        serde_json::from_str(&steward_server::api_document(false).unwrap()).unwrap();
    assert!(without["paths"].get("/mcp").is_none());
    assert!(served["paths"].get("/mcp").is_some());

    for auth in [None, Some("Bearer wrong-token"), Some("Basic b3duZXI6eA==")] {
        let mut req = client().get(server.url("/api/v1/openapi.json"));
        if let Some(auth) = auth {
            req = req.header(AUTHORIZATION, auth);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 401, "{auth:?}");
        assert_eq!(resp.headers()["www-authenticate"], "Bearer");
        let body = resp.text().await.unwrap();
        assert!(!body.contains("openapi"), "{body}");
    }
}

#[tokio::test]
async fn every_operation_answers_as_documented() {
    let documented = start_documented(Fake::standard()).await;
    let doc = served_document(&documented.server).await;
    let ops = operations(&doc);
    assert!(ops.len() >= 30, "{ops:?}");
    let mut exchanges: Vec<Value> = walk(&doc, &documented)
        .await
        .iter()
        .map(Exchange::to_json)
        .collect();
    // Failed turns, on both APIs.
    let failing = start_documented(Fake::failing(FailureKind::Model)).await;
    for (template, body) in [
        (
            "/api/v1/messages",
            json!({"conversation_id": "c1", "text": "hi"}),
        ),
        (
            "/v1/chat/completions",
            json!({"messages": [{"role": "user", "content": "hi"}]}),
        ),
    ] {
        let req = request(&failing.server, "post", template)
            .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
            .json(&body);
        let ex = exchange("post", template, template, req).await;
        assert_eq!(ex.status, 502, "{template}");
        exchanges.push(ex.to_json());
    }
    let count = exchanges.len();
    let (ok, report) = tokio::task::spawn_blocking(move || check(&doc, &exchanges))
        .await
        .unwrap();
    assert!(ok, "openapi_check.py:\n{report}");
    assert!(
        report.contains(&format!("{count} answers checked")),
        "{report}"
    );
}

#[tokio::test]
async fn every_guarded_operation_documents_its_security_and_401() {
    let documented = start_documented(Fake::standard()).await;
    let doc = served_document(&documented.server).await;
    let schemes = doc["components"]["securitySchemes"].as_object().unwrap();
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    assert_eq!(schemes["session"]["in"], "cookie");
    assert_eq!(schemes["session"]["name"], "steward_session");
    for (method, template) in operations(&doc) {
        let op = &doc["paths"][&template][&method];
        let security = op.get("security").unwrap_or(&doc["security"]);
        let requirements = security.as_array().unwrap();
        let anonymous = requirements
            .iter()
            .any(|r| r.as_object().unwrap().is_empty());
        let names: Vec<&String> = requirements
            .iter()
            .flat_map(|r| r.as_object().unwrap().keys())
            .collect();
        if needs_auth(&template) {
            assert!(
                !anonymous && !names.is_empty(),
                "{method} {template}: {security}"
            );
            assert!(op["responses"].get("401").is_some(), "{method} {template}");
            // The sign-in cookie is for the Steward API only.
            let cookie = names.iter().any(|n| *n == "session");
            assert_eq!(cookie, template.starts_with("/api/"), "{method} {template}");
        } else {
            assert!(anonymous, "{method} {template}: {security}");
        }
    }
}

#[test]
fn the_checker_refuses_what_the_document_does_not_say() {
    let doc = json!({
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/x": {"get": {"responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/X"}}}}}}}},
        "components": {"schemas": {"X": {"type": "object", "required": ["a"],
            "properties": {"a": {"type": "integer"}}}}},
    });
    let ex = |status: u16, body: Value| {
        json!({"method": "get", "template": "/x", "path": "/x", "status": status,
            "content_type": "application/json", "body": body, "raw_len": 2})
    };
    let (ok, report) = check(&doc, &[ex(200, json!({"a": 1}))]);
    assert!(ok, "{report}");
    for bad in [
        ex(200, json!({"a": "one"})),
        ex(200, json!({})),
        ex(404, json!({"a": 1})),
    ] {
        let (ok, report) = check(&doc, std::slice::from_ref(&bad));
        assert!(!ok, "accepted {bad}: {report}");
    }
    // An invalid document is refused whatever the answers.
    let mut broken = doc.clone();
    broken["paths"]["/x"]["get"]["responses"]["200"] = json!({"content": 5});
    let (ok, _) = check(&broken, &[]);
    assert!(!ok);
}
