//! `ToolError`: why a tool call did not produce a result. Owns the wording the model sees;
//! does not own the "error: " prefix or truncation (the registry adds those).

use std::time::Duration;

/// Every message here may be shown to the model, so it must say how to fix the call and
/// must never contain secrets or echo unbounded input.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// Arguments are not acceptable; the message is shown to the MODEL so it can fix its call.
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    /// The tool ran and failed; message shown to the model.
    #[error("{0}")]
    Failed(String),
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    #[error("the tool did not finish within {} ms and was stopped", .0.as_millis())]
    Timeout(Duration),
    #[error("a tool named `{0}` is already registered")]
    DuplicateName(String),
    /// An approved action whose effect is no longer what the owner saw (rows changed since
    /// the preview): nothing was changed; `preview` is the effect it would have now.
    #[error(
        "the effect changed since it was approved; nothing was changed. It would now: {preview}"
    )]
    EffectChanged { preview: String },
}
