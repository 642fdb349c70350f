//! Draining a turn's event stream into one outcome, for the non-streaming responses.
//!
//! Owns: folding `TurnEvent`s into `Collected`. Does not own: rendering it (api, openai).

use steward_core::TurnStream;
use steward_protocol::{ActionCard, FailureKind, TurnEvent, Usage};

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
    /// What the call touched (URL, SQL, MCP tool and argument), when the tool says.
    pub(crate) touched: Option<String>,
}

pub(crate) struct Collected {
    pub(crate) turn_id: Option<String>,
    pub(crate) tool_calls: Vec<ToolSummary>,
    /// Cards raised during the turn, in order: the caller must see that something awaits
    /// approval even when the reply text does not say so.
    pub(crate) approvals: Vec<ActionCard>,
    pub(crate) end: End,
}

/// How one tool call reads in plain text (the OpenAI-compatible content, logs).
pub(crate) fn tool_line(name: &str, ok: bool, touched: Option<&str>) -> String {
    let mark = if ok { "ok" } else { "failed" };
    match touched {
        Some(t) => format!("[tool] {name} ({mark}): {t}"),
        None => format!("[tool] {name} ({mark})"),
    }
}

/// Read events until the terminal one (or until the channel closes).
pub(crate) async fn collect(mut rx: TurnStream) -> Collected {
    let mut out = Collected {
        turn_id: None,
        tool_calls: Vec::new(),
        approvals: Vec::new(),
        end: End::Vanished,
    };
    let mut touched: std::collections::HashMap<String, String> = Default::default();
    while let Some(event) = rx.recv().await {
        match event {
            TurnEvent::Started { turn_id, .. } => out.turn_id = Some(turn_id),
            TurnEvent::ToolStarted {
                call_id,
                touched: Some(t),
                ..
            } => {
                touched.insert(call_id, t);
            }
            TurnEvent::ToolFinished {
                call_id, name, ok, ..
            } => {
                out.tool_calls.push(ToolSummary {
                    name,
                    ok,
                    touched: touched.remove(&call_id),
                });
            }
            TurnEvent::ApprovalRequired { card } => out.approvals.push(card),
            TurnEvent::TextDelta { .. } | TurnEvent::ToolStarted { .. } => {}
            TurnEvent::Final { text, usage, model } => {
                out.end = End::Final { text, usage, model };
                return out;
            }
            TurnEvent::Failed {
                kind,
                message,
                retryable,
            } => {
                out.end = End::Failed {
                    kind,
                    message,
                    retryable,
                };
                return out;
            }
        }
    }
    out
}
