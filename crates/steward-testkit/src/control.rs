//! The fake model's control routes, so a test written in another language (the browser tests
//! in Node) scripts it the way a Rust test does with `FakeModel::push`:
//!
//! - `POST /_fake/steps` `{"steps": [Step, ...]}` queues steps (the JSON form in `script`);
//!   200 `{"queued": N}`.
//! - `PUT /_fake/default` `Reply` sets the reply used when the queue is empty; 204.
//! - `POST /_fake/reset` empties the queue and the logs (the speech routes' too) and restores
//!   the defaults; 204.
//! - `GET /_fake/requests` `{"requests": [...]}`: each recorded model request (format, path,
//!   query with credentials masked, streaming, model, body); headers are left out, since they
//!   carry the client's API key.
//!
//! Errors are `{"error": {"message"}}`: 400 for a body that is not JSON, 422 for JSON that is
//! not a script (unknown fields included), 413 past the body or step limits.
//!
//! Owns: these routes and their limits. Does not own: the queue (`state`) or the JSON form
//! of a step (`script`).

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post, put};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::script::{RecordedRequest, Reply, Step, redact_query};
use crate::state::Shared;
use crate::wire;

/// Larger control bodies are refused (413): a script is a few kilobytes.
pub(crate) const MAX_CONTROL_BODY: usize = 1024 * 1024;
/// Most steps one request may queue.
pub(crate) const MAX_STEPS: usize = 1000;
/// Longest `delay` a script may ask for: a test never needs more, and a typo must not park a
/// request for days.
pub(crate) const MAX_DELAY_MS: u64 = 10 * 60 * 1000;
/// Longest wait between two streamed pieces.
pub(crate) const MAX_CHUNK_DELAY_MS: u64 = 10_000;

pub(crate) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/_fake/steps", post(push_steps))
        .route("/_fake/default", put(set_default))
        .route("/_fake/reset", post(reset))
        .route("/_fake/requests", get(requests))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepsRequest {
    steps: Vec<Step>,
}

async fn push_steps(State(shared): State<Arc<Shared>>, body: Body) -> Response {
    let req: StepsRequest = match read_json(body).await {
        Ok(req) => req,
        Err(resp) => return resp,
    };
    if req.steps.len() > MAX_STEPS {
        let message = format!("at most {MAX_STEPS} steps per request");
        return fail(StatusCode::PAYLOAD_TOO_LARGE, &message);
    }
    if let Some(problem) = req.steps.iter().find_map(step_problem) {
        return fail(StatusCode::UNPROCESSABLE_ENTITY, &problem);
    }
    let queued = req.steps.len();
    shared.push(req.steps);
    wire::json(StatusCode::OK, &json!({ "queued": queued }))
}

async fn set_default(State(shared): State<Arc<Shared>>, body: Body) -> Response {
    let reply: Reply = match read_json(body).await {
        Ok(reply) => reply,
        Err(resp) => return resp,
    };
    if let Some(problem) = reply_problem(&reply) {
        return fail(StatusCode::UNPROCESSABLE_ENTITY, &problem);
    }
    shared.set_default(reply);
    no_content()
}

async fn reset(State(shared): State<Arc<Shared>>) -> Response {
    shared.reset();
    no_content()
}

async fn requests(State(shared): State<Arc<Shared>>) -> Response {
    let list: Vec<Value> = shared.requests().iter().map(request_json).collect();
    wire::json(StatusCode::OK, &json!({ "requests": list }))
}

fn request_json(r: &RecordedRequest) -> Value {
    json!({
        "format": r.format.as_str(),
        "path": r.path,
        "query": r.query.as_deref().map(redact_query),
        "streaming": r.streaming,
        "model": r.model,
        "body": r.body,
    })
}

