//! The API document: the OpenAPI 3.1 description of every route, generated from the
//! handlers' `#[utoipa::path]` annotations and served at `GET /api/v1/openapi.json`, and
//! `DocumentedRoutes`, the only way a route gets into the router.
//!
//! A route is registered from its annotation (`documented!` takes the method and the path
//! from it), so the router and the document come from one list: a handler without an
//! annotation does not compile into the router, and `DocumentedRoutes` has no method that
//! adds a route without a document entry. Only the routes are made at start; the document is
//! built and encoded on its first request (`ApiDocument`), since few clients ever ask for it. The test `tests/server/openapi.rs` checks the
//! rest (no routing call anywhere else in the crate, every documented operation answered by
//! the real router, every other method refused, real responses matching their schemas).
//!
//! Owns: the document's frame (info, security schemes, shared error responses), the
//! registration (`documented!`, `DocumentedRoutes`), building the document lazily and serving
//! it. Does not own: what each route says about itself
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
use axum::extract::DefaultBodyLimit;
use axum::http::HeaderValue;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use axum::{Extension, Router};
use std::sync::{Arc, OnceLock};
use tower_http::compression::CompressionLayer;
use utoipa::openapi::path::Paths;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Components, HttpMethod, OpenApi, RefOr, Schema};
use utoipa::{Modify, OpenApi as _, Path as _};

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
        (name = "jobs", description = "The scheduler's jobs, and the reminders and recurring tasks it runs for the caller"),
        (name = "openai", description = "The OpenAI-compatible API"),
        (name = "mcp", description = "Steward's MCP server"),
        (name = "web", description = "The web app's page and files, and the Telegram Mini App's page (no credential: they hold no data)"),
        (name = "telegram", description = "Telegram's webhook deliveries (webhook mode; the secret header is the credential)"),
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

/// One annotated handler list as the router serves it, and how to document it later (made by
/// `documented!`). The routes are taken from each annotation's `path()` and `methods()`, which
/// are constant strings; the operations, their schemas and every type's schema code run only
/// in `document`, when the document is first asked for. That keeps them off the start-up
/// path: building them eagerly cost about 2.7 MB of idle RSS (their code pages and the heap of
/// a ~100 KB document nobody had asked for; `cargo bench -p steward --bench http_turn`).
pub(crate) struct DocumentedMethodRouter {
    /// `(path, handlers)`, one per handler of the list, each under its own annotation's path.
    routes: Vec<(String, MethodRouter<AppState>)>,
    /// Adds the list's operations and schemas to a document.
    document: DocumentPart,
}

/// Adds some routes' operations (and the schemas they name) to a document.
type DocumentPart = fn(&mut OpenApi);

impl DocumentedMethodRouter {
    /// For `documented!` only: `routes` and `document` must come from the same handlers.
    pub(crate) fn from_parts(
        routes: Vec<(String, MethodRouter<AppState>)>,
        document: DocumentPart,
    ) -> Self {
        Self { routes, document }
    }

    /// A layer around these handlers only (a body limit, the assets' compression), as
    /// `MethodRouter::layer`.
    pub(crate) fn layer<L: HandlerLayer + Clone>(self, layer: L) -> Self {
        let routes = self
            .routes
            .into_iter()
            .map(|(path, handlers)| (path, layer.clone().around(handlers)))
            .collect();
        Self {
            routes,
            document: self.document,
        }
    }
}

/// A layer a handler list may get. Named per type rather than by `tower::Layer` bounds so that
/// the crate needs no tower dependency of its own; a new layer type gets an impl here.
pub(crate) trait HandlerLayer {
    fn around(self, handlers: MethodRouter<AppState>) -> MethodRouter<AppState>;
}

impl HandlerLayer for DefaultBodyLimit {
    fn around(self, handlers: MethodRouter<AppState>) -> MethodRouter<AppState> {
        handlers.layer(self)
    }
}

impl HandlerLayer for CompressionLayer {
    fn around(self, handlers: MethodRouter<AppState>) -> MethodRouter<AppState> {
        handlers.layer(self)
    }
}

