//! Error responses: one JSON shape per API flavour, failure-kind → status mapping, and the
//! 404/405 fallbacks.
//!
//! Owns: how an error looks on the wire. Does not own: deciding that something is an
//! error (handlers and extract helpers do that).

use axum::Json;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use steward_protocol::FailureKind;
use utoipa::ToSchema;

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
    /// Sent as `x-should-retry` (which the OpenAI and Anthropic SDKs obey over the status):
    /// whether sending the same request again can help.
    retry: bool,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        // By default only what the status itself says is passing: overload and timeouts.
        let retry = matches!(
            status,
            StatusCode::TOO_MANY_REQUESTS
                | StatusCode::BAD_GATEWAY
                | StatusCode::SERVICE_UNAVAILABLE
                | StatusCode::GATEWAY_TIMEOUT
        );
        Self {
            status,
            kind,
            message: message.into(),
            flavor: Flavor::Steward,
            retry,
        }
    }

    /// The error for a failed turn: its status, and whether a retry can help from the turn.
    pub(crate) fn failed_turn(
        kind: FailureKind,
        message: impl Into<String>,
        retryable: bool,
    ) -> Self {
        Self {
            retry: retryable,
            ..Self::new(failure_status(kind), failure_kind_str(kind), message)
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
        let mut resp = match self.flavor {
            Flavor::Steward => {
                let error = ErrorDetail {
                    kind: self.kind,
                    message: self.message,
                };
                (self.status, Json(ErrorBody { error })).into_response()
            }
            Flavor::OpenAi => {
                let error = OpenAiErrorDetail {
                    message: self.message,
                    r#type: self.kind,
                    code: None,
                    kind: self.kind,
                };
                (self.status, Json(OpenAiErrorBody { error })).into_response()
            }
        };
        resp.headers_mut()
            .insert(SHOULD_RETRY, should_retry(self.retry));
        resp
    }
}

/// The Steward API's error body: `{"error":{"kind","message"}}`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ErrorBody {
    pub(crate) error: ErrorDetail,
}

#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ErrorDetail {
    /// What went wrong, as a word a client can match (`bad_request`, `not_found`, ...).
    #[schema(value_type = String)]
    pub(crate) kind: &'static str,
    /// A sentence safe to show a person.
    pub(crate) message: String,
}

/// The OpenAI API's error body, with Steward's `kind` beside OpenAI's `type` (the same word).
#[derive(Serialize, ToSchema)]
pub(crate) struct OpenAiErrorBody {
    pub(crate) error: OpenAiErrorDetail,
}

#[derive(Serialize, ToSchema)]
pub(crate) struct OpenAiErrorDetail {
    pub(crate) message: String,
    #[schema(value_type = String)]
    pub(crate) r#type: &'static str,
    /// Always null.
    pub(crate) code: Option<String>,
    #[schema(value_type = String)]
    pub(crate) kind: &'static str,
}

/// The retry hint header the OpenAI and Anthropic SDKs read before their status rules.
pub(crate) const SHOULD_RETRY: HeaderName = HeaderName::from_static("x-should-retry");

pub(crate) fn should_retry(retry: bool) -> HeaderValue {
    HeaderValue::from_static(if retry { "true" } else { "false" })
}

/// HTTP status for a failed turn.
pub(crate) fn failure_status(kind: FailureKind) -> StatusCode {
    match kind {
        FailureKind::NoModel | FailureKind::Shutdown | FailureKind::ModelConfig => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        FailureKind::Model => StatusCode::BAD_GATEWAY,
        // The provider understood and refused it: a client error, never a gateway's.
        FailureKind::ModelRejected => StatusCode::UNPROCESSABLE_ENTITY,
        FailureKind::Budget => StatusCode::GATEWAY_TIMEOUT,
        FailureKind::Store => StatusCode::INTERNAL_SERVER_ERROR,
        FailureKind::Input => StatusCode::BAD_REQUEST,
        // Understood, but this model cannot take it: sending it again will not help.
        FailureKind::Unsupported => StatusCode::UNPROCESSABLE_ENTITY,
        FailureKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        // Someone stopped the turn this request was waiting for.
        FailureKind::Cancelled => StatusCode::CONFLICT,
    }
}

/// Wire name of a failure kind (same spelling serde uses).
pub(crate) fn failure_kind_str(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::NoModel => "no_model",
        FailureKind::Model => "model",
        FailureKind::ModelRejected => "model_rejected",
        FailureKind::ModelConfig => "model_config",
        FailureKind::Budget => "budget",
        FailureKind::Store => "store",
        FailureKind::Shutdown => "shutdown",
        FailureKind::Input => "input",
        FailureKind::Cancelled => "cancelled",
        FailureKind::Unsupported => "unsupported",
        FailureKind::TooLarge => "too_large",
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
    use serde_json::json;

    #[test]
    fn kind_names_match_serde() {
        for kind in [
            FailureKind::NoModel,
            FailureKind::Model,
            FailureKind::ModelRejected,
            FailureKind::ModelConfig,
            FailureKind::Budget,
            FailureKind::Store,
            FailureKind::Shutdown,
            FailureKind::Input,
            FailureKind::Cancelled,
            FailureKind::Unsupported,
            FailureKind::TooLarge,
        ] {
            let serde_name = serde_json::to_value(kind).unwrap();
            assert_eq!(serde_name, json!(failure_kind_str(kind)));
        }
    }
}
