//! Bearer-token auth for `/api/`, `/v1/` and `/mcp`, checked before any body is read, and
//! the principal it yields: the HTTP surface's one place that makes a `Principal`.
//!
//! Owns: parsing `Authorization`, the constant-time comparison, the 401 response, putting the
//! authenticated `Principal` in the request's extensions, and the `Authenticated` extractor
//! handlers (and the MCP server, through rmcp's request parts) read it back with. Does not
//! own: where the token comes from or whom it stands for (the binary: the owner's id from
//! its configuration), nor several identities (one token, one principal for now).

use crate::AppState;
use crate::error::{ApiError, Flavor};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::fmt;
use steward_protocol::Principal;

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
    mut req: Request,
    next: Next,
) -> Response {
    if !needs_auth(req.uri().path()) {
        return next.run(req).await;
    }
    let ok = bearer_token(req.headers()).is_some_and(|t| state.token.matches(t));
    if ok {
        // The connection is the owner's from now on: caps displace it last (see `listen`).
        crate::listen::mark_authenticated(&req);
        // The token is the owner's credential, so the request acts for the owner.
        let principal = Principal::authenticated(state.owner.clone());
        req.extensions_mut().insert(principal);
        return next.run(req).await;
    }
    tracing::info!("rejected request without a valid bearer token");
    unauthorized(Flavor::for_path(req.uri().path()))
}

/// The principal `require_bearer` authenticated for this request. A handler takes it as an
/// argument; a request that reached one without it (a route outside the guarded prefixes)
/// is refused as unauthenticated rather than served for anybody.
pub(crate) struct Authenticated(pub(crate) Principal);

impl<S: Send + Sync> FromRequestParts<S> for Authenticated {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Principal>() {
            Some(principal) => Ok(Authenticated(principal.clone())),
            None => Err(unauthorized(Flavor::for_path(parts.uri.path()))),
        }
    }
}

fn unauthorized(flavor: Flavor) -> Response {
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
