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
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetRequest {
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

pub(crate) async fn list(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
) -> Result<Json<Value>, ApiError> {
    let views = desk(&state)?.list(&who).await.map_err(settings_error)?;
    Ok(Json(
        json!({"settings": views.iter().map(view_json).collect::<Vec<_>>()}),
    ))
}

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
