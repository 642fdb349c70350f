//! The Telegram Mini App on the HTTP side: its page, `GET /miniapp/` (the web app's pages in
//! Telegram; the only page whose Content-Security-Policy lets Telegram's bridge script load
//! and Telegram's web client frame it), and its credential: `Authorization: tma <initData>`
//! on the `/api/` routes, checked by the `MiniAppCheck` port — Telegram's HMAC with the bot's
//! token before any field is read, the age, the bot's allowlist — and then acting as the
//! owner, as the API token does, from the surface `telegram`.
//!
//! Owns: the page's route and headers, reading the `tma` credential. Does not own: the check
//! itself (the binary implements the port with steward-telegram's `verify_init_data`), the
//! pages (`web/app/miniapp/`, which reuse the web app's).

use axum::http::header::{AUTHORIZATION, CONTENT_SECURITY_POLICY};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;

/// Whether a Mini App's `initData` is genuine, fresh and from an allowlisted user. The
/// reason for a refusal goes to the log there; the client only ever sees a generic 401.
pub trait MiniAppCheck: Send + Sync + 'static {
    fn admits(&self, init_data: &str) -> bool;
}

/// Put in a request's extensions when its `tma` credential was admitted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MiniAppRequest;

/// The Mini App page's policy: the web app's, plus Telegram's bridge script and framing by
/// Telegram's web client (its native apps show the page in a web view, not a frame).
pub const MINI_APP_CONTENT_SECURITY_POLICY: &str = "default-src 'self'; \
     script-src 'self' https://telegram.org; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors https://web.telegram.org";

/// The `initData` of `Authorization: tma <initData>`: `None` when absent, repeated, another
/// scheme or empty. The scheme is case-insensitive, like every HTTP auth scheme.
pub(crate) fn tma_credential(headers: &HeaderMap) -> Option<&str> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    let raw = value.to_str().ok()?;
    let (scheme, rest) = raw.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("tma") {
        return None;
    }
    let data = rest.trim();
    (!data.is_empty()).then_some(data)
}

/// The Mini App's page.
#[utoipa::path(
    get,
    path = "/miniapp/",
    operation_id = "get_mini_app",
    tag = "web",
    security(()),
    responses(
        (status = 200, description = "The Telegram Mini App's page (it holds no data: its calls carry `Authorization: tma <initData>`)", content_type = "text/html", body = String),
        (status = 304, description = "Unchanged since the `If-None-Match` ETag"),
    ),
)]
pub(crate) async fn page(headers: HeaderMap) -> Response {
    let mut response = crate::assets::serve("miniapp.html", &headers);
    response.headers_mut().insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(MINI_APP_CONTENT_SECURITY_POLICY),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn reads_the_tma_scheme_only() {
        assert_eq!(
            tma_credential(&headers(&["tma a=1&hash=ff"])),
            Some("a=1&hash=ff")
        );
        assert_eq!(tma_credential(&headers(&["TMA a=1"])), Some("a=1"));
        assert_eq!(tma_credential(&headers(&["tma "])), None);
        assert_eq!(tma_credential(&headers(&["tma"])), None);
        assert_eq!(tma_credential(&headers(&["Bearer x"])), None);
        assert_eq!(tma_credential(&headers(&["tma a=1", "tma a=2"])), None);
        assert_eq!(tma_credential(&headers(&[])), None);
    }
}