/// What is wrong with a step past its shape (a wait over the limits), if anything.
fn step_problem(step: &Step) -> Option<String> {
    match step {
        Step::Delay { ms, then } => {
            if *ms > MAX_DELAY_MS {
                Some(format!("delay ms must be at most {MAX_DELAY_MS}"))
            } else {
                step_problem(then)
            }
        }
        Step::Reply(reply) => reply_problem(reply),
        Step::Error { status, .. } if !(100..=999).contains(status) => {
            Some("error status must be an HTTP status (100-999)".to_owned())
        }
        _ => None,
    }
}

fn reply_problem(reply: &Reply) -> Option<String> {
    (reply.chunk_delay_ms > MAX_CHUNK_DELAY_MS)
        .then(|| format!("chunk_delay_ms must be at most {MAX_CHUNK_DELAY_MS}"))
}

async fn read_json<T: serde::de::DeserializeOwned>(body: Body) -> Result<T, Response> {
    let Ok(bytes) = to_bytes(body, MAX_CONTROL_BODY).await else {
        let message = format!("control bodies are at most {MAX_CONTROL_BODY} bytes");
        return Err(fail(StatusCode::PAYLOAD_TOO_LARGE, &message));
    };
    serde_json::from_slice(&bytes).map_err(|e| {
        let status = match e.classify() {
            serde_json::error::Category::Data => StatusCode::UNPROCESSABLE_ENTITY,
            _ => StatusCode::BAD_REQUEST,
        };
        fail(status, &format!("not a script: {e}"))
    })
}

fn fail(status: StatusCode, message: &str) -> Response {
    wire::json(status, &json!({ "error": { "message": message } }))
}

fn no_content() -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Result<Vec<Step>, serde_json::Error> {
        serde_json::from_str::<StepsRequest>(raw).map(|r| r.steps)
    }

    #[test]
    fn the_json_form_covers_every_step() {
        let steps = parse(
            r#"{"steps": [
                {"reply": {"text": "hi", "chunk_chars": 2, "chunk_delay_ms": 5}},
                {"reply": {"tool_calls": [{"name": "db_query", "arguments": "{\"sql\":\"x\"}"}]}},
                {"error": {"status": 503, "message": "busy", "retry_after": "1"}},
                {"error": {"status": 500, "message": "boom"}},
                {"delay": {"ms": 10, "then": "hang"}},
                {"broken_stream": {"text": "cut"}}
            ]}"#,
        )
        .unwrap();
        assert_eq!(
            steps,
            [
                Step::Reply(Reply::text("hi").with_chunk_chars(2).with_chunk_delay_ms(5)),
                Step::Reply(Reply::tool_call("db_query", r#"{"sql":"x"}"#)),
                Step::Error {
                    status: 503,
                    message: "busy".into(),
                    retry_after: Some("1".into())
                },
                Step::error(500, "boom"),
                Step::delay(10, Step::Hang),
                Step::BrokenStream { text: "cut".into() },
            ]
        );
    }

    #[test]
    fn unknown_fields_and_variants_are_refused() {
        assert!(parse(r#"{"steps": [{"reply": {"txt": "typo"}}]}"#).is_err());
        assert!(parse(r#"{"steps": [{"explode": {}}]}"#).is_err());
        assert!(parse(r#"{"steps": [], "extra": 1}"#).is_err());
        assert!(parse(r#"{"steps": [{"delay": {"ms": 1}}]}"#).is_err());
    }

    #[test]
    fn waits_past_the_limits_are_named() {
        let long = Step::delay(MAX_DELAY_MS + 1, Reply::text("x"));
        assert!(step_problem(&long).unwrap().contains("delay ms"));
        let nested = Step::delay(
            1,
            Reply::text("x").with_chunk_delay_ms(MAX_CHUNK_DELAY_MS + 1),
        );
        assert!(step_problem(&nested).unwrap().contains("chunk_delay_ms"));
        assert!(step_problem(&Step::delay(MAX_DELAY_MS, Step::Hang)).is_none());
        assert!(step_problem(&Step::error(42, "x")).is_some());
    }
}
