//! `LlmError`: what can go wrong talking to a model, worded for the user, and which
//! failures are worth retrying.
//!
//! Owns: classification and user-facing messages. Does not own: the retry loop itself
//! (`models`) or mapping transport errors (`http`). Messages never carry keys or headers:
//! callers redact bodies before building an error.

use std::time::Duration;

/// Prefix of a `Decode` message for a stream that broke before producing anything; such
/// a call can safely be retried, so `is_retryable` keys on it.
pub(crate) const STREAM_CUT_BEFORE_OUTPUT: &str = "the answer stream broke before any output";

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("model configuration error: {0}")]
    Config(String),
    #[error("{}", http_message(provider, *status, message))]
    Http {
        provider: String,
        status: u16,
        /// Short excerpt of the error body, never headers or keys.
        message: String,
        retry_after: Option<Duration>,
    },
    #[error("model provider {provider} did not answer in time (request timeout)")]
    Timeout { provider: String },
    #[error("could not reach model provider {provider}: {message}")]
    Connect { provider: String, message: String },
    #[error("model provider {provider} sent an answer that could not be read: {message}")]
    Decode { provider: String, message: String },
    #[error("model call cancelled")]
    Cancelled,
    /// A message part the model cannot take (checked before any call): `part` names its kind,
    /// name and type.
    #[error(
        "{model} cannot take the {part}; send it to a model that takes it (providers.NAME.parts lists what a provider is sent), or describe it in words"
    )]
    Unsupported { model: String, part: String },
}

impl LlmError {
    /// Worth another attempt: rate limits, overload, server errors, timeouts, network
    /// failures, and a stream cut before any output. Not client errors, config or cancel.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Http { status, .. } => {
                matches!(*status, 408 | 409 | 425 | 429) || (500..=599).contains(status)
            }
            LlmError::Timeout { .. } | LlmError::Connect { .. } => true,
            LlmError::Decode { message, .. } => message.starts_with(STREAM_CUT_BEFORE_OUTPUT),
            LlmError::Config(_) | LlmError::Cancelled | LlmError::Unsupported { .. } => false,
        }
    }
}

/// The environment variable a user most likely has to fix for this provider.
pub(crate) fn key_env_var(provider: &str) -> Option<&'static str> {
    match provider {
        "openai" => Some("OPENAI_API_KEY"),
        "anthropic" => Some("ANTHROPIC_API_KEY"),
        "gemini" => Some("GEMINI_API_KEY"),
        _ => None,
    }
}

fn http_message(provider: &str, status: u16, message: &str) -> String {
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    let mut out = format!("model provider {provider} answered {status}");
    if !reason.is_empty() {
        out.push(' ');
        out.push_str(reason);
    }
    if !message.is_empty() {
        out.push_str(": ");
        out.push_str(message);
    }
    let hint = match status {
        401 | 403 => Some(match key_env_var(provider) {
            Some(var) => format!("check {var}"),
            None => format!("check the API key configured for provider {provider}"),
        }),
        404 => Some("check the model name and the provider's base URL".to_owned()),
        429 => Some("rate limited or out of quota".to_owned()),
        _ => None,
    };
    if let Some(hint) = hint {
        out.push_str(" — ");
        out.push_str(&hint);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> LlmError {
        LlmError::Http {
            provider: "openai".into(),
            status,
            message: "nope".into(),
            retry_after: None,
        }
    }

    #[test]
    fn classifies_statuses() {
        for s in [408, 409, 425, 429, 500, 502, 503, 529] {
            assert!(http(s).is_retryable(), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!http(s).is_retryable(), "{s}");
        }
        assert!(!LlmError::Cancelled.is_retryable());
        assert!(!LlmError::Config("x".into()).is_retryable());
        assert!(
            LlmError::Timeout {
                provider: "p".into()
            }
            .is_retryable()
        );
    }

    #[test]
    fn only_early_stream_cuts_are_retryable_decodes() {
        let early = LlmError::Decode {
            provider: "p".into(),
            message: format!("{STREAM_CUT_BEFORE_OUTPUT}: reset"),
        };
        let late = LlmError::Decode {
            provider: "p".into(),
            message: "the answer stream broke after output began".into(),
        };
        assert!(early.is_retryable());
        assert!(!late.is_retryable());
    }

    #[test]
    fn unauthorized_names_the_env_var() {
        let msg = http(401).to_string();
        assert!(msg.contains("401 Unauthorized"), "{msg}");
        assert!(msg.contains("OPENAI_API_KEY"), "{msg}");
        let custom = LlmError::Http {
            provider: "myproxy".into(),
            status: 403,
            message: String::new(),
            retry_after: None,
        };
        assert!(custom.to_string().contains("provider myproxy"));
    }
}
