//! Nothing is routed that the API document lacks. axum cannot list a router's routes, so
//! three checks close the gaps between them:
//! - the source: no routing call (`.route(`, `.nest(`, `.merge(`, `axum::routing`, ...)
//!   anywhere in the crate but `apidoc/mod.rs`, whose `DocumentedRoutes` registers each route
//!   from its annotation (one `.route(`) and `/mcp` with its entry (one `.route_service(`),
//!   and nothing else there (no `.nest(`, `.merge(`, ...);
//! - the methods: on every documented path, every method the document does not give is
//!   refused by the router's 405 fallback;
//! - the paths: every route-like string in the crate's source that the router answers on is
//!   a documented path.

use crate::openapi::{is_fallback, operations, served_document};
use crate::openapi_fixture::{generic_path, start_documented};
use crate::support::{Fake, TOKEN, client};
use reqwest::Method;
use reqwest::header::AUTHORIZATION;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where routing calls may appear: `DocumentedRoutes`, with one `.route(` (every annotated
/// handler) and one `.route_service(` (the `/mcp` mount); it may name `axum::routing`'s types.
const REGISTRATION: &str = "apidoc/mod.rs";

/// The calls the registration makes, each exactly once.
const REGISTRATION_CALLS: [&str; 2] = [".route(", ".route_service("];

/// What the registration may name besides its calls (`axum::routing::MethodRouter`).
const REGISTRATION_NAMES: [&str; 2] = ["routing::", "axum::routing"];

/// Calls that add routes to an axum router (or to utoipa-axum's, which passes them through
/// undocumented).
const ROUTING: [&str; 8] = [
    ".route(",
    ".route_service(",
    ".nest(",
    ".nest_service(",
    ".merge(",
    ".fallback_service(",
    "routing::",
    "axum::routing",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crate's sources, `(path under src/, text without line comments)`.
fn sources() -> Vec<(String, String)> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let code: Vec<&str> = text
                .lines()
                .map(|l| match l.find("//") {
                    // A `//` inside a string (a URL) is kept.
                    Some(i) if !l[..i].contains('"') => &l[..i],
                    _ => l,
                })
                .collect();
            (rel, code.join("\n"))
        })
        .collect()
}

/// Routing calls outside the registration (and any in it but its own), and the counts of
/// `REGISTRATION_CALLS` in it.
fn routing_outside_registration(files: &[(String, String)]) -> (Vec<String>, [usize; 2]) {
    let mut bad = Vec::new();
    let mut counts = [0; 2];
    for (rel, code) in files {
        for call in ROUTING {
            let n = code.matches(call).count();
            let own = REGISTRATION_CALLS.iter().position(|c| *c == call);
            if rel == REGISTRATION
                && let Some(i) = own
            {
                counts[i] = n;
            } else if rel == REGISTRATION && REGISTRATION_NAMES.contains(&call) {
                // Naming `MethodRouter` adds no route.
            } else if n > 0 {
                bad.push(format!("{rel}: {call}"));
            }
        }
    }
    (bad, counts)
}

#[test]
fn routes_are_added_only_from_their_documentation() {
    let files = sources();
    assert!(files.iter().any(|(rel, _)| rel == "lib.rs"));
    let (bad, counts) = routing_outside_registration(&files);
    assert!(
        bad.is_empty(),
        "routing outside {REGISTRATION} (register a route with `#[utoipa::path]` on its handler \
         and `.routes(documented!(handler))` in lib.rs `documented_routes`):\n{}",
        bad.join("\n")
    );
    assert_eq!(
        counts,
        [1, 1],
        "{REGISTRATION} routes in exactly one place ({REGISTRATION_CALLS:?}): every annotated \
         handler through `DocumentedRoutes::routes`, and /mcp"
    );
}

