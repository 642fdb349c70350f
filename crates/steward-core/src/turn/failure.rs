//! Why a turn failed (`Failure`), and the one mapping of model and store errors, cancels and
//! shutdowns onto `FailureKind`s.
//!
//! Owns: those mappings. Does not own: the wire status of each kind (surfaces) or when a
//! turn fails (`turn`).

use steward_llm::LlmError;
use steward_protocol::{FailureKind, TurnEvent};
use tokio_util::sync::CancellationToken;

pub(crate) struct Failure {
    pub(crate) kind: FailureKind,
    pub(crate) message: String,
    pub(crate) retryable: bool,
}

impl Failure {
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            retryable: false,
        }
    }
}

impl From<LlmError> for Failure {
    fn from(e: LlmError) -> Self {
        match e {
            LlmError::Cancelled => Failure {
                kind: FailureKind::Shutdown,
                message: "The turn was cancelled because Steward is shutting down.".into(),
                retryable: true,
            },
            other => {
                let retryable = other.is_retryable();
                let kind = match &other {
                    LlmError::Config(_) => FailureKind::ModelConfig,
                    LlmError::Unsupported { .. } => FailureKind::Unsupported,
                    LlmError::Http {
                        status: 401 | 403 | 404,
                        ..
                    } => FailureKind::ModelConfig,
                    LlmError::Http { status, .. } if (400..500).contains(status) && !retryable => {
                        FailureKind::ModelRejected
                    }
                    _ => FailureKind::Model,
                };
                Failure {
                    kind,
                    retryable,
                    message: other.to_string(),
                }
            }
        }
    }
}

impl From<steward_store::StoreError> for Failure {
    fn from(e: steward_store::StoreError) -> Self {
        // The detail goes to the log; the user gets a generic message.
        tracing::error!(error = %e, "store failure during turn");
        Failure {
            kind: FailureKind::Store,
            message: "Steward could not read or save this conversation; see the server log.".into(),
            // A busy database or a storage hiccup may pass; corrupt data or a refused write
            // will not, so a client should not resend the same turn for those.
            retryable: e.is_transient(),
        }
    }
}

pub(crate) fn failed(f: Failure) -> TurnEvent {
    TurnEvent::Failed {
        kind: f.kind,
        message: f.message,
        retryable: f.retryable,
    }
}

/// The failure of a turn whose token was cancelled: shutdown, or the owner's `cancel`.
pub(crate) fn stopped(hard_stop: &CancellationToken) -> Failure {
    if hard_stop.is_cancelled() {
        Failure {
            kind: FailureKind::Shutdown,
            message: "The turn was cancelled because Steward is shutting down.".into(),
            retryable: true,
        }
    } else {
        Failure::new(FailureKind::Cancelled, "The turn was stopped.")
    }
}
