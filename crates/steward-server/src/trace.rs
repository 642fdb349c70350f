//! One tracing span per request: method, route, status, conversation id.
//!
//! Owns: the span and the "request finished" event. Does not own: what handlers log.
//! Never records headers or bodies: the Authorization header carries the API token and
//! bodies carry the owner's messages.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;
use tracing::field::Empty;

/// Routes as a fixed label, so a hostile path never lands in the logs verbatim.
fn route_label(path: &str) -> &'static str {
    match path {
        "/health" => "/health",
        "/api/v1/messages" => "/api/v1/messages",
        "/v1/chat/completions" => "/v1/chat/completions",
        "/v1/models" => "/v1/models",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_paths_get_a_fixed_label() {
        assert_eq!(route_label("/v1/models"), "/v1/models");
        assert_eq!(route_label("/../etc/passwd\u{202e}"), "<unmatched>");
    }
}