/// The routes of `#[utoipa::path]`-annotated handlers on one path, mirroring utoipa-axum's
/// `routes!` (same handler list, same `.layer()`), but without building their document
/// entries: each handler is routed under its annotation's `path()` and `methods()`, and the
/// entries are built by utoipa-axum's own `routes!` when the document is first needed.
macro_rules! documented {
    ($( $($segment:ident)::+ ),+ $(,)?) => {{
        #[allow(unused_imports)]
        use ::utoipa_axum::PathItemExt as _;
        let routes = vec![$({
            let path: String = ::utoipa_axum::routes!(@path [path()] of $($segment)::+);
            let path = if path.is_empty() { "/".to_owned() } else { path };
            let methods = ::utoipa_axum::routes!(@path [methods()] of $($segment)::+);
            let handlers = methods.iter().fold(
                ::axum::routing::MethodRouter::<$crate::AppState>::new(),
                |handlers, method| handlers.on(method.to_method_filter(), $($segment)::+),
            );
            (path, handlers)
        }),+];
        $crate::apidoc::DocumentedMethodRouter::from_parts(routes, |doc| {
            // utoipa-axum's own registration, for its document half only (the method router it
            // builds beside it is dropped unused).
            let (schemas, paths, _): ::utoipa_axum::router::UtoipaMethodRouter<$crate::AppState> =
                ::utoipa_axum::routes!($($($segment)::+),+);
            $crate::apidoc::add_operations(doc, schemas, paths);
        })
    }};
}
pub(crate) use documented;

/// Merges some routes' entries into `doc`, as utoipa-axum's `OpenApiRouter::routes` does.
pub(crate) fn add_operations(
    doc: &mut OpenApi,
    schemas: Vec<(String, RefOr<Schema>)>,
    paths: Paths,
) {
    for (path, item) in paths.paths {
        if let Some(existing) = doc.paths.paths.get_mut(&path) {
            existing.merge_operations(item);
        } else {
            doc.paths.paths.insert(path, item);
        }
    }
    doc.components
        .get_or_insert_with(Components::new)
        .schemas
        .extend(schemas);
}

/// The router under construction and how to document every route in it. Routes come in only
/// through `routes` (a `documented!` handler list) and `mcp`; there is deliberately no way to
/// add an undocumented one.
pub(crate) struct DocumentedRoutes {
    router: Router<AppState>,
    document: Vec<DocumentPart>,
}

impl DocumentedRoutes {
    pub(crate) fn new() -> Self {
        Self {
            router: Router::new(),
            document: Vec::new(),
        }
    }

    /// Handlers for one path, each registered under the method and path of its annotation.
    pub(crate) fn routes(mut self, routes: DocumentedMethodRouter) -> Self {
        for (path, handlers) in routes.routes {
            // Two lists on one path are merged by axum (it refuses a method given twice).
            self.router = self.router.route(&path, handlers);
        }
        self.document.push(routes.document);
        self
    }

    /// Steward's MCP server (rmcp's own router, speaking MCP's streamable HTTP) at `/mcp`,
    /// documented as one opaque entry.
    pub(crate) fn mcp(mut self, service: Router) -> Self {
        self.router = self.router.route_service(&__path_mcp::path(), service);
        self.document.push(document_mcp);
        self
    }

    /// The router with the document's own route, and the document, not yet built: it is
    /// built and encoded on the first `GET /api/v1/openapi.json` (or `ApiDocument::build`).
    pub(crate) fn finish(self) -> (Router<AppState>, ApiDocument) {
        let Self { router, document } = self.routes(documented!(openapi_json));
        let document = ApiDocument(Arc::new(LazyDocument {
            parts: document,
            json: OnceLock::new(),
        }));
        (router.layer(Extension(document.clone())), document)
    }
}

/// `/mcp`'s entries: one per method, each with its own operation id (ids must be unique).
fn document_mcp(doc: &mut OpenApi) {
    let path = __path_mcp::path();
    for method in __path_mcp::methods() {
        let mut operation = __path_mcp::operation();
        let name = match method {
            HttpMethod::Get => "get",
            HttpMethod::Post => "post",
            HttpMethod::Delete => "delete",
            _ => "other",
        };
        operation.operation_id = Some(format!("mcp_{name}"));
        doc.paths.add_path_operation(&path, vec![method], operation);
    }
}

