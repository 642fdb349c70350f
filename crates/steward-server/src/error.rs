//! Error responses: one JSON shape per API flavour, failure-kind → status mapping, and the
//! 404/405 fallbacks.
//!
//! Owns: how an error looks on the wire. Does not own: deciding that something is an
//! error (handlers and extract helpers do that).

use axum::Json;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use steward_protocol::FailureKind;

/// Which error shape a client expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `{"error":{"kind","message"}}`
    Steward,
    /// `{"error":{"message","type","code":null}}` plus `kind`, so OpenAI SDKs can parse it
    /// and Steward clients still find the same field everywhere.
    OpenAi,
}

impl Flavor {
    pub(crate) fn for_path(path: &str) -> Self {
        if path == "/v1" || path.starts_with("/v1/") {
            Flavor::OpenAi
        } else {
            Flavor::Steward
        }
    }
}

/// An error answered directly to the client. `message` must be safe to show: never a
/// header value, token or internal detail.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
    flavor: Flavor,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            kind,
            message: message.into(),
            flavor: Flavor::Steward,
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub(crate) fn too_large(message: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    pub(crate) fn flavor(mut self, flavor: Flavor) -> Self {
        self.flavor = flavor;
        self
    }

    #[cfg(test)]
    pub(crate) fn status(&self) -> StatusCode {
        self.status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = match self.flavor {
            Flavor::Steward => json!({"error": {"kind": self.kind, "message": self.message}}),
            Flavor::OpenAi => json!({"error": {
                "message": self.message,
                "type": self.kind,
                "code": null,
                "kind": self.kind,
            }}),
        };
        (self.status, Json(body)).into_response()
    }
}

/// HTTP status for a failed turn.
pub(crate) fn failure_status(kind: FailureKind) -> StatusCode {
    match kind {
        FailureKind::NoModel | FailureKind::Shutdown => StatusCode::SERVICE_UNAVAILABLE,
        FailureKind::Model => StatusCode::BAD_GATEWAY,
        FailureKind::Budget => StatusCode::GATEWAY_TIMEOUT,
        FailureKind::Store => StatusCode::INTERNAL_SERVER_ERROR,
        FailureKind::Input => StatusCode::BAD_REQUEST,
    }
}

/// Wire name of a failure kind (same spelling serde uses).
pub(crate) fn failure_kind_str(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::NoModel => "no_model",
        FailureKind::Model => "model",
        FailureKind::Budget => "budget",
        FailureKind::Store => "store",
        FailureKind::Shutdown => "shutdown",
        FailureKind::Input => "input",
    }
}

/// Shown when the assistant's channel closed before a terminal event.
pub(crate) const VANISHED_MESSAGE: &str = "the turn ended without a result";

pub(crate) async fn not_found(req: Request) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route")
        .flavor(Flavor::for_path(req.uri().path()))
}

pub(crate) async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("method {} is not allowed on this route", req.method()),
    )
    .flavor(Flavor::for_path(req.uri().path()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_match_serde() {
        for kind in [
            FailureKind::NoModel,
            FailureKind::Model,
            FailureKind::Budget,
            FailureKind::Store,
            FailureKind::Shutdown,
            FailureKind::Input,
        ] {
            let serde_name = serde_json::to_value(kind).unwrap();
            assert_eq!(serde_name, json!(failure_kind_str(kind)));
        }
    }
}
