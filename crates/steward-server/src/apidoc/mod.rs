//! The API document: the OpenAPI 3.1 description of every route, generated from the
//! handlers' `#[utoipa::path]` annotations and served at `GET /api/v1/openapi.json`, and
//! `DocumentedRoutes`, the only way a route gets into the router.
//!
//! A route is registered from its annotation (utoipa-axum's `routes!` takes the method and
//! the path from it), so the router and the document come from one list: a handler without
//! an annotation does not compile into the router, and `DocumentedRoutes` has no method that
//! adds a route without a document entry. The test `tests/server/openapi.rs` checks the
//! rest (no routing call anywhere else in the crate, every documented operation answered by
//! the real router, every other method refused, real responses matching their schemas).
//!
//! Owns: the document's frame (info, security schemes, shared error responses), the
//! registration type, serving the document. Does not own: what each route says about itself
//! (the annotation beside each handler) or the wire shapes (`schemas`, and steward-protocol's
//! `openapi` feature for the protocol types).

mod responses;
pub(crate) mod schemas;

pub(crate) use responses::{
    BadRequest, Internal, InvalidRequest, NotFound, OpenAiBadRequest, OpenAiInvalidRequest,
    OpenAiPayloadTooLarge, OpenAiUnauthorized, OpenAiUnsupportedMediaType, PayloadTooLarge,
    TooManyRequests, Unauthorized, Unavailable, UnsupportedMediaType,
};

use crate::AppState;
use crate::error::ApiError;
use axum::body::Bytes;
use axum::http::HeaderValue;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Router};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Components, HttpMethod, OpenApi};
use utoipa::{Modify, OpenApi as _, Path as _};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};
use utoipa_axum::routes;

/// The name of the web sign-in cookie the `session` security scheme describes.
pub(crate) const SESSION_COOKIE: &str = "steward_session";

/// The document's frame; the paths come from `DocumentedRoutes`.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "Steward API",
        description = "Steward's HTTP API: the Steward API under `/api/v1` (JSON and Server-Sent \
            Events), the OpenAI-compatible API under `/v1`, Steward's MCP server at `/mcp`, and \
            `/health`. Every route but `/health` needs the API token as a bearer token; the \
            `/api/` routes also take the web sign-in cookie. Errors are \
            `{\"error\":{\"kind\",\"message\"}}` (OpenAI's shape under `/v1`), and every error \
            carries `x-should-retry`.",
    ),
    // Every operation needs one of these unless it says otherwise (`/health` needs none;
    // `/v1` and `/mcp` take the bearer token only).
    security(("bearer" = []), ("session" = [])),
    components(
        schemas(
            crate::error::ErrorBody,
            crate::error::OpenAiErrorBody,
            // The `data:` of the SSE streams, named in their descriptions.
            steward_protocol::TurnEvent,
            steward_protocol::FeedEvent,
        ),
        responses(
            BadRequest,
            Unauthorized,
            NotFound,
            PayloadTooLarge,
            UnsupportedMediaType,
            InvalidRequest,
            TooManyRequests,
            Internal,
            Unavailable,
            OpenAiBadRequest,
            OpenAiUnauthorized,
            OpenAiPayloadTooLarge,
            OpenAiUnsupportedMediaType,
            OpenAiInvalidRequest,
        ),
    ),
    tags(
        (name = "meta", description = "Health and this document"),
        (name = "messages", description = "Turns: send a message, stop a turn"),
        (name = "events", description = "The live event feed"),
        (name = "conversations", description = "The conversations read side"),
        (name = "approvals", description = "Pending actions and their decisions"),
        (name = "grants", description = "Time-limited permissions for a tool in a conversation"),
        (name = "memory", description = "Facts, notes and search"),
        (name = "openai", description = "The OpenAI-compatible API"),
        (name = "mcp", description = "Steward's MCP server"),
        (name = "web", description = "The web app's page and files (no credential: they hold no data)"),
    ),
    modifiers(&SecuritySchemes),
)]
struct Frame;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, doc: &mut OpenApi) {
        let components = doc.components.get_or_insert_with(Components::new);
        let mut bearer = Http::new(HttpAuthScheme::Bearer);
        bearer.description = Some(
            "The API token (`STEWARD_API_TOKEN`): `Authorization: Bearer <token>`.".to_owned(),
        );
        components.add_security_scheme("bearer", SecurityScheme::Http(bearer));
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                SESSION_COOKIE,
                "The web app's sign-in cookie (HttpOnly, SameSite=Strict), taken by the `/api/` \
                 routes only; a request it authenticates that changes anything must also send \
                 `X-CSRF-Token`.",
            ))),
        );
    }
}

