//! The session routes: `POST /api/v1/session` (sign in; reachable without credentials),
//! `GET /api/v1/session` (who and which session), `DELETE /api/v1/session` (sign out),
//! `GET /api/v1/sessions` and `DELETE /api/v1/sessions/{id}` (list, revoke). The contract is
//! docs/ARCHITECTURE.md's "Web sign-in" section.
//!
//! Owns: the shapes, the order of a sign-in's checks (limit, then body, then credential) and
//! the cookies set. Does not own: the CSRF check and cookie authentication (`auth.rs`, before
//! any handler), lifetimes, secrets and the store (`session/`).

use crate::AppState;
use crate::auth::Authenticated;
use crate::body::{is_json, read_bytes};
use crate::client::Client;
use crate::error::ApiError;
use crate::session::secret::{CookieSecret, clear_cookie, cookie_secret};
use crate::session::{CookieSession, CreateError, LIFETIME_MS, Sessions};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Extension, Path, State};
use axum::http::header::{CACHE_CONTROL, RETRY_AFTER, SET_COOKIE, USER_AGENT};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use std::fmt;
use std::sync::Arc;
use steward_store::Session;

/// One message for every wrong credential, so the answer never tells whether a password is
/// set.
const BAD_CREDENTIALS: &str = "wrong password or API token (to sign in with a password, \
     set one on the server with `steward user set-password`)";

/// `{"password": …}` or `{"token": …}`, exactly one.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SignInBody {
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    token: Option<String>,
}

enum Credential {
    Password(String),
    Token(String),
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Credential::Password(_) => "Password(<redacted>)",
            Credential::Token(_) => "Token(<redacted>)",
        })
    }
}

fn sessions(state: &AppState) -> Result<&Arc<Sessions>, ApiError> {
    state.sessions.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "web sign-in is not enabled on this server",
        )
    })
}

fn store_failed(what: &str, e: &dyn std::error::Error) -> ApiError {
    tracing::warn!(error = %e, "{what}");
    ApiError::internal(format!("{what}; see the server log"))
}

/// The credential in a sign-in body. Never echoes the body or serde's message (which would
/// quote a mistyped value: the password).
fn credential(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Credential, ApiError> {
    if !is_json(headers) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "expected Content-Type: application/json",
        ));
    }
    let bytes = read_bytes(body)?;
    let shape = || {
        ApiError::bad_request(
            r#"expected {"password": "..."} or {"token": "..."}: exactly one of them, nothing else"#,
        )
    };
    // An object first: serde would also read a struct from an array (`["…"]`), by position.
    let object: serde_json::Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|_| shape())?;
    let parsed = SignInBody::deserialize(Value::Object(object)).map_err(|_| shape())?;
    match (parsed.password, parsed.token) {
        (Some(p), None) => Ok(Credential::Password(p)),
        (None, Some(t)) => Ok(Credential::Token(t)),
        _ => Err(shape()),
    }
}

fn session_json(id: &str, created_at_ms: i64, expires_at_ms: i64) -> Value {
    json!({
        "id": id,
        "created_at": created_at_ms.div_euclid(1000),
        "expires_at": expires_at_ms.div_euclid(1000),
    })
}

fn with_cookie(mut resp: Response, cookie: &str) -> Response {
    if let Ok(value) = HeaderValue::from_str(cookie) {
        resp.headers_mut().insert(SET_COOKIE, value);
    }
    // The body holds the CSRF token: no cache may keep it.
    resp.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

fn too_many(wait_secs: u64) -> Response {
    let mut resp = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_attempts",
        format!("too many failed sign-ins from this address; try again in {wait_secs} s"),
    )
    .into_response();
    resp.headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(wait_secs));
    resp
}

