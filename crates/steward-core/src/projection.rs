//! The one fold of a turn's events into what a surface shows (`TurnView`): the text, each tool
//! call with what it touched and how it ended, the cards raised, and how the turn ended. Every
//! surface projects through it — the HTTP JSON reply, the OpenAI reply and stream, the terminal
//! — so none keeps its own bookkeeping of calls and cards ("the client projects; no second
//! painter").
//!
//! Owns: the view and `apply`, which also says what changed so a streaming surface can paint
//! just that. Does not own any rendering (each surface words it its own way).

use crate::port::TurnStream;
use steward_protocol::{ActionCard, FailureKind, TurnEvent, TurnId, Usage};

/// How a tool call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    Running,
    Ok,
    Failed,
}

/// One tool call as surfaces show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolView {
    pub call_id: String,
    pub name: String,
    /// What the call touches, from the tool's own declaration (never the model's words).
    pub touched: Option<String>,
    pub status: ToolStatus,
    /// The result text (as shortened for display), once finished.
    pub output: Option<String>,
}

/// How the turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
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
    /// The stream closed without a terminal event (a bug or a crash upstream).
    Vanished,
}

/// What one event changed in the view.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Started,
    /// This text was appended to the streamed answer.
    Text(String),
    /// `tools[i]` started.
    ToolStarted(usize),
    /// `tools[i]` finished.
    ToolFinished(usize),
    /// `cards[i]` was raised.
    Card(usize),
    /// `end` is set: nothing follows.
    Ended,
}

/// A turn as every surface shows it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TurnView {
    pub turn_id: Option<TurnId>,
    /// The answer streamed so far; the whole answer once ended with `Final`.
    pub text: String,
    /// In the order they started.
    pub tools: Vec<ToolView>,
    /// In the order they were raised: the caller must see that something awaits approval
    /// even when the reply text does not say so.
    pub cards: Vec<ActionCard>,
    pub end: Option<TurnEnd>,
}

impl TurnView {
    /// Fold one event in; what it changed.
    pub fn apply(&mut self, event: TurnEvent) -> Change {
        match event {
            TurnEvent::Started { turn_id, .. } => {
                self.turn_id = Some(turn_id);
                Change::Started
            }
            TurnEvent::TextDelta { text } => {
                self.text.push_str(&text);
                Change::Text(text)
            }
            TurnEvent::ToolStarted {
                call_id,
                name,
                touched,
                ..
            } => {
                self.tools.push(ToolView {
                    call_id,
                    name,
                    touched,
                    status: ToolStatus::Running,
                    output: None,
                });
                Change::ToolStarted(self.tools.len() - 1)
            }
            TurnEvent::ToolFinished {
                call_id,
                name,
                ok,
                output,
            } => {
                let status = if ok {
                    ToolStatus::Ok
                } else {
                    ToolStatus::Failed
                };
                // A finish without its start (a replayed or trimmed stream) still shows.
                let i = match self
                    .tools
                    .iter()
                    .position(|t| t.call_id == call_id && t.status == ToolStatus::Running)
                {
                    Some(i) => i,
                    None => {
                        self.tools.push(ToolView {
                            call_id,
                            name,
                            touched: None,
                            status,
                            output: None,
                        });
                        self.tools.len() - 1
                    }
                };
                self.tools[i].status = status;
                self.tools[i].output = Some(output);
                Change::ToolFinished(i)
            }
            TurnEvent::ApprovalRequired { card } => {
                self.cards.push(card);
                Change::Card(self.cards.len() - 1)
            }
            TurnEvent::Final { text, usage, model } => {
                self.text = text.clone();
                self.end = Some(TurnEnd::Final { text, usage, model });
                Change::Ended
            }
            TurnEvent::Failed {
                kind,
                message,
                retryable,
            } => {
                self.end = Some(TurnEnd::Failed {
                    kind,
                    message,
                    retryable,
                });
                Change::Ended
            }
        }
    }

    /// The stream closed: without a terminal event the turn vanished.
    pub fn close(&mut self) {
        if self.end.is_none() {
            self.end = Some(TurnEnd::Vanished);
        }
    }

    /// The calls that finished, in start order.
    pub fn finished_tools(&self) -> impl Iterator<Item = &ToolView> {
        self.tools
            .iter()
            .filter(|t| t.status != ToolStatus::Running)
    }

    /// Read the whole stream into a view.
    pub async fn collect(mut rx: TurnStream) -> TurnView {
        let mut view = TurnView::default();
        while let Some(event) = rx.recv().await {
            if view.apply(event) == Change::Ended {
                return view;
            }
        }
        view.close();
        view
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use steward_protocol::ConversationId;

    #[test]
    fn the_fold_keeps_calls_with_what_they_touched_and_the_end() {
        let mut v = TurnView::default();
        let conv = ConversationId::parse("c").unwrap();
        let events = vec![
            TurnEvent::Started {
                conversation_id: conv,
                turn_id: TurnId::parse("t1").unwrap(),
            },
            TurnEvent::TextDelta {
                text: "Let me ".into(),
            },
            TurnEvent::ToolStarted {
                call_id: "a".into(),
                name: "fetch_url".into(),
                arguments: "{}".into(),
                touched: Some("https://example.org".into()),
            },
            TurnEvent::ToolFinished {
                call_id: "a".into(),
                name: "fetch_url".into(),
                ok: false,
                output: "refused".into(),
            },
            TurnEvent::ToolFinished {
                call_id: "orphan".into(),
                name: "calculate".into(),
                ok: true,
                output: "4".into(),
            },
        ];
        let changes: Vec<Change> = events.into_iter().map(|e| v.apply(e)).collect();
        assert_eq!(changes[2], Change::ToolStarted(0));
        assert_eq!(changes[3], Change::ToolFinished(0));
        assert_eq!(changes[4], Change::ToolFinished(1));
        assert_eq!(v.tools[0].touched.as_deref(), Some("https://example.org"));
        assert_eq!(v.tools[0].status, ToolStatus::Failed);
        assert_eq!(v.tools[1].status, ToolStatus::Ok);
        assert_eq!(v.text, "Let me ");
        v.close();
        assert_eq!(v.end, Some(TurnEnd::Vanished));
    }
}
