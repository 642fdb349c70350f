//! What a Bot API call can fail with.
//!
//! Owns: `TelegramError` and the facts the poller's backoff reads from it (`retry_after`,
//! whether the server or the network failed). Does not own: the decision how long to wait
//! (`backoff`). No variant carries the request URL, a request body or a response body: the
//! URL holds the bot token and the bodies hold people's messages.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TelegramError {
    /// The request never got an HTTP answer (refused, reset, timed out). The text is the
    /// HTTP stack's, without the URL and with the token scrubbed.
    #[error("the Bot API could not be reached: {0}")]
    Transport(String),
    /// The Bot API's own error object (`{"ok":false,"error_code":…}`).
    #[error("the Bot API refused {method}: {code} {description}")]
    Api {
        method: String,
        code: u16,
        description: String,
        /// `parameters.retry_after`: seconds to wait before the next request (flood control).
        retry_after: Option<u64>,
    },
    /// An HTTP error status whose body is not the Bot API's JSON (a proxy's 502 page).
    #[error("the Bot API answered {method} with HTTP {status} and no error object")]
    Status { method: String, status: u16 },
    /// A success answer that is not the shape the method returns; the reason names the place,
    /// never the content.
    #[error("the Bot API's answer to {method} did not decode: {reason}")]
    Decode { method: String, reason: String },
    /// A request body that would not encode (a bug, not an outage).
    #[error("the {method} request did not encode")]
    Encode { method: String },
    /// The HTTP client could not be built (no TLS provider installed, say).
    #[error("the Bot API client could not be built: {0}")]
    Client(String),
    /// frankenstein's upload from a file path: files go up from memory instead
    /// (`request_multipart`), never from a path on this machine.
    #[error("uploading a file from a path is not supported ({method}); files are sent from memory")]
    UploadUnsupported { method: String },
    /// `getFile` named a path that is not a plain relative one (`..`, a leading `/`, odd
    /// characters): nothing is downloaded from it.
    #[error("the Bot API named a file path that is not a plain relative path")]
    BadFilePath,
    /// A file past the size allowed: refused from its declared size before the download, or
    /// cut off as soon as the bytes read pass it.
    #[error("the file is larger than the {limit} bytes allowed")]
    FileTooLarge { limit: u64 },
}

/// How a failed call should be retried, as far as the error tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// Flood control: the server named the wait.
    RetryAfter(Duration),
    /// Network trouble or a server-side error (5xx): back off and try again.
    Transient,
    /// The request itself was refused (4xx other than 429): retrying the same request soon
    /// will not help, but the loop still must not stop; it backs off like a transient error.
    Refused,
}

impl TelegramError {
    /// The retry class of this error.
    pub fn kind(&self) -> FailureKind {
        match self {
            TelegramError::Api {
                retry_after: Some(secs),
                ..
            } => FailureKind::RetryAfter(Duration::from_secs(*secs)),
            TelegramError::Api { code, .. } | TelegramError::Status { status: code, .. }
                if *code >= 500 || *code == 429 =>
            {
                FailureKind::Transient
            }
            TelegramError::Transport(_) | TelegramError::Decode { .. } => FailureKind::Transient,
            _ => FailureKind::Refused,
        }
    }
}
