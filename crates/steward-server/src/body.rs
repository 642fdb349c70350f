//! Turning a raw request body into a typed value with clear, JSON-shaped errors.
//!
//! Owns: the Content-Type check, the body-size error, malformed-vs-mistyped JSON, and the
//! message-text limits shared by both APIs, the `limit` and yes/no query rules every listing route uses. Does not own: the size limit itself (set by
//! `DefaultBodyLimit` in the router) or route-specific validation.

use crate::MAX_TEXT_BYTES;
use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderName, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::error::Category;
use steward_protocol::{ConversationId, RequestKey};

/// Parse a JSON body: 415 unless `Content-Type: application/json`, 413 beyond the body
/// limit, 400 for malformed JSON, 422 for JSON of the wrong shape. Every body is an object:
/// anything else is the wrong shape (serde would otherwise fill a struct from an array by
/// position, so `[true]` would pass for `{"read": true}`).
pub(crate) fn parse_json<T: DeserializeOwned>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    if !is_json(headers) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "expected Content-Type: application/json",
        ));
    }
    let bytes = read_bytes(body)?;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first.is_some_and(|b| *b != b'{')
        && serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok()
    {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_request",
            "invalid request body: invalid type: expected a JSON object",
        ));
    }
    serde_json::from_slice(&bytes).map_err(|err| match err.classify() {
        Category::Data => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_request",
            format!("invalid request body: {err}"),
        ),
        Category::Syntax | Category::Eof | Category::Io => {
            ApiError::bad_request(format!("malformed JSON: {err}"))
        }
    })
}

/// The body bytes, or 413 beyond the body limit / 400 when it could not be read.
pub(crate) fn read_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large("request body is larger than the configured limit")
        } else {
            ApiError::bad_request("could not read the request body")
        }
    })
}

pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
}

/// The turn text must have something in it and stay under `MAX_TEXT_BYTES`.
pub(crate) fn check_text(text: &str) -> Result<(), ApiError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(ApiError::too_large(format!(
            "text is longer than {MAX_TEXT_BYTES} bytes"
        )));
    }
    if text.trim().is_empty() {
        return Err(ApiError::bad_request("text must not be empty"));
    }
    Ok(())
}

/// Validate a caller-supplied conversation id; `what` names where it came from.
pub(crate) fn parse_conversation(raw: &str, what: &str) -> Result<ConversationId, ApiError> {
    ConversationId::parse(raw)
        .map_err(|err| ApiError::bad_request(format!("invalid {what}: {err}")))
}

/// `limit` from the query string: absent → `default`, else 1..=`max`.
pub(crate) fn parse_limit(
    raw: Option<&str>,
    default: usize,
    max: usize,
) -> Result<usize, ApiError> {
    let Some(raw) = raw else {
        return Ok(default);
    };
    match raw.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(ApiError::bad_request(format!(
            "limit must be a whole number from 1 to {max}"
        ))),
    }
}

/// A yes/no query parameter (`include_done`, `include_closed`): absent → false, else exactly
/// `true` or `false`.
pub(crate) fn flag(raw: Option<&str>, name: &str) -> Result<bool, ApiError> {
    match raw {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(ApiError::bad_request(format!(
            "{name} must be true or false"
        ))),
    }
}

/// Names a request so its retry is the same turn (as Stripe and the OpenAI SDKs use it).
pub(crate) const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// Longest accepted `Idempotency-Key`, in bytes.
const MAX_IDEMPOTENCY_KEY: usize = 255;

/// The request key from an `Idempotency-Key` header: 1..=255 visible ASCII characters
/// (400 otherwise, naming the header). Only its digest is kept.
pub(crate) fn idempotency_key(headers: &HeaderMap) -> Result<Option<RequestKey>, ApiError> {
    let Some(value) = headers.get(&IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    let bytes = value.as_bytes();
    if bytes.is_empty()
        || bytes.len() > MAX_IDEMPOTENCY_KEY
        || !bytes.iter().all(|b| b.is_ascii_graphic())
    {
        return Err(ApiError::bad_request(format!(
            "invalid Idempotency-Key header: use 1 to {MAX_IDEMPOTENCY_KEY} visible ASCII characters (a UUID is typical)"
        )));
    }
    let key = String::from_utf8_lossy(bytes);
    Ok(Some(steward_core::idempotency_key(&key)))
}

/// A new conversation id `<prefix>-<uuid>`.
pub(crate) fn fresh_conversation(prefix: &str) -> Result<ConversationId, ApiError> {
    let raw = format!("{prefix}-{}", uuid::Uuid::new_v4());
    // Cannot fail for the prefixes used here; mapped rather than unwrapped all the same.
    ConversationId::parse(&raw)
        .map_err(|_| ApiError::internal("could not create a conversation id"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ct(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(CONTENT_TYPE, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn accepts_json_content_types_only() {
        assert!(is_json(&ct("application/json")));
        assert!(is_json(&ct("Application/JSON; charset=utf-8")));
        assert!(!is_json(&ct("text/plain")));
        assert!(!is_json(&ct("application/jsonx")));
        assert!(!is_json(&HeaderMap::new()));
    }

    #[test]
    fn a_body_is_a_json_object_or_refused() {
        let parse = |raw: &'static str| {
            parse_json::<serde_json::Value>(&ct("application/json"), Ok(Bytes::from(raw)))
        };
        assert!(parse(" \n{\"a\": 1}").is_ok());
        for shape in ["[true]", "\"x\"", "5", "null", " [ ]"] {
            let err = parse(shape).unwrap_err();
            assert_eq!(err.status(), StatusCode::UNPROCESSABLE_ENTITY, "{shape}");
        }
        for malformed in ["[", "{", "", "nope"] {
            let err = parse(malformed).unwrap_err();
            assert_eq!(err.status(), StatusCode::BAD_REQUEST, "{malformed:?}");
        }
    }

    #[test]
    fn text_limits() {
        assert!(check_text("hi").is_ok());
        assert_eq!(
            check_text(" \n\t").unwrap_err().status(),
            StatusCode::BAD_REQUEST
        );
        assert!(check_text(&"a".repeat(MAX_TEXT_BYTES)).is_ok());
        assert_eq!(
            check_text(&"a".repeat(MAX_TEXT_BYTES + 1))
                .unwrap_err()
                .status(),
            StatusCode::PAYLOAD_TOO_LARGE
        );
    }

    #[test]
    fn limits_are_bounded() {
        assert_eq!(parse_limit(None, 7, 10).unwrap(), 7);
        assert_eq!(parse_limit(Some("10"), 7, 10).unwrap(), 10);
        for bad in ["0", "11", "-1", "x", ""] {
            assert!(parse_limit(Some(bad), 7, 10).is_err(), "{bad}");
        }
    }

    #[test]
    fn fresh_ids_are_valid_and_distinct() {
        let a = fresh_conversation("api").unwrap();
        let b = fresh_conversation("api").unwrap();
        assert!(a.as_str().starts_with("api-"));
        assert_ne!(a, b);
    }
}
