//! The web app's embedded files over HTTP: `/`, `/app/{file}` and `/app/{dir}/{file}` with their Content-Type,
//! `Cache-Control: no-cache` and an ETag that turns a revalidation into a 304; brotli and gzip
//! when asked, never on an SSE stream; a 404 for anything not embedded (traversal, encoded
//! dots, the source tree's other files) and no credential needed; the security headers on all
//! of it; the whole app under 150 KB compressed; and the sources themselves free of what the
//! policy refuses (inline script, inline style, handlers) and of markup written from strings
//! outside the one sanitising module.

use crate::support::{Fake, TOKEN, client, start};
use reqwest::header::{
    ACCEPT, ACCEPT_ENCODING, AUTHORIZATION, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG,
    IF_NONE_MATCH,
};
use std::path::{Path, PathBuf};
use steward_server::CONTENT_SECURITY_POLICY_VALUE;

fn web_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web")
}

/// Every file under `web/`, as paths relative to it.
fn web_files() -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else {
                let rel = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(&web_dir(), &web_dir(), &mut out);
    out.sort();
    out
}

fn url_of(rel: &str) -> String {
    if rel == "index.html" {
        "/".to_owned()
    } else if rel == "miniapp.html" {
        "/miniapp/".to_owned()
    } else {
        format!("/{rel}")
    }
}