#[test]
fn the_source_check_catches_an_undocumented_route() {
    let planted = [
        "let r = Router::new().route(\"/api/v1/secret\", get(h));",
        "use axum::routing::get;",
        "use axum::{routing::post};",
        "let r = r.merge(other);",
        "let r = r.nest_service(\"/assets\", dir);",
    ];
    for line in planted {
        let files = vec![("lib.rs".to_owned(), line.to_owned())];
        let (bad, _) = routing_outside_registration(&files);
        assert!(!bad.is_empty(), "missed: {line}");
    }
    // The registration itself may not nest or merge routers either, and a second `.route(`
    // there shows in the count.
    for line in ["let r = r.merge(other);", "let r = r.nest(\"/x\", other);"] {
        let files = vec![(REGISTRATION.to_owned(), line.to_owned())];
        assert!(
            !routing_outside_registration(&files).0.is_empty(),
            "missed: {line}"
        );
    }
    let twice = vec![(
        REGISTRATION.to_owned(),
        "r.route(&p, h); r.route(\"/x\", get(g)); let m: axum::routing::MethodRouter;".to_owned(),
    )];
    let (bad, counts) = routing_outside_registration(&twice);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(counts, [2, 0]);
    // A comment that mentions a routing call is not one (sources() drops line comments).
    let commented = vec![("lib.rs".to_owned(), "let x = 1;".to_owned())];
    assert!(routing_outside_registration(&commented).0.is_empty());
}

/// The string literals of the crate that look like routes of the guarded prefixes or
/// `/health`, with any `{param}` as the document writes it.
fn route_literals(files: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (_, code) in files {
        for piece in code.split('"').skip(1).step_by(2) {
            let route_like = ["/api/", "/v1/", "/health", "/mcp"]
                .iter()
                .any(|p| piece.starts_with(p))
                && !piece.contains(' ')
                && piece.len() > 1;
            if route_like && !found.contains(&piece.to_owned()) {
                found.push(piece.to_owned());
            }
        }
    }
    found
}

/// Does a concrete path fit the template (each `{param}` one segment)?
fn fits(template: &str, path: &str) -> bool {
    let (t, p): (Vec<&str>, Vec<&str>) = (template.split('/').collect(), path.split('/').collect());
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| (t.starts_with('{') && t.ends_with('}')) || t == p)
}

async fn answer(server: &crate::support::Server, method: &Method, path: &str) -> (u16, Value) {
    let resp = client()
        .request(method.clone(), server.url(path))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_router_refuses_every_method_the_document_does_not_give() {
    let documented = start_documented(Fake::standard()).await;
    let doc = served_document(&documented.server).await;
    let ops = operations(&doc);
    let mut checked = 0;
    for template in doc["paths"].as_object().unwrap().keys() {
        if template == "/mcp" {
            // Opaque: rmcp's router answers its own methods (a stand-in here).
            continue;
        }
        let path = generic_path(template);
        for method in [
            Method::GET,
            Method::PUT,
            Method::POST,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
            Method::TRACE,
        ] {
            let m = method.as_str().to_lowercase();
            if ops.contains(&(m, template.clone())) {
                continue;
            }
            let (status, body) = answer(&documented.server, &method, &path).await;
            assert!(
                status == 405 && is_fallback(status, &body),
                "{method} {path} is not in the document, yet the router answered {status}: {body}"
            );
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked}");
}

#[tokio::test]
async fn every_route_the_source_names_is_documented_where_the_router_answers() {
    let documented = start_documented(Fake::standard()).await;
    let doc = served_document(&documented.server).await;
    let templates: Vec<&String> = doc["paths"].as_object().unwrap().keys().collect();
    let literals = route_literals(&sources());
    assert!(
        literals.iter().any(|l| l == "/api/v1/messages"),
        "{literals:?}"
    );
    for literal in &literals {
        let path = generic_path(literal);
        for method in [
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ] {
            let (status, body) = answer(&documented.server, &method, &path).await;
            if is_fallback(status, &body) || status == 401 {
                continue;
            }
            assert!(
                templates.iter().any(|t| fits(t, &path)),
                "the router answers {method} {path} ({status}), which the document lacks"
            );
        }
    }
}
