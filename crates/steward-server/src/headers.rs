//! Security headers on every response `steward serve` sends — API answers, errors, 401s, CORS
//! preflights and (with the web app) its pages: no MIME sniffing, no referrer, and a strict
//! Content-Security-Policy (only same-origin scripts, styles, connections; no plugins; no
//! framing). A response that already names one of these keeps its own.
//!
//! Owns: the header values. Does not own: CORS (`cors.rs`) or what a page loads. The Mini App
//! (Telegram) will need `frame-ancestors` widened to Telegram's web origins; that change belongs
//! here, and only for the Mini App's pages.

use axum::http::HeaderValue;
use axum::http::header::{CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS};
use axum::response::Response;

/// Same-origin only; inline script and `eval` are refused because neither is listed; images
/// may also be `data:` (a page's own icons), never remote (a model's markdown image must not
/// load); `frame-ancestors 'none'`: no site may frame Steward (clickjacking on a Confirm).
pub const CONTENT_SECURITY_POLICY_VALUE: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; \
     object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Adds the headers a response lacks.
pub(crate) async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers
        .entry(X_CONTENT_TYPE_OPTIONS)
        .or_insert(HeaderValue::from_static("nosniff"));
    headers
        .entry(REFERRER_POLICY)
        .or_insert(HeaderValue::from_static("no-referrer"));
    headers
        .entry(CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(CONTENT_SECURITY_POLICY_VALUE));
    response
}
