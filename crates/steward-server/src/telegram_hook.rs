//! `POST /telegram/webhook`: where Telegram pushes updates in webhook mode. No bearer token
//! (Telegram cannot send one): the `X-Telegram-Bot-Api-Secret-Token` that `setWebhook` set is
//! the credential, compared before the body is read; a wrong or missing one is a 401 and
//! nothing is read or queued. The body (at most 1 MiB) goes to the `WebhookSink` port.
//!
//! Owns: the route and its order of checks. Does not own: the secret, decoding the update
//! or what happens to it (the binary implements the port with steward-telegram's
//! `WebhookReceiver`: allowlist, the update claimed once, the surface).

use crate::AppState;
use crate::error::ApiError;
use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};

/// The header Telegram sends the webhook's secret in.
pub const SECRET_HEADER: HeaderName = HeaderName::from_static("x-telegram-bot-api-secret-token");

/// The longest body taken (an update is a few KiB).
pub const MAX_WEBHOOK_BODY: usize = 1024 * 1024;

/// Webhook deliveries into the Telegram surface.
#[async_trait::async_trait]
pub trait WebhookSink: Send + Sync + 'static {
    /// Whether `offered` (the header's bytes, if one came) is the webhook's secret.
    fn secret_ok(&self, offered: Option<&[u8]>) -> bool;
    /// Take one delivery's body; `false` when it is not an update.
    async fn accept(&self, body: &[u8]) -> bool;
}

/// Telegram's webhook delivery.
#[utoipa::path(
    post,
    path = "/telegram/webhook",
    operation_id = "telegram_webhook",
    tag = "telegram",
    security(()),
    params(("X-Telegram-Bot-Api-Secret-Token" = String, Header, description = "The secret set with `setWebhook` (`telegram.webhook_secret`)")),
    request_body(content = Object, description = "A Telegram `Update` object", content_type = "application/json"),
    responses(
        (status = 200, description = "Taken (handled, dropped by the allowlist, or a duplicate)", body = Object),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, response = crate::apidoc::NotFound),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
    ),
)]
pub(crate) async fn deliver(State(state): State<AppState>, req: Request) -> Response {
    let Some(sink) = state.telegram_webhook.as_ref() else {
        return ApiError::new(StatusCode::NOT_FOUND, "not_found", "webhook mode is off")
            .into_response();
    };
    let mut offered = req.headers().get_all(&SECRET_HEADER).iter();
    let secret = match (offered.next(), offered.next()) {
        (Some(v), None) => Some(v.as_bytes()),
        _ => None,
    };
    if !sink.secret_ok(secret) {
        tracing::info!("refused a telegram webhook delivery without its secret");
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong webhook secret",
        )
        .into_response();
    }
    let body = match to_bytes(req.into_body(), MAX_WEBHOOK_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                "the update is larger than 1 MiB",
            )
            .into_response();
        }
    };
    if sink.accept(&body).await {
        (StatusCode::OK, axum::Json(serde_json::json!({}))).into_response()
    } else {
        ApiError::bad_request("the body is not a Telegram update").into_response()
    }
}
