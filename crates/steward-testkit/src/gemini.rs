//! Gemini generateContent wire format: `GenerateContentResponse` bodies, the
//! streamGenerateContent chunks (SSE with `alt=sse`, a streamed JSON array
//! without), the models list and the `{"error":{code,message,status}}` shape.
//!
//! Owns: Gemini JSON shapes. Does not own: routing, step handling or framing
//! mechanics (see `server`, `wire`).

use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use serde_json::{Value, json};

use crate::anthropic::input_value;
use crate::script::Reply;
use crate::wire::{self, Ctx};

const SSE: &str = "text/event-stream";
const JSON: &str = "application/json; charset=UTF-8";

fn response_id(ctx: &Ctx) -> String {
    format!("fake{:016x}", ctx.id)
}

fn full_usage(reply: &Reply) -> Value {
    json!({
        "promptTokenCount": reply.input_tokens,
        "candidatesTokenCount": reply.output_tokens,
        "totalTokenCount": reply.input_tokens + reply.output_tokens,
    })
}

fn call_part(name: &str, arguments: &str) -> Value {
    json!({"functionCall": {"name": name, "args": input_value(arguments)}})
}

/// One `GenerateContentResponse`. `finish` marks the last chunk of an answer.
fn response(ctx: &Ctx, parts: Vec<Value>, finish: bool, usage: Value) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if finish {
        candidate["finishReason"] = json!("STOP");
    }
    json!({
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": ctx.model,
        "responseId": response_id(ctx),
    })
}

fn whole(ctx: &Ctx, reply: &Reply) -> Value {
    let mut parts = Vec::new();
    if !reply.text.is_empty() || reply.tool_calls.is_empty() {
        parts.push(json!({"text": reply.text}));
    }
    for call in &reply.tool_calls {
        parts.push(call_part(&call.name, &call.arguments));
    }
    response(ctx, parts, true, full_usage(reply))
}

/// Frames chunks as SSE events or as elements of one JSON array.
fn frame(ctx: &Ctx, chunks: &[Value], close_array: bool) -> Vec<Bytes> {
    if ctx.sse {
        return chunks.iter().map(wire::crlf_data_event).collect();
    }
    let mut out: Vec<Bytes> = chunks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let sep = if i == 0 { "[" } else { ",\r\n" };
            Bytes::from(format!("{sep}{c}\n"))
        })
        .collect();
    if close_array {
        out.push(Bytes::from_static(b"]"));
    }
    out
}

fn content_type(ctx: &Ctx) -> &'static str {
    if ctx.sse { SSE } else { JSON }
}

/// Text pieces in separate chunks; the real service repeats the prompt count in
/// every chunk, so only the last chunk's usage is the answer's total.
fn text_chunks(ctx: &Ctx, text: &str, chunk_chars: usize, input_tokens: u64) -> Vec<Value> {
    let partial = json!({"promptTokenCount": input_tokens, "totalTokenCount": input_tokens});
    wire::pieces(text, chunk_chars)
        .into_iter()
        .map(|p| response(ctx, vec![json!({"text": p})], false, partial.clone()))
        .collect()
}

fn stream(ctx: &Ctx, reply: &Reply) -> Response {
    let mut chunks = text_chunks(ctx, &reply.text, reply.chunk_chars, reply.input_tokens);
    let partial =
        json!({"promptTokenCount": reply.input_tokens, "totalTokenCount": reply.input_tokens});
    for call in &reply.tool_calls {
        chunks.push(response(
            ctx,
            vec![call_part(&call.name, &call.arguments)],
            false,
            partial.clone(),
        ));
    }
    // The final chunk carries finishReason and the full usage.
    match chunks.last_mut() {
        Some(last) => {
            last["candidates"][0]["finishReason"] = json!("STOP");
            last["usageMetadata"] = full_usage(reply);
        }
        None => chunks.push(response(
            ctx,
            vec![json!({"text": ""})],
            true,
            full_usage(reply),
        )),
    }
    wire::streamed(content_type(ctx), frame(ctx, &chunks, true), false)
}

pub(crate) fn reply(ctx: &Ctx, reply: &Reply) -> Response {
    if ctx.streaming {
        stream(ctx, reply)
    } else {
        wire::json(StatusCode::OK, &whole(ctx, reply))
    }
}

pub(crate) fn broken(ctx: &Ctx, text: &str, chunk_chars: usize) -> Response {
    if ctx.streaming {
        let chunks = text_chunks(ctx, text, chunk_chars, 0);
        wire::streamed(content_type(ctx), frame(ctx, &chunks, false), true)
    } else {
        let body = whole(ctx, &Reply::text(text)).to_string();
        wire::streamed(JSON, vec![wire::truncated(body)], true)
    }
}

pub(crate) fn error_body(status: StatusCode, message: &str) -> Value {
    let name = match status.as_u16() {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        501 => "UNIMPLEMENTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        s if s >= 500 => "INTERNAL",
        _ => "FAILED_PRECONDITION",
    };
    json!({"error": {"code": status.as_u16(), "message": message, "status": name}})
}

fn model_entry(id: &str) -> Value {
    json!({
        "name": format!("models/{id}"),
        "version": "001",
        "displayName": id,
        "inputTokenLimit": 1_048_576,
        "outputTokenLimit": 8192,
        "supportedGenerationMethods": ["generateContent", "countTokens"],
    })
}

pub(crate) fn models(names: &[&str]) -> Response {
    let models: Vec<Value> = names.iter().map(|id| model_entry(id)).collect();
    wire::json(StatusCode::OK, &json!({"models": models}))
}

pub(crate) fn model(id: &str) -> Response {
    wire::json(StatusCode::OK, &model_entry(id))
}
