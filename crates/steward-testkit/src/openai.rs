//! OpenAI Chat Completions wire format: `chat.completion` bodies, the
//! `chat.completion.chunk` event stream ending in `data: [DONE]`, the models list
//! and the `{"error":{...}}` shape.
//!
//! Owns: OpenAI JSON shapes. Does not own: routing, step handling or framing
//! mechanics (see `server`, `wire`).

use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use serde_json::{Value, json};

use crate::script::Reply;
use crate::wire::{self, Ctx};

const SSE: &str = "text/event-stream; charset=utf-8";

fn completion_id(ctx: &Ctx) -> String {
    format!("chatcmpl-fake{:016x}", ctx.id)
}

fn call_id(ctx: &Ctx, index: usize) -> String {
    format!("call_fake{:016x}{index:04x}", ctx.id)
}

fn finish_reason(reply: &Reply) -> &'static str {
    if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }
}

fn usage(reply: &Reply) -> Value {
    json!({
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
    })
}

fn completion(ctx: &Ctx, reply: &Reply) -> Value {
    let content = if reply.text.is_empty() {
        Value::Null
    } else {
        Value::String(reply.text.clone())
    };
    let mut message = json!({"role": "assistant", "content": content, "refusal": null});
    if !reply.tool_calls.is_empty() {
        let calls: Vec<Value> = reply
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                json!({
                    "id": call_id(ctx, i),
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                })
            })
            .collect();
        message["tool_calls"] = Value::Array(calls);
    }
    json!({
        "id": completion_id(ctx),
        "object": "chat.completion",
        "created": wire::unix_now(),
        "model": ctx.model,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason(reply),
        }],
        "usage": usage(reply),
    })
}

/// Builds chunk events; every chunk carries the same id, created and model, and
/// `"usage": null` when usage was requested, as the real service does.
struct Chunks<'a> {
    ctx: &'a Ctx,
    id: String,
    created: u64,
    out: Vec<Bytes>,
}

impl<'a> Chunks<'a> {
    fn new(ctx: &'a Ctx) -> Chunks<'a> {
        Chunks {
            ctx,
            id: completion_id(ctx),
            created: wire::unix_now(),
            out: Vec::new(),
        }
    }

    fn envelope(&self, choices: Value) -> Value {
        let mut chunk = json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.ctx.model,
            "choices": choices,
        });
        if self.ctx.include_usage {
            chunk["usage"] = Value::Null;
        }
        chunk
    }

    fn delta(&mut self, delta: Value, finish: Option<&str>) {
        let choice =
            json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]);
        let chunk = self.envelope(choice);
        self.out.push(wire::data_event(&chunk));
    }

    /// Role and text pieces; shared by complete and cut streams.
    fn text(&mut self, text: &str, chunk_chars: usize, announce_role: bool) {
        if announce_role {
            self.delta(json!({"role": "assistant", "content": ""}), None);
        }
        for piece in wire::pieces(text, chunk_chars) {
            self.delta(json!({"content": piece}), None);
        }
    }
}

fn stream(ctx: &Ctx, reply: &Reply) -> Response {
    let mut chunks = Chunks::new(ctx);
    // With no text the real service announces the role together with the first
    // tool call, so a client must not depend on a separate role chunk.
    let role_with_call = reply.text.is_empty() && !reply.tool_calls.is_empty();
    chunks.text(&reply.text, reply.chunk_chars, !role_with_call);
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let mut head = json!({"tool_calls": [{
            "index": i,
            "id": call_id(ctx, i),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }]});
        if role_with_call && i == 0 {
            head["role"] = json!("assistant");
            head["content"] = Value::Null;
        }
        chunks.delta(head, None);
        for piece in wire::pieces(&call.arguments, reply.chunk_chars) {
            chunks.delta(
                json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
                None,
            );
        }
    }
    chunks.delta(json!({}), Some(finish_reason(reply)));
    if ctx.include_usage {
        let mut last = chunks.envelope(json!([]));
        last["usage"] = usage(reply);
        chunks.out.push(wire::data_event(&last));
    }
    chunks.out.push(Bytes::from_static(b"data: [DONE]\n\n"));
    wire::streamed(SSE, chunks.out, false)
}

pub(crate) fn reply(ctx: &Ctx, reply: &Reply) -> Response {
    if ctx.streaming {
        stream(ctx, reply)
    } else {
        wire::json(StatusCode::OK, &completion(ctx, reply))
    }
}

pub(crate) fn broken(ctx: &Ctx, text: &str, chunk_chars: usize) -> Response {
    if ctx.streaming {
        let mut chunks = Chunks::new(ctx);
        chunks.text(text, chunk_chars, true);
        wire::streamed(SSE, chunks.out, true)
    } else {
        let whole = completion(ctx, &Reply::text(text)).to_string();
        wire::streamed("application/json", vec![wire::truncated(whole)], true)
    }
}

pub(crate) fn error_body(status: StatusCode, message: &str) -> Value {
    let (kind, code) = match status.as_u16() {
        401 => ("invalid_request_error", json!("invalid_api_key")),
        403 => (
            "invalid_request_error",
            json!("unsupported_country_region_territory"),
        ),
        404 => ("invalid_request_error", json!("model_not_found")),
        429 => ("requests", json!("rate_limit_exceeded")),
        s if s >= 500 => ("server_error", Value::Null),
        _ => ("invalid_request_error", Value::Null),
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

pub(crate) fn models(names: &[&str]) -> Response {
    let data: Vec<Value> = names
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": 1_700_000_000u64, "owned_by": "steward-testkit"}))
        .collect();
    wire::json(StatusCode::OK, &json!({"object": "list", "data": data}))
}