/// The API document of one router: how to build it, and its JSON once first asked for.
#[derive(Clone)]
pub(crate) struct ApiDocument(Arc<LazyDocument>);

struct LazyDocument {
    parts: Vec<DocumentPart>,
    /// The encoded document; `None` inside when encoding failed (answered with a 500).
    json: OnceLock<Option<Bytes>>,
}

impl ApiDocument {
    /// The document: the frame, then every route's entries in registration order.
    pub(crate) fn build(&self) -> OpenApi {
        let mut doc = Frame::openapi();
        for part in &self.0.parts {
            part(&mut doc);
        }
        doc
    }

    /// The document's JSON, built and encoded on the first call and kept for the others.
    fn json(&self) -> Option<Bytes> {
        self.0
            .json
            .get_or_init(|| match self.build().to_json() {
                Ok(json) => Some(Bytes::from(json)),
                Err(e) => {
                    tracing::error!(error = %e, "could not encode the API document");
                    None
                }
            })
            .clone()
    }

    /// Has the document been built and encoded yet (for the test that it is not at start)?
    #[cfg(test)]
    fn is_encoded(&self) -> bool {
        self.0.json.get().is_some()
    }
}

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
async fn openapi_json(Extension(doc): Extension<ApiDocument>) -> Response {
    match doc.json() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use serde_json::Value;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// How often `Counted`'s schema was built: by `operation()` for an inline body, by
    /// `schemas()` for a referenced one. Only this module's test names `Counted`.
    static SCHEMA_BUILDS: AtomicUsize = AtomicUsize::new(0);

    struct Counted;

    impl utoipa::PartialSchema for Counted {
        fn schema() -> RefOr<Schema> {
            SCHEMA_BUILDS.fetch_add(1, Ordering::SeqCst);
            utoipa::openapi::ObjectBuilder::new().into()
        }
    }

    impl utoipa::ToSchema for Counted {}

    #[utoipa::path(get, path = "/test/counted", responses((status = 200, body = Counted)))]
    async fn counted_by_reference() {}

    #[utoipa::path(post, path = "/test/counted", responses((status = 200, body = inline(Counted))))]
    async fn counted_inline() {}

    async fn served(document: &ApiDocument) -> (StatusCode, Value) {
        let response = openapi_json(Extension(document.clone())).await;
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }

    #[tokio::test]
    async fn the_document_is_built_on_its_first_request_not_with_the_router() {
        let (_router, document) = DocumentedRoutes::new()
            .routes(documented!(counted_by_reference, counted_inline))
            .finish();
        assert_eq!(
            SCHEMA_BUILDS.load(Ordering::SeqCst),
            0,
            "building the router built the routes' document entries"
        );
        assert!(
            !document.is_encoded(),
            "the router came with its document encoded"
        );

        let (status, doc) = served(&document).await;
        assert_eq!(status, StatusCode::OK);
        assert!(document.is_encoded());
        let builds = SCHEMA_BUILDS.load(Ordering::SeqCst);
        assert!(builds >= 2, "{builds}: the reference and the inline body");
        let counted = &doc["paths"]["/test/counted"];
        assert!(
            counted["get"].is_object() && counted["post"].is_object(),
            "{doc}"
        );
        assert!(doc["paths"]["/api/v1/openapi.json"]["get"].is_object());
        assert!(doc["components"]["schemas"]["Counted"].is_object(), "{doc}");

        // Encoded once: the next request answers the same bytes without building again.
        let (status, again) = served(&document).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(again, doc);
        assert_eq!(SCHEMA_BUILDS.load(Ordering::SeqCst), builds);
    }

    #[test]
    fn building_the_document_again_gives_the_same_one() {
        // Without `Counted`: the test above counts its schema builds.
        let (_router, document) = DocumentedRoutes::new().mcp(Router::new()).finish();
        let first = document.build().to_json().unwrap();
        assert_eq!(document.build().to_json().unwrap(), first);
        assert!(first.contains("\"/mcp\"") && first.contains("get_openapi_document"));
        assert!(
            !document.is_encoded(),
            "build() is not the served, cached copy"
        );
    }
}
