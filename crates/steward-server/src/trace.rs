//! One tracing span per request: method, route, status, conversation id, and the action or
//! grant id on approval routes.
//!
//! Owns: the span and the "request finished" event. Does not own: what handlers log.
//! Never records headers or bodies: the Authorization header carries the API token and
//! bodies carry the owner's messages and action arguments.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;
use tracing::field::Empty;

/// Routes as a fixed label, so a hostile path never lands in the logs verbatim. Ids in
/// the path are not part of the label; handlers record them once validated.
fn route_label(path: &str) -> &'static str {
    match path {
        "/health" => "/health",
        "/api/v1/messages" => "/api/v1/messages",
        "/api/v1/approvals" => "/api/v1/approvals",
        "/api/v1/grants" => "/api/v1/grants",
        "/v1/chat/completions" => "/v1/chat/completions",
        "/v1/models" => "/v1/models",
        _ => id_route_label(path),
    }
}

fn id_route_label(path: &str) -> &'static str {
    if let Some(rest) = path.strip_prefix("/api/v1/approvals/") {
        let mut parts = rest.split('/');
        let (_id, verb, extra) = (parts.next(), parts.next(), parts.next());
        return match (verb, extra) {
            (None, _) => "/api/v1/approvals/{id}",
            (Some("confirm"), None) => "/api/v1/approvals/{id}/confirm",
            (Some("cancel"), None) => "/api/v1/approvals/{id}/cancel",
            (Some("revise"), None) => "/api/v1/approvals/{id}/revise",
            _ => "<unmatched>",
        };
    }
    match path.strip_prefix("/api/v1/grants/") {
        Some(rest) if !rest.contains('/') => "/api/v1/grants/{id}",
        _ => "<unmatched>",
    }
}

pub(crate) async fn trace_request(req: Request, next: Next) -> Response {
    let span = tracing::info_span!(
        "http_request",
        method = %req.method(),
        route = route_label(req.uri().path()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_paths_get_a_fixed_label() {
        assert_eq!(route_label("/v1/models"), "/v1/models");
        assert_eq!(route_label("/../etc/passwd\u{202e}"), "<unmatched>");
        assert_eq!(
            route_label("/api/v1/approvals/abc/confirm"),
            "/api/v1/approvals/{id}/confirm"
        );
        assert_eq!(
            route_label("/api/v1/approvals/abc"),
            "/api/v1/approvals/{id}"
        );
        assert_eq!(route_label("/api/v1/approvals/a/b/c"), "<unmatched>");
        assert_eq!(route_label("/api/v1/approvals/a/explode"), "<unmatched>");
        assert_eq!(route_label("/api/v1/grants/g1"), "/api/v1/grants/{id}");
        assert_eq!(route_label("/api/v1/grants/g1/x"), "<unmatched>");
    }
}
