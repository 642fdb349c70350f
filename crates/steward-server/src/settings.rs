//! The runtime settings over HTTP: `GET /api/v1/settings`, `PUT|DELETE /api/v1/settings/{key}`
//! — what the app's Settings page reads and changes.
//!
//! Owns: the routes' shapes, the key and body checks, error statuses. Does not own: which
//! settings exist, their rules, where they are kept or how a change reaches the assistant
//! (steward-core's `SettingsDesk`, implemented by the binary over its config registry).
//! Secrets are never settable here and never returned: no runtime field is one.

use crate::AppState;
use crate::auth::Authenticated;
use crate::body::parse_json;
use crate::error::ApiError;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_core::{SettingKind, SettingSource, SettingView, SettingsDesk, SettingsError};

/// Longest key accepted in the path; real keys are far shorter.
const MAX_KEY_BYTES: usize = 64;
/// Longest value accepted; every runtime value (a model name, a zone, a number) is short.
const MAX_VALUE_BYTES: usize = 256;

/// `{"value": "Europe/Paris"}`; a number or a boolean is taken as its text.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetRequest {
    /// The new value: text, or a number or `true`/`false` (taken as its text).
    #[schema(value_type = crate::apidoc::schemas::SettingValue)]
    value: Value,
}

fn desk(state: &AppState) -> Result<&Arc<dyn SettingsDesk>, ApiError> {
    state.settings.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "settings cannot be changed on this server",
        )
    })
}

fn settings_error(e: SettingsError) -> ApiError {
    let message = e.to_string();
    match e {
        SettingsError::Unknown(_) => ApiError::new(StatusCode::NOT_FOUND, "not_found", message),
        SettingsError::Locked { .. } => ApiError::new(StatusCode::CONFLICT, "locked", message),
        SettingsError::Invalid { .. } => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_value", message)
        }
        SettingsError::Forbidden => ApiError::new(StatusCode::FORBIDDEN, "forbidden", message),
        SettingsError::Store(_) => {
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
        }
    }
}

/// A key as the registry spells them (`agent.max_rounds`); anything else cannot name one.
fn check_key(key: &str) -> Result<(), ApiError> {
    let ok = !key.is_empty()
        && key.len() <= MAX_KEY_BYTES
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "there is no such setting",
        ))
    }
}

fn view_json(v: &SettingView) -> Value {
    let (kind, min, max) = match v.kind {
        SettingKind::Text => ("text", None, None),
        SettingKind::Integer { min, max } => ("integer", Some(min), Some(max)),
        SettingKind::Boolean => ("boolean", None, None),
        SettingKind::Model => ("model", None, None),
        SettingKind::Timezone => ("timezone", None, None),
    };
    let source = match v.source {
        SettingSource::Default => "default",
        SettingSource::File => "file",
        SettingSource::Env => "env",
        SettingSource::Runtime => "app",
    };
    json!({
        "key": v.key,
        "value": v.value,
        "fallback": v.fallback,
        "source": source,
        "kind": kind,
        "min": min,
        "max": max,
        "help": v.help,
        "rule": v.rule,
        "locked_by": v.locked_by,
    })
}

/// The settings that can change while Steward runs, each with its value, where the value comes
/// from, the rule it must follow and, when an environment variable fixes it, that variable.
#[utoipa::path(
    get,
    path = "/api/v1/settings",
    operation_id = "list_settings",
    tag = "settings",
    responses(
        (status = 200, description = "The runtime-settable settings (never a secret)", body = crate::apidoc::schemas::SettingList),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 403, description = "Only the owner may read or change settings (`forbidden`)", body = crate::error::ErrorBody),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
) -> Result<Json<Value>, ApiError> {
    let views = desk(&state)?.list(&who).await.map_err(settings_error)?;
    Ok(Json(
        json!({"settings": views.iter().map(view_json).collect::<Vec<_>>()}),
    ))
}

/// Set a value: checked by the setting's own rule (the one a config file meets), in force from
/// the next message, kept in the database across restarts.
#[utoipa::path(
    put,
    path = "/api/v1/settings/{key}",
    operation_id = "set_setting",
    tag = "settings",
    params(("key" = String, Path, description = "The setting's key, e.g. `timezone` or `agent.max_rounds`")),
    request_body(content = SetRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The setting as it is now", body = crate::apidoc::schemas::Setting),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 403, description = "Only the owner may change settings (`forbidden`)", body = crate::error::ErrorBody),
        (status = 404, description = "No such setting, or one read only at start (`not_found`)", body = crate::error::ErrorBody),
        (status = 409, description = "An environment variable fixes this setting (`locked`); the message names it", body = crate::error::ErrorBody),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 415, response = crate::apidoc::UnsupportedMediaType),
        (status = 422, description = "The value breaks the setting's rule (`invalid_value`, the message says how) or the body has the wrong shape (`invalid_request`)", body = crate::error::ErrorBody),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn put(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    Path(key): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    check_key(&key)?;
    let req: SetRequest = parse_json(&headers, body)?;
    let text = match req.value {
        Value::String(s) => s,
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_request",
                "value must be a string, a number or true/false; to go back to the file's value, DELETE the setting",
            ));
        }
    };
    if text.len() > MAX_VALUE_BYTES {
        return Err(ApiError::too_large(format!(
            "a setting's value must be at most {MAX_VALUE_BYTES} bytes"
        )));
    }
    let view = desk(&state)?
        .set(&who, &key, &text)
        .await
        .map_err(settings_error)?;
    Ok(Json(view_json(&view)))
}

/// Drop the value set at runtime: the config file's (or the default) is in force again from
/// the next message.
#[utoipa::path(
    delete,
    path = "/api/v1/settings/{key}",
    operation_id = "reset_setting",
    tag = "settings",
    params(("key" = String, Path, description = "The setting's key")),
    responses(
        (status = 200, description = "The setting as it is now", body = crate::apidoc::schemas::Setting),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 403, description = "Only the owner may change settings (`forbidden`)", body = crate::error::ErrorBody),
        (status = 404, description = "No such setting (`not_found`)", body = crate::error::ErrorBody),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn reset(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    Path(key): Path<String>,
) -> Result<Json<Value>, ApiError> {
    check_key(&key)?;
    let view = desk(&state)?
        .reset(&who, &key)
        .await
        .map_err(settings_error)?;
    Ok(Json(view_json(&view)))
}
