//! The web app's files, embedded in the binary when it is built (rust-embed over `web/`, in
//! debug builds too): `GET /` is `web/index.html`, `GET /app/FILE` and `GET /app/DIR/FILE` are
//! `web/app/…` (the app is at most one folder deep, so two documented routes hold it, no
//! wildcard; `tests/server/assets.rs` requests every file). They are plain files (ES modules, CSS, the vendored markdown and sanitizer libraries): `cargo build`
//! needs no Node, and the page loads nothing from elsewhere.
//!
//! Every file is answered with its Content-Type by extension, `Cache-Control: no-cache` and a
//! weak ETag from its SHA-256 (a revalidation is a 304 without the body; weak because the
//! compression below changes the bytes, not the meaning), compressed with brotli or gzip when
//! the client accepts it. Anything not embedded is a 404, so no path reaches the disk.
//!
//! Owns: the asset routes and their headers. Does not own: the security headers every
//! response gets (`headers.rs`), nor what the app does (it is a client of `/api/v1`, signed in
//! like any other; these routes need no credential because the files hold no data).

use crate::error::ApiError;
use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;
use std::borrow::Cow;
use std::fmt::Write;
use tower_http::compression::CompressionLayer;

#[derive(RustEmbed)]
#[folder = "web/"]
struct Files;

/// The page every visit starts at.
const INDEX: &str = "index.html";

/// The compression the asset routes get (brotli or gzip, as the client accepts). Only they
/// do: the API's SSE streams must reach the browser event by event, never held back by a
/// compressor.
pub(crate) fn compression() -> CompressionLayer {
    CompressionLayer::new()
}

/// The web app's page.
#[utoipa::path(
    get,
    path = "/",
    operation_id = "get_web_app",
    tag = "web",
    security(()),
    responses(
        (status = 200, description = "The web app's page (it signs in through `/api/v1/session`)", content_type = "text/html", body = String),
        (status = 304, description = "Unchanged since the `If-None-Match` ETag"),
    ),
)]
pub(crate) async fn index(headers: HeaderMap) -> Response {
    serve(INDEX, &headers)
}

/// A file of the web app (a module, the stylesheet, the icon, a vendored library's text).
#[utoipa::path(
    get,
    path = "/app/{file}",
    operation_id = "get_web_app_file",
    tag = "web",
    security(()),
    params(("file" = String, Path, description = "The file's name, e.g. `main.js`")),
    responses(
        (status = 200, description = "The file, `Cache-Control: no-cache` with an ETag; brotli or gzip when accepted", content(
            (String = "text/javascript"), (String = "text/css"), (String = "image/svg+xml"), (String = "text/plain"))),
        (status = 304, description = "Unchanged since the `If-None-Match` ETag"),
        (status = 404, response = crate::apidoc::NotFound),
    ),
)]
pub(crate) async fn app_file(Path(file): Path<String>, headers: HeaderMap) -> Response {
    serve(&format!("app/{file}"), &headers)
}

/// A file in a folder of the web app (`chat/`, `pages/`, `vendor/`).
#[utoipa::path(
    get,
    path = "/app/{dir}/{file}",
    operation_id = "get_web_app_folder_file",
    tag = "web",
    security(()),
    params(
        ("dir" = String, Path, description = "The folder, e.g. `chat`"),
        ("file" = String, Path, description = "The file's name, e.g. `thread.js`"),
    ),
    responses(
        (status = 200, description = "The file, `Cache-Control: no-cache` with an ETag; brotli or gzip when accepted", content(
            (String = "text/javascript"), (String = "text/css"), (String = "image/svg+xml"), (String = "text/plain"))),
        (status = 304, description = "Unchanged since the `If-None-Match` ETag"),
        (status = 404, response = crate::apidoc::NotFound),
    ),
)]
pub(crate) async fn app_folder_file(
    Path((dir, file)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    serve(&format!("app/{dir}/{file}"), &headers)
}

pub(crate) fn serve(key: &str, headers: &HeaderMap) -> Response {
    let Some(file) = Files::get(key) else {
        return ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such file").into_response();
    };
    let etag = etag(&file.metadata.sha256_hash());
    let mut response = if matches_etag(headers, &etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let body = match file.data {
            Cow::Borrowed(bytes) => Bytes::from_static(bytes),
            Cow::Owned(bytes) => Bytes::from(bytes),
        };
        let mut ok = Response::new(Body::from(body));
        ok.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type(key)));
        ok
    };
    let h = response.headers_mut();
    // Always revalidate: a new binary may carry new files under the same names, and the
    // ETag makes the check a 304.
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        h.insert(ETAG, value);
    }
    response
}

/// `W/"<first 16 bytes of the SHA-256, hex>"`.
fn etag(hash: &[u8; 32]) -> String {
    let mut tag = String::from("W/\"");
    for byte in &hash[..16] {
        let _ = write!(tag, "{byte:02x}");
    }
    tag.push('"');
    tag
}

/// Does `If-None-Match` name this tag (weak comparison, RFC 9110 §13.1.2) or `*`?
fn matches_etag(headers: &HeaderMap, etag: &str) -> bool {
    let ours = opaque(etag);
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || opaque(tag) == ours)
}

fn opaque(tag: &str) -> &str {
    tag.strip_prefix("W/").unwrap_or(tag)
}

/// By extension; the app ships only these kinds. A file of another kind is served as bytes
/// (and, with `nosniff`, never run as script).
fn content_type(key: &str) -> &'static str {
    let ext = key.rsplit_once('.').map(|(_, ext)| ext).unwrap_or("");
    match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        "txt" | "md" => "text/plain; charset=utf-8",
        "png" => "image/png",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn if_none_match(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(IF_NONE_MATCH, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn etags_compare_weakly_and_in_lists() {
        let tag = etag(&[0xab; 32]);
        assert_eq!(tag, format!("W/\"{}\"", "ab".repeat(16)));
        assert!(matches_etag(&if_none_match(&tag), &tag));
        let strong = format!("\"{}\"", "ab".repeat(16));
        assert!(matches_etag(&if_none_match(&strong), &tag));
        assert!(matches_etag(
            &if_none_match(&format!("\"other\", {tag}")),
            &tag
        ));
        assert!(matches_etag(&if_none_match("*"), &tag));
        assert!(!matches_etag(&if_none_match("\"other\""), &tag));
        assert!(!matches_etag(&HeaderMap::new(), &tag));
    }

    #[test]
    fn types_follow_the_extension() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(
            content_type("app/vendor/purify.es.mjs"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("app/app.css"), "text/css; charset=utf-8");
        assert_eq!(content_type("app/LICENSE"), "application/octet-stream");
        assert_eq!(content_type("app/x.exe"), "application/octet-stream");
    }

    #[test]
    fn the_page_and_its_entry_module_are_embedded() {
        assert!(Files::get(INDEX).is_some());
        assert!(Files::get("app/main.js").is_some());
        assert!(Files::get("app/../index.html").is_none());
        assert!(Files::get("/index.html").is_none());
    }
}
