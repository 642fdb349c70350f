//! One tracing span per request: method, route, status, conversation id, and the action or
//! grant id on approval routes.
//!
//! Owns: the span and the "request finished" event. Does not own: what handlers log.
//! Never records headers or bodies: the Authorization header carries the API token and
//! bodies carry the owner's messages and action arguments.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;
use tracing::field::Empty;

/// The route as the router matched it (`/api/v1/approvals/{id}/confirm`): a template from
/// our own route table, so a hostile path never lands in the logs verbatim, and every route
/// family is named without a second list to keep in step. Ids in the path are not part of
/// it; handlers record them once validated.
fn route_label(req: &Request) -> String {
    match req.extensions().get::<MatchedPath>() {
        Some(path) => path.as_str().to_owned(),
        None => "<unmatched>".to_owned(),
    }
}

pub(crate) async fn trace_request(req: Request, next: Next) -> Response {
    let span = tracing::info_span!(
        "http_request",
        method = %req.method(),
        route = route_label(&req),
        status = Empty,
        conversation = Empty,
        action = Empty,
        grant = Empty,
    );
    let resp = next.run(req).instrument(span.clone()).await;
    span.record("status", resp.status().as_u16());
    span.in_scope(|| tracing::info!("request finished"));
    resp
}

/// Attach the conversation id to the current request span.
pub(crate) fn record_conversation(id: &steward_protocol::ConversationId) {
    tracing::Span::current().record("conversation", id.as_str());
}

/// Attach a validated action id to the current request span (never its arguments).
pub(crate) fn record_action(id: &str) {
    tracing::Span::current().record("action", id);
}

/// Attach a validated grant id to the current request span.
pub(crate) fn record_grant(id: &str) {
    tracing::Span::current().record("grant", id);
}
