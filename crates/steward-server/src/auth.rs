//! Bearer-token auth for `/api/`, `/v1/` and `/mcp`, checked before any body is read.
//!
//! Owns: parsing `Authorization`, the constant-time comparison, the 401 response. Does not
//! own: where the token comes from (the binary) or per-user identities (everything that
//! passes is the owner).

use crate::AppState;
use crate::error::{ApiError, Flavor};
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::fmt;

/// The configured API token. Kept as bytes and never printed.
pub(crate) struct Token(Vec<u8>);

impl Token {
    pub(crate) fn new(token: String) -> Self {
        Self(token.into_bytes())
    }

    /// Does the presented credential match? An empty configured token matches nothing.
    pub(crate) fn matches(&self, given: &[u8]) -> bool {
        constant_time_eq(given, &self.0)
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Paths that need a token. Unknown paths under these prefixes also get 401 first, so an
/// unauthenticated caller learns nothing about which routes exist.
fn needs_auth(path: &str) -> bool {
    ["/api", "/v1", "/mcp"].iter().any(|p| {
        path == *p
            || path
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

pub(crate) async fn require_bearer(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path();
    if !needs_auth(path) {
        return next.run(req).await;
    }
    let ok = bearer_token(req.headers()).is_some_and(|t| state.token.matches(t));
    if ok {
        // The connection is the owner's from now on: caps displace it last (see `listen`).
        crate::listen::mark_authenticated(&req);
        return next.run(req).await;
    }
    let flavor = Flavor::for_path(path);
    tracing::info!("rejected request without a valid bearer token");
    let mut resp = ApiError::new(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "missing or invalid bearer token",
    )
    .flavor(flavor)
    .into_response();
    resp.headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    resp
}

/// The token from `Authorization: Bearer <token>`; `None` when absent, repeated,
/// another scheme, or empty. The scheme is case-insensitive (RFC 9110 §11.1).
fn bearer_token(headers: &HeaderMap) -> Option<&[u8]> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    let raw = value.as_bytes();
    let space = raw.iter().position(|b| *b == b' ')?;
    let (scheme, rest) = raw.split_at(space);
    if !scheme.eq_ignore_ascii_case(b"Bearer") {
        return None;
    }
    let token = rest.trim_ascii();
    (!token.is_empty()).then_some(token)
}

/// Compare without an early exit, so timing reveals at most the expected length.
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    if expected.is_empty() {
        return false;
    }
    let mut diff = given.len() ^ expected.len();
    for (i, e) in expected.iter().enumerate() {
        let g = given.get(i).copied().unwrap_or(!*e);
        diff |= usize::from(g ^ e);
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn parses_bearer_scheme_only() {
        assert_eq!(bearer_token(&headers("Bearer abc")), Some(&b"abc"[..]));
        assert_eq!(bearer_token(&headers("bearer abc")), Some(&b"abc"[..]));
        assert_eq!(bearer_token(&headers("Bearer")), None);
        assert_eq!(bearer_token(&headers("Bearer   ")), None);
        assert_eq!(bearer_token(&headers("Basic YWJj")), None);
        assert_eq!(bearer_token(&headers("Bearerabc")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }

    #[test]
    fn refuses_repeated_authorization_headers() {
        let mut h = headers("Bearer abc");
        h.append(AUTHORIZATION, HeaderValue::from_static("Bearer abc"));
        assert_eq!(bearer_token(&h), None);
    }

    #[test]
    fn compares_tokens_exactly() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secreT", b"secret"));
        assert!(!constant_time_eq(b"secret-longer", b"secret"));
        assert!(!constant_time_eq(b"secre", b"secret"));
        assert!(!constant_time_eq(b"", b"secret"));
        // A zero byte must not stand in for a missing one.
        assert!(!constant_time_eq(b"ab", b"ab\0"));
    }

    #[test]
    fn empty_configured_token_matches_nothing() {
        assert!(!Token::new(String::new()).matches(b""));
        assert!(!Token::new(String::new()).matches(b"x"));
    }

    #[test]
    fn auth_covers_api_prefixes_only() {
        assert!(needs_auth("/api/v1/messages"));
        assert!(needs_auth("/v1/models"));
        assert!(needs_auth("/v1"));
        assert!(needs_auth("/api/unknown"));
        assert!(needs_auth("/mcp"));
        assert!(!needs_auth("/mcpx"));
        assert!(!needs_auth("/health"));
        assert!(!needs_auth("/v1x"));
        assert!(!needs_auth("/apix/y"));
    }

    #[test]
    fn token_debug_is_redacted() {
        let t = Token::new("hunter2-secret".into());
        assert!(!format!("{t:?}").contains("hunter2"));
    }
}
