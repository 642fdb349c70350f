//! Anthropic Messages wire format: `message` bodies with text and `tool_use`
//! blocks, the named-event stream (message_start … message_stop), the models list
//! and the `{"type":"error",...}` shape.
//!
//! Owns: Anthropic JSON shapes. Does not own: routing, step handling or framing
//! mechanics (see `server`, `wire`).

use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use serde_json::{Value, json};

use crate::script::Reply;
use crate::wire::{self, Ctx};

const SSE: &str = "text/event-stream; charset=utf-8";

fn message_id(ctx: &Ctx) -> String {
    format!("msg_fake{:016x}", ctx.id)
}

fn tool_id(ctx: &Ctx, index: usize) -> String {
    format!("toolu_fake{:016x}{index:04x}", ctx.id)
}

fn stop_reason(reply: &Reply) -> &'static str {
    if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    }
}

/// Scripted arguments as an `input` value. Empty arguments mean "no arguments".
/// Arguments that are not JSON cannot be an object, so they are sent as a JSON
/// string: a shape violation a client must reject, like a broken server's.
pub(crate) fn input_value(arguments: &str) -> Value {
    if arguments.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()))
}

fn message(ctx: &Ctx, reply: &Reply) -> Value {
    let mut content = Vec::new();
    if !reply.text.is_empty() {
        content.push(json!({"type": "text", "text": reply.text}));
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        content.push(json!({
            "type": "tool_use",
            "id": tool_id(ctx, i),
            "name": call.name,
            "input": input_value(&call.arguments),
        }));
    }
    json!({
        "id": message_id(ctx),
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": stop_reason(reply),
        "stop_sequence": null,
        "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
    })
}

/// Builds the event sequence; the real service sends one `ping` right after the
/// first content block opens (or after message_start when there is none).
struct Events {
    out: Vec<Bytes>,
    next_block: usize,
    pinged: bool,
}

impl Events {
    fn start(ctx: &Ctx, input_tokens: u64) -> Events {
        let start = json!({"type": "message_start", "message": {
            "id": message_id(ctx),
            "type": "message",
            "role": "assistant",
            "model": ctx.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1},
        }});
        Events {
            out: vec![wire::named_event("message_start", &start)],
            next_block: 0,
            pinged: false,
        }
    }

    fn push(&mut self, name: &str, data: Value) {
        self.out.push(wire::named_event(name, &data));
    }

    fn ping_once(&mut self) {
        if !self.pinged {
            self.pinged = true;
            self.push("ping", json!({"type": "ping"}));
        }
    }

    /// Opens a block, sends its deltas and closes it unless `close` is false.
    fn block(&mut self, opening: Value, deltas: Vec<Value>, close: bool) {
        let index = self.next_block;
        self.next_block += 1;
        self.push(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": opening}),
        );
        self.ping_once();
        for delta in deltas {
            self.push(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            );
        }
        if close {
            self.push(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": index}),
            );
        }
    }
}

fn text_deltas(text: &str, chunk_chars: usize) -> Vec<Value> {
    wire::pieces(text, chunk_chars)
        .into_iter()
        .map(|p| json!({"type": "text_delta", "text": p}))
        .collect()
}

fn stream(ctx: &Ctx, reply: &Reply) -> Response {
    let mut events = Events::start(ctx, reply.input_tokens);
    if !reply.text.is_empty() {
        let deltas = text_deltas(&reply.text, reply.chunk_chars);
        events.block(json!({"type": "text", "text": ""}), deltas, true);
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let mut deltas: Vec<Value> = wire::pieces(&call.arguments, reply.chunk_chars)
            .into_iter()
            .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
            .collect();
        // A call without arguments still gets one empty delta, as the real service sends.
        if deltas.is_empty() {
            deltas.push(json!({"type": "input_json_delta", "partial_json": ""}));
        }
        let opening =
            json!({"type": "tool_use", "id": tool_id(ctx, i), "name": call.name, "input": {}});
        events.block(opening, deltas, true);
    }
    events.ping_once();
    events.push(
        "message_delta",
        json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(reply), "stop_sequence": null},
            "usage": {"output_tokens": reply.output_tokens},
        }),
    );
    events.push("message_stop", json!({"type": "message_stop"}));
    wire::streamed(SSE, events.out, false)
}

pub(crate) fn reply(ctx: &Ctx, reply: &Reply) -> Response {
    if ctx.streaming {
        stream(ctx, reply)
    } else {
        wire::json(StatusCode::OK, &message(ctx, reply))
    }
}

pub(crate) fn broken(ctx: &Ctx, text: &str, chunk_chars: usize) -> Response {
    if ctx.streaming {
        let mut events = Events::start(ctx, 0);
        let deltas = text_deltas(text, chunk_chars);
        events.block(json!({"type": "text", "text": ""}), deltas, false);
        wire::streamed(SSE, events.out, true)
    } else {
        let whole = message(ctx, &Reply::text(text)).to_string();
        wire::streamed("application/json", vec![wire::truncated(whole)], true)
    }
}

pub(crate) fn error_body(status: StatusCode, message: &str) -> Value {
    let kind = match status.as_u16() {
        400 => "invalid_request_error",
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        s if s >= 500 => "api_error",
        _ => "invalid_request_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

pub(crate) fn models(names: &[&str]) -> Response {
    let data: Vec<Value> = names
        .iter()
        .map(|id| json!({"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"}))
        .collect();
    let first = names.first().copied();
    let last = names.last().copied();
    wire::json(
        StatusCode::OK,
        &json!({"data": data, "has_more": false, "first_id": first, "last_id": last}),
    )
}
