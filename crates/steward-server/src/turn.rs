//! Draining a turn's event stream into one outcome, for the non-streaming responses.
//!
//! Owns: folding `TurnEvent`s into `Collected`. Does not own: rendering it (api, openai).

use steward_core::TurnStream;
use steward_protocol::{FailureKind, TurnEvent, Usage};

/// How the turn ended.
pub(crate) enum End {
    Final {
        text: String,
        usage: Usage,
        model: String,
    },
    Failed {
        kind: FailureKind,
        message: String,
        retryable: bool,
    },
    /// The channel closed without a terminal event (a bug or a crash upstream).
    Vanished,
}

pub(crate) struct ToolSummary {
    pub(crate) name: String,
    pub(crate) ok: bool,
}

pub(crate) struct Collected {
    pub(crate) turn_id: Option<String>,
    pub(crate) tool_calls: Vec<ToolSummary>,
    pub(crate) end: End,
}

/// Read events until the terminal one (or until the channel closes).
pub(crate) async fn collect(mut rx: TurnStream) -> Collected {
    let mut turn_id = None;
    let mut tool_calls = Vec::new();
    while let Some(event) = rx.recv().await {
        match event {
            TurnEvent::Started { turn_id: id, .. } => turn_id = Some(id),
            TurnEvent::ToolFinished { name, ok, .. } => tool_calls.push(ToolSummary { name, ok }),
            TurnEvent::TextDelta { .. } | TurnEvent::ToolStarted { .. } => {}
            TurnEvent::Final { text, usage, model } => {
                return Collected {
                    turn_id,
                    tool_calls,
                    end: End::Final { text, usage, model },
                };
            }
            TurnEvent::Failed {
                kind,
                message,
                retryable,
            } => {
                return Collected {
                    turn_id,
                    tool_calls,
                    end: End::Failed {
                        kind,
                        message,
                        retryable,
                    },
                };
            }
        }
    }
    Collected {
        turn_id,
        tool_calls,
        end: End::Vanished,
    }
}