/// Sign in with the owner's password or the API token: a new session (a new id at every
/// sign-in; a session cookie sent with it is ended) and its CSRF token.
#[utoipa::path(
    post,
    path = "/api/v1/session",
    operation_id = "sign_in",
    tag = "session",
    security(()),
    request_body(content = SignInBody, content_type = "application/json", description = "Exactly one of `password` and `token`"),
    responses(
        (status = 200, description = "Signed in: `Set-Cookie: steward_session=…; HttpOnly; SameSite=Strict; Path=/` (and `Secure` over https)", body = crate::apidoc::schemas::SignedIn,
            headers(("Set-Cookie" = String, description = "The session cookie"))),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, description = "Wrong password or token (`bad_credentials`; the same answer when no password is set)", body = crate::error::ErrorBody),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 429, response = crate::apidoc::TooManyRequests),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn sign_in(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match sign_in_inner(&state, client, &headers, body).await {
        Ok(resp) => resp,
        Err(resp) => resp,
    }
}

async fn sign_in_inner(
    state: &AppState,
    client: Client,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Response> {
    let sessions = sessions(state).map_err(IntoResponse::into_response)?;
    // The limit comes first: once a client is over it, no credential of its is even read.
    let attempt = sessions
        .limiter()
        .begin(client.limit_key(), sessions.now_ms())
        .map_err(too_many)?;
    let credential = credential(headers, body).map_err(IntoResponse::into_response)?;
    let (method, matched) = match credential {
        Credential::Token(token) => ("token", state.token.matches(token.as_bytes())),
        Credential::Password(password) => {
            let matched = sessions
                .password_matches(password)
                .await
                .map_err(|e| store_failed("could not check the password", &e).into_response())?;
            ("password", matched)
        }
    };
    if !matched {
        attempt.failed(sessions.now_ms());
        tracing::info!(method, "failed sign-in");
        return Err(
            ApiError::new(StatusCode::UNAUTHORIZED, "bad_credentials", BAD_CREDENTIALS)
                .into_response(),
        );
    }
    attempt.succeeded();
    let previous = match cookie_secret(headers) {
        CookieSecret::Present(secret) => Some(secret),
        CookieSecret::Absent | CookieSecret::Unusable => None,
    };
    let user_agent = headers.get(USER_AGENT).and_then(|v| v.to_str().ok());
    let (secret, session) = sessions
        .create(&state.owner, previous.as_ref(), user_agent)
        .await
        .map_err(|e| {
            match e {
                CreateError::Store(e) => store_failed("could not store the session", &e),
                CreateError::NoRandomness => store_failed("could not make a session", &e),
            }
            .into_response()
        })?;
    tracing::info!(method, session = %session.id, "signed in");
    let body = json!({
        "csrf_token": secret.csrf_token().as_str(),
        "session": session_json(&session.id, session.created_at_ms, session.expires_at_ms),
    });
    let max_age = LIFETIME_MS / 1000;
    Ok(with_cookie(
        Json(body).into_response(),
        &secret.set_cookie(max_age, client.https),
    ))
}

/// Who this request acts for, and the cookie's session with its CSRF token (nulls for the
/// bearer): a page reloaded reads its CSRF token here.
#[utoipa::path(
    get,
    path = "/api/v1/session",
    operation_id = "current_session",
    tag = "session",
    responses(
        (status = 200, description = "The principal and the session", body = crate::apidoc::schemas::CurrentSession),
        (status = 401, response = crate::apidoc::Unauthorized),
    ),
)]
pub(crate) async fn current(
    Authenticated(who): Authenticated,
    session: Option<Extension<CookieSession>>,
) -> Response {
    let body = match session {
        Some(Extension(s)) => json!({
            "csrf_token": s.csrf.as_str(),
            "session": session_json(&s.id, s.created_at_ms, s.expires_at_ms),
            "principal": who.id().as_str(),
        }),
        None => json!({"csrf_token": null, "session": null, "principal": who.id().as_str()}),
    };
    let mut resp = Json(body).into_response();
    resp.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// Sign out: ends the cookie's session and clears the cookie (with `X-CSRF-Token`, like every
/// change made with the cookie).
#[utoipa::path(
    delete,
    path = "/api/v1/session",
    operation_id = "sign_out",
    tag = "session",
    responses(
        (status = 204, description = "Signed out; the cookie is cleared", headers(("Set-Cookie" = String, description = "The cleared cookie"))),
        (status = 400, description = "Authenticated by the bearer token: there is no session to end (`bad_request`)", body = crate::error::ErrorBody),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 403, description = "A cookie request without the right `X-CSRF-Token` (`csrf`)", body = crate::error::ErrorBody),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn sign_out(
    State(state): State<AppState>,
    client: Client,
    Authenticated(who): Authenticated,
    session: Option<Extension<CookieSession>>,
) -> Response {
    let sessions = match sessions(&state) {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    let Some(Extension(session)) = session else {
        return ApiError::bad_request(
            "this request was authenticated by the bearer token, not a session: there is nothing to sign out",
        )
        .into_response();
    };
    if let Err(e) = sessions.revoke(who.id(), &session.id).await {
        return store_failed("could not end the session", &e).into_response();
    }
    tracing::info!(session = %session.id, "signed out");
    with_cookie(
        StatusCode::NO_CONTENT.into_response(),
        &clear_cookie(client.https),
    )
}

fn listed(s: &Session, current: Option<&str>) -> Value {
    json!({
        "id": s.id,
        "created_at": s.created_at_ms.div_euclid(1000),
        "last_seen_at": s.last_seen_at_ms.div_euclid(1000),
        "expires_at": s.expires_at_ms.div_euclid(1000),
        "user_agent": s.user_agent,
        "current": current == Some(s.id.as_str()),
    })
}

/// The signed-in sessions of the principal, newest first; `current` marks this request's.
#[utoipa::path(
    get,
    path = "/api/v1/sessions",
    operation_id = "list_sessions",
    tag = "session",
    responses(
        (status = 200, description = "The live sessions", body = crate::apidoc::schemas::SessionList),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    session: Option<Extension<CookieSession>>,
) -> Response {
    let sessions = match sessions(&state) {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    let current = session.as_ref().map(|Extension(s)| s.id.as_str());
    match sessions.list(who.id()).await {
        Ok(all) => {
            let items: Vec<Value> = all.iter().map(|s| listed(s, current)).collect();
            Json(json!({"sessions": items})).into_response()
        }
        Err(e) => store_failed("could not list the sessions", &e).into_response(),
    }
}

/// End one session; ending the current one signs it out (the cookie is cleared).
#[utoipa::path(
    delete,
    path = "/api/v1/sessions/{id}",
    operation_id = "revoke_session",
    tag = "session",
    params(("id" = String, Path, description = "The session's id (a UUID)")),
    responses(
        (status = 204, description = "Ended"),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 403, description = "A cookie request without the right `X-CSRF-Token` (`csrf`)", body = crate::error::ErrorBody),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn revoke(
    State(state): State<AppState>,
    client: Client,
    Authenticated(who): Authenticated,
    session: Option<Extension<CookieSession>>,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let sessions = match sessions(&state) {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    let not_found = || ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such session");
    // Session ids are UUIDs; anything else names no session.
    let Some(id) = id
        .ok()
        .and_then(|Path(raw)| uuid::Uuid::parse_str(&raw).ok())
        .map(|u| u.hyphenated().to_string())
    else {
        return not_found().into_response();
    };
    match sessions.revoke(who.id(), &id).await {
        Ok(true) => {}
        Ok(false) => return not_found().into_response(),
        Err(e) => return store_failed("could not end the session", &e).into_response(),
    }
    tracing::info!(session = %id, "session revoked");
    let ended_own = session.is_some_and(|Extension(s)| s.id == id);
    if ended_own {
        with_cookie(
            StatusCode::NO_CONTENT.into_response(),
            &clear_cookie(client.https),
        )
    } else {
        StatusCode::NO_CONTENT.into_response()
    }
}