#[tokio::test]
async fn every_file_is_served_with_its_type_no_cache_and_an_etag_without_a_token() {
    let server = start(Fake::standard()).await;
    let c = client();
    let files = web_files();
    assert!(files.iter().any(|f| f == "app/main.js"), "{files:?}");
    for rel in &files {
        let resp = c.get(server.url(&url_of(rel))).send().await.unwrap();
        assert_eq!(resp.status(), 200, "{rel}");
        let h = resp.headers().clone();
        let want = match rel.rsplit_once('.').map(|(_, e)| e) {
            Some("html") => "text/html; charset=utf-8",
            Some("js" | "mjs") => "text/javascript; charset=utf-8",
            Some("css") => "text/css; charset=utf-8",
            Some("svg") => "image/svg+xml",
            Some("txt" | "md") => "text/plain; charset=utf-8",
            other => panic!("{rel}: a file kind the app should not ship ({other:?})"),
        };
        assert_eq!(h[CONTENT_TYPE], want, "{rel}");
        assert_eq!(h[CACHE_CONTROL], "no-cache", "{rel}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{rel}");
        // The Mini App's page has its own policy (tests/server/telegram.rs); every file, its
        // modules included, the web app's.
        let policy = if rel == "miniapp.html" {
            steward_server::MINI_APP_CONTENT_SECURITY_POLICY
        } else {
            CONTENT_SECURITY_POLICY_VALUE
        };
        assert_eq!(h["content-security-policy"], policy, "{rel}");
        let etag = h[ETAG].to_str().unwrap().to_owned();
        assert!(
            etag.starts_with("W/\"") && etag.len() == 36,
            "{rel}: {etag}"
        );
        // The bytes are the file's own: embedded, not read from anywhere else.
        let body = resp.bytes().await.unwrap();
        assert_eq!(
            body.as_ref(),
            std::fs::read(web_dir().join(rel)).unwrap(),
            "{rel}"
        );

        let again = c
            .get(server.url(&url_of(rel)))
            .header(IF_NONE_MATCH, &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{rel}");
        assert_eq!(again.headers()[ETAG], etag.as_str());
        assert!(again.bytes().await.unwrap().is_empty());
        let changed = c
            .get(server.url(&url_of(rel)))
            .header(IF_NONE_MATCH, "W/\"0000\"")
            .send()
            .await
            .unwrap();
        assert_eq!(changed.status(), 200, "{rel}");
    }
}

#[tokio::test]
async fn files_are_compressed_when_asked_but_event_streams_never() {
    let server = start(Fake::standard()).await;
    let c = client();
    let plain = c.get(server.url("/app/app.css")).send().await.unwrap();
    assert!(plain.headers().get(CONTENT_ENCODING).is_none());
    let plain_len = plain.bytes().await.unwrap().len();
    for (accept, want) in [("br", "br"), ("gzip", "gzip"), ("gzip, br", "br")] {
        let resp = c
            .get(server.url("/app/app.css"))
            .header(ACCEPT_ENCODING, accept)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.headers()[CONTENT_ENCODING], want, "{accept}");
        assert!(
            resp.headers()["vary"]
                .to_str()
                .unwrap()
                .to_ascii_lowercase()
                .contains("accept-encoding")
        );
        let len = resp.bytes().await.unwrap().len();
        assert!(len * 2 < plain_len, "{accept}: {len} of {plain_len}");
    }
    let sse = c
        .post(server.url("/api/v1/messages"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(ACCEPT, "text/event-stream")
        .header(ACCEPT_ENCODING, "gzip, br")
        .header(CONTENT_TYPE, "application/json")
        .body(r#"{"text":"hi"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(sse.status(), 200);
    assert!(sse.headers().get(CONTENT_ENCODING).is_none());
    let text = sse.text().await.unwrap();
    assert!(text.contains("event: final"), "{text}");
}

#[tokio::test]
async fn anything_not_embedded_is_a_404() {
    let server = start(Fake::standard()).await;
    let c = client();
    let long = format!("/app/{}", "a".repeat(4000));
    for path in [
        "/app/",
        "/app/nope.js",
        "/app/../Cargo.toml",
        "/app/%2e%2e/Cargo.toml",
        "/app/%2e%2e%2fsrc%2flib.rs",
        "/app/..%5cCargo.toml",
        "/app/vendor/../../src/lib.rs",
        "/app//main.js",
        "/app/main.js%00.png",
        "/app/MAIN.JS",
        "/index.html",
        "/web/index.html",
        "/src/assets.rs",
        long.as_str(),
    ] {
        let resp = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(resp.status(), 404, "{path}");
        assert_eq!(
            resp.headers()["content-security-policy"],
            CONTENT_SECURITY_POLICY_VALUE
        );
        let body = resp.text().await.unwrap();
        assert!(!body.contains("fn "), "{path}: {body}");
    }
    // Files are read-only: other methods are refused.
    let post = c.post(server.url("/app/main.js")).send().await.unwrap();
    assert_eq!(post.status(), 405);
    let head = c.head(server.url("/")).send().await.unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers()[CONTENT_TYPE], "text/html; charset=utf-8");
}

#[tokio::test]
async fn the_whole_app_is_under_150_kb_compressed() {
    let server = start(Fake::standard()).await;
    let c = client();
    let mut total = 0;
    for rel in web_files() {
        // Documentation beside the vendored files is never loaded by the page.
        if rel.ends_with(".md") || rel.ends_with(".txt") {
            continue;
        }
        let resp = c
            .get(server.url(&url_of(&rel)))
            .header(ACCEPT_ENCODING, "br")
            .send()
            .await
            .unwrap();
        total += resp.bytes().await.unwrap().len();
    }
    assert!(total <= 150 * 1024, "{total} bytes");
    assert!(total > 20 * 1024, "{total} bytes: is the app there at all?");
}

/// What the Content-Security-Policy refuses, and markup from strings, found in the sources.
#[test]
fn the_sources_hold_nothing_the_policy_refuses_and_build_no_markup_from_strings() {
    let files = web_files();
    let html: Vec<_> = files.iter().filter(|f| f.ends_with(".html")).collect();
    assert_eq!(html, ["index.html", "miniapp.html"]);
    // The Mini App's page may load exactly one script from elsewhere: Telegram's bridge
    // (its own policy allows that origin, and only it).
    const TELEGRAM_BRIDGE: &str = "<script src=\"https://telegram.org/js/telegram-web-app.js\">";
    for page in ["index.html", "miniapp.html"] {
        let text = std::fs::read_to_string(web_dir().join(page)).unwrap();
        let lower = text.to_ascii_lowercase();
        let mut rest = lower.clone();
        if page == "miniapp.html" {
            assert_eq!(rest.matches(TELEGRAM_BRIDGE).count(), 1, "{page}");
            rest = rest.replace(TELEGRAM_BRIDGE, "");
        }
        // Comments aside: only the markup counts.
        while let Some(at) = rest.find("<!--") {
            let end = rest[at..].find("-->").map_or(rest.len(), |e| at + e + 3);
            rest.replace_range(at..end, "");
        }
        for (at, _) in rest.match_indices("<script") {
            let tag = &rest[at..at + rest[at..].find('>').unwrap()];
            assert!(
                tag.contains(" src=\"/app/"),
                "{page}: inline or remote script: {tag}"
            );
        }
        assert!(!rest.contains("<style"), "{page}: inline style element");
        assert!(!rest.contains(" style="), "{page}: inline style attribute");
        assert!(
            !rest.contains("http://") && !rest.contains("https://"),
            "{page}: a remote resource"
        );
    }
    let index = std::fs::read_to_string(web_dir().join("index.html")).unwrap();
    let lower = index.to_ascii_lowercase();
    for attr in [
        " onclick=",
        " onload=",
        " onerror=",
        " onsubmit=",
        " oninput=",
    ] {
        assert!(!lower.contains(attr), "inline handler {attr}");
    }
    for rel in files.iter().filter(|f| f.ends_with(".js")) {
        if rel.starts_with("app/vendor/") {
            continue;
        }
        let src = std::fs::read_to_string(web_dir().join(rel)).unwrap();
        // The SVG namespace (the Status page's chart) is a name, never fetched: the one
        // `http://` allowed.
        let src = src.replace("'http://www.w3.org/2000/svg'", "'svg-namespace'");
        for bad in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
            "createContextualFragment",
            "setAttribute('style'",
            ".style.",
            "window.confirm",
            "confirm(",
            "https://",
            "http://",
            "import(",
        ] {
            assert!(!src.contains(bad), "{rel} uses {bad}");
        }
        let vendor = src.contains("./vendor/");
        assert_eq!(
            vendor,
            rel == "app/markdown.js",
            "{rel}: only markdown.js imports the vendored libraries"
        );
    }
}
