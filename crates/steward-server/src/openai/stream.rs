//! Streaming `chat.completion.chunk`s: a role chunk, one content chunk per `TextDelta` (and
//! per approval card, as an "[approval needed]" note), a
//! `finish_reason:"stop"` chunk, an optional usage chunk, then `data: [DONE]`. A failure
//! becomes a `data: {"error":…}` line followed by `[DONE]`.
//!
//! Owns: the chunk shapes and their order. Does not own: choosing the conversation or
//! submitting the turn (`mod.rs`). Tool progress is deliberately not sent: OpenAI clients
//! would misread it as assistant text.

use super::{approval_note, completion_id};
use crate::api::KEEP_ALIVE;
use crate::error::{VANISHED_MESSAGE, failure_kind_str};
use crate::turn::view_line;
use axum::http::HeaderValue;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::convert::Infallible;
use steward_core::TurnStream;
use steward_core::{Change, TurnEnd, TurnView};
use steward_protocol::{TurnId, Usage};

/// `created_secs`: when the stream began (every chunk carries the same `created`).
pub(super) fn response(
    rx: TurnStream,
    model: String,
    include_usage: bool,
    created_secs: i64,
) -> Response {
    let state = Chunker {
        rx,
        id: completion_id(None),
        created: created_secs,
        model,
        include_usage,
        role_sent: false,
        view: TurnView::default(),
    };
    let events = futures_util::stream::unfold(Some(state), step)
        .flat_map(futures_util::stream::iter)
        .map(Ok::<Event, Infallible>);
    let mut resp = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    resp.headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}

struct Chunker {
    rx: TurnStream,
    id: String,
    created: i64,
    model: String,
    include_usage: bool,
    role_sent: bool,
    /// The one fold every surface uses; chunks are painted from what it says changed.
    view: TurnView,
}

/// Produce the SSE lines for the next turn event. Returns `None` state once `[DONE]`
/// has been queued, which ends the stream on the following poll.
async fn step(state: Option<Chunker>) -> Option<(Vec<Event>, Option<Chunker>)> {
    let mut c = state?;
    loop {
        let Some(event) = c.rx.recv().await else {
            tracing::warn!("turn stream closed without a terminal event");
            let out = vec![error_line("internal", VANISHED_MESSAGE), done()];
            return Some((out, None));
        };
        let mut out = Vec::new();
        match c.view.apply(event) {
            Change::Started => {
                c.id = completion_id(c.view.turn_id.as_ref().map(TurnId::as_str));
                c.role_chunk(&mut out);
            }
            Change::Text(text) => {
                c.role_chunk(&mut out);
                if !text.is_empty() {
                    out.push(c.chunk(json!({"content": text}), None));
                }
            }
            Change::ToolStarted(_) => {}
            Change::ToolFinished(i) => {
                // Each call, with what it touched, on a line of its own in the content.
                c.role_chunk(&mut out);
                let line = format!("\n{}\n", view_line(&c.view.tools[i]));
                out.push(c.chunk(json!({"content": line}), None));
            }
            Change::Card(i) => {
                c.role_chunk(&mut out);
                // Text streamed after the card starts on a line of its own.
                let note = format!("{}\n", approval_note(&c.view.cards[i]));
                out.push(c.chunk(json!({"content": note}), None));
            }
            Change::Ended => match c.view.end.clone() {
                Some(TurnEnd::Final { usage, model, .. }) => {
                    c.role_chunk(&mut out);
                    c.model = model;
                    out.push(c.chunk(json!({}), Some("stop")));
                    if c.include_usage {
                        out.push(c.usage_chunk(usage));
                    }
                    out.push(done());
                    return Some((out, None));
                }
                Some(TurnEnd::Failed { kind, message, .. }) => {
                    out.push(error_line(failure_kind_str(kind), &message));
                    out.push(done());
                    return Some((out, None));
                }
                Some(TurnEnd::Vanished) | None => {
                    out.push(error_line("internal", VANISHED_MESSAGE));
                    out.push(done());
                    return Some((out, None));
                }
            },
        }
        if !out.is_empty() {
            return Some((out, Some(c)));
        }
    }
}

impl Chunker {
    /// The `delta:{role}` chunk, exactly once and before any content.
    fn role_chunk(&mut self, out: &mut Vec<Event>) {
        if !self.role_sent {
            self.role_sent = true;
            out.push(self.chunk(json!({"role": "assistant"}), None));
        }
    }

    fn chunk(&self, delta: Value, finish_reason: Option<&str>) -> Event {
        data(&json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }))
    }

    fn usage_chunk(&self, usage: Usage) -> Event {
        data(&json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [],
            "usage": {
                "prompt_tokens": usage.input_tokens,
                "completion_tokens": usage.output_tokens,
                "total_tokens": usage.total(),
            },
        }))
    }
}

fn data(value: &Value) -> Event {
    Event::default().data(value.to_string())
}

fn error_line(kind: &str, message: &str) -> Event {
    data(&json!({"error": {"message": message, "type": kind, "code": null}}))
}

fn done() -> Event {
    Event::default().data("[DONE]")
}