/// The router under construction and the document of every route in it. Routes come in only
/// through `routes` (an annotated handler list) and `mcp`; there is deliberately no way to add
/// an undocumented one.
pub(crate) struct DocumentedRoutes(OpenApiRouter<AppState>);

impl DocumentedRoutes {
    pub(crate) fn new() -> Self {
        Self(OpenApiRouter::with_openapi(Frame::openapi()))
    }

    /// Handlers for one path, each registered under the method and path of its annotation.
    pub(crate) fn routes(self, routes: UtoipaMethodRouter<AppState>) -> Self {
        Self(self.0.routes(routes))
    }

    /// Steward's MCP server (rmcp's own router, speaking MCP's streamable HTTP) at `/mcp`,
    /// documented as one opaque entry.
    pub(crate) fn mcp(self, service: Router) -> Self {
        let path = __path_mcp::path();
        let mut router = self.0.route_service(&path, service);
        let paths = &mut router.get_openapi_mut().paths;
        // One entry per method, each with its own operation id (ids must be unique).
        for method in __path_mcp::methods() {
            let mut operation = __path_mcp::operation();
            let name = match method {
                HttpMethod::Get => "get",
                HttpMethod::Post => "post",
                HttpMethod::Delete => "delete",
                _ => "other",
            };
            operation.operation_id = Some(format!("mcp_{name}"));
            paths.add_path_operation(&path, vec![method], operation);
        }
        Self(router)
    }

    /// The router with the document's own route, and the document. The document is
    /// generated here, once per router.
    pub(crate) fn finish(self) -> (Router<AppState>, OpenApi) {
        let (router, doc) = self.routes(routes!(openapi_json)).0.split_for_parts();
        let served = match doc.to_json() {
            Ok(json) => ServedDocument(Some(Bytes::from(json))),
            Err(e) => {
                tracing::error!(error = %e, "could not encode the API document");
                ServedDocument(None)
            }
        };
        (router.layer(Extension(served)), doc)
    }
}

/// The document as served: its JSON, encoded once when the router was built.
#[derive(Clone)]
struct ServedDocument(Option<Bytes>);

/// This document: every route of this server with its parameters, bodies and answers.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    operation_id = "get_openapi_document",
    tag = "meta",
    responses(
        (status = 200, description = "The OpenAPI 3.1 document of this server", content_type = "application/json", body = Object),
        (status = 401, response = Unauthorized),
        (status = 500, response = Internal),
    ),
)]
async fn openapi_json(Extension(doc): Extension<ServedDocument>) -> Response {
    match doc.0 {
        Some(json) => (
            [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            json,
        )
            .into_response(),
        None => ApiError::internal("the API document could not be encoded").into_response(),
    }
}

/// Steward's MCP server (streamable HTTP).
///
/// Opaque here: its tools, resources and messages are
/// described by MCP itself (`initialize`, `tools/list`), not by this document. Bearer token
/// only; the web sign-in cookie is not taken.
#[utoipa::path(
    method(post, get, delete),
    path = "/mcp",
    operation_id = "mcp",
    tag = "mcp",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "An MCP message (JSON) or stream (`text/event-stream`), as the MCP streamable HTTP transport says",
            content(("application/json"), ("text/event-stream"))),
        (status = 401, response = Unauthorized),
    ),
)]
#[allow(dead_code)] // Documentation only: `/mcp` is served by rmcp's router.
fn mcp() {}
