//! Authentication for `/api/`, `/v1/` and `/mcp`, checked before any body is read, and the
//! principal it yields: the HTTP surface's one place that makes a `Principal`.
//!
//! Three credentials, one principal (the owner): the API token as `Authorization: Bearer`, on
//! every guarded route; the web app's session cookie, on `/api/` only (`/v1/` and `/mcp`
//! stay bearer-only: their clients are programs, not a browser); and the Telegram Mini App's
//! `Authorization: tma <initData>`, on `/api/` only, when `ServerConfig::mini_app` is set
//! (`mini_app.rs`). A request with an
//! `Authorization` header is decided by it alone, cookie or not. A cookie-authenticated
//! request whose method changes state must carry its session's CSRF token in `X-CSRF-Token`,
//! else 403 `csrf` and no handler runs. `POST /api/v1/session` (signing in) needs neither.
//!
//! Owns: parsing `Authorization`, the constant-time comparisons, the 401 and 403 responses,
//! putting the authenticated `Principal` (and, for a cookie, its `CookieSession`) in the
//! request's extensions, and the `Authenticated` extractor handlers (and the MCP server,
//! through rmcp's request parts) read it back with. Does not own: where the token comes from
//! or whom it stands for (the binary: the owner's id from its configuration), the sessions
//! themselves (`session/`), nor several identities (one owner for now).

use crate::AppState;
use crate::error::{ApiError, Flavor};
use crate::session::CookieSession;
use crate::session::secret::{CookieSecret, CsrfToken, cookie_secret};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::fmt;
use steward_protocol::{Principal, Surface};

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

/// The header carrying a cookie-authenticated request's CSRF token.
pub(crate) const CSRF_HEADER: HeaderName = HeaderName::from_static("x-csrf-token");

/// Where the session cookie counts: the Steward API, which the web app uses.
fn cookie_allowed(path: &str) -> bool {
    path.starts_with("/api/")
}

/// Signing in: reachable without credentials (the body is the credential).
fn is_sign_in(req: &Request) -> bool {
    req.method() == Method::POST && req.uri().path() == "/api/v1/session"
}

/// Methods that change nothing, so need no CSRF token.
fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

pub(crate) async fn authenticate(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path();
    if !needs_auth(path) || is_sign_in(&req) {
        return next.run(req).await;
    }
    let flavor = Flavor::for_path(path);
    // The bearer decides whenever it is there, so a stale cookie never overrides a token
    // (and a wrong token is not rescued by a cookie).
    if req.headers().contains_key(AUTHORIZATION) {
        if let Some(init_data) = crate::mini_app::tma_credential(req.headers()) {
            // The Mini App's credential, on the Steward API only (as the cookie): the check
            // (HMAC first) says yes or no; why not is in its log line, never in the answer.
            let admitted = cookie_allowed(path)
                && state
                    .mini_app
                    .as_ref()
                    .is_some_and(|check| check.admits(init_data));
            if !admitted {
                tracing::info!("rejected a Telegram Mini App request");
                return unauthorized(flavor);
            }
            crate::listen::mark_authenticated(&req);
            // An allowlisted Telegram user: the bot's people act as the owner.
            let principal = Principal::authenticated(state.owner.clone());
            req.extensions_mut().insert(principal);
            req.extensions_mut().insert(crate::mini_app::MiniAppRequest);
            return next.run(req).await;
        }
        let ok = bearer_token(req.headers()).is_some_and(|t| state.token.matches(t));
        if !ok {
            tracing::info!("rejected request without a valid bearer token");
            return unauthorized(flavor);
        }
        // The connection is the owner's from now on: caps displace it last (see `listen`).
        crate::listen::mark_authenticated(&req);
        // The token is the owner's credential, so the request acts for the owner.
        let principal = Principal::authenticated(state.owner.clone());
        req.extensions_mut().insert(principal);
        return next.run(req).await;
    }
    let (Some(sessions), true) = (state.sessions.as_ref(), cookie_allowed(path)) else {
        tracing::info!("rejected request without a valid bearer token");
        return unauthorized(flavor);
    };
    let CookieSecret::Present(secret) = cookie_secret(req.headers()) else {
        tracing::info!("rejected request without a bearer token or a usable session cookie");
        return unauthorized(flavor);
    };
    let session = match sessions.find(&secret, &state.owner).await {
        Ok(Some(session)) => session,
        Ok(None) => {
            tracing::info!("rejected an unknown or ended session");
            return unauthorized(flavor);
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not look up a session");
            return ApiError::internal("could not check the session; see the server log")
                .into_response();
        }
    };
    if !is_safe(req.method()) && !csrf_matches(req.headers(), &session.csrf) {
        tracing::info!(session = %session.id, "refused a state change without its CSRF token");
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "csrf",
            "missing or wrong X-CSRF-Token header (the page must send its session's csrf_token)",
        )
        .into_response();
    }
    crate::listen::mark_authenticated(&req);
    // A live session of the owner's (`Sessions::find` checks whose it is): it acts for the
    // owner, the same principal the token yields.
    let principal = Principal::authenticated(state.owner.clone());
    req.extensions_mut().insert(principal);
    req.extensions_mut().insert(session);
    next.run(req).await
}

/// Exactly one `X-CSRF-Token` header, equal to the session's token (in constant time).
fn csrf_matches(headers: &HeaderMap, token: &CsrfToken) -> bool {
    let mut values = headers.get_all(&CSRF_HEADER).iter();
    match (values.next(), values.next()) {
        (Some(given), None) => constant_time_eq(given.as_bytes(), token.as_bytes()),
        _ => false,
    }
}

/// The principal `authenticate` authenticated for this request. A handler takes it as an
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

/// The surface a request came from, by the credential `authenticate` accepted: the web app's
/// session cookie is `web`, the bearer token `http`, the Mini App's `tma` credential `telegram`. What an approval's history shows as
/// "from the web app" or "from the API".
pub(crate) struct RequestSurface(pub(crate) Surface);

impl<S: Send + Sync> FromRequestParts<S> for RequestSurface {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        // `authenticate` puts the session in only when the cookie, not a bearer, decided;
        // the Mini App's marker only when its `tma` credential did.
        let web = parts.extensions.get::<CookieSession>().is_some();
        let mini_app = parts
            .extensions
            .get::<crate::mini_app::MiniAppRequest>()
            .is_some();
        Ok(RequestSurface(if mini_app {
            Surface::Telegram
        } else if web {
            Surface::Web
        } else {
            Surface::Http
        }))
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
