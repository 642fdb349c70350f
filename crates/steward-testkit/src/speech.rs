//! The fake model server's speech routes, in OpenAI's audio wire format:
//! `POST /v1/audio/transcriptions` (multipart/form-data with `file` and `model`; answers
//! `{"text": <the scripted transcript>}`, 400 in OpenAI's error shape without either field)
//! and `POST /v1/audio/speech` (JSON `{model, input, voice, …}`; answers the scripted audio
//! bytes). Both are recorded apart from model requests (`FakeModel::speech_requests`), so a
//! test that asserts "no model call" is not confused by a transcription.
//!
//! Owns: these routes. Does not own: the form parsing (`multipart`), the recorded shape and
//! the script (`script`), the state (`state`).

use std::sync::Arc;

use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::multipart;
use crate::openai;
use crate::script::SpeechRequest;
use crate::state::Shared;
use crate::wire;

/// Largest upload the fake reads (a long voice note is a few megabytes).
const MAX_UPLOAD: usize = 32 * 1024 * 1024;
fn fail(status: StatusCode, message: &str) -> Response {
    wire::json(status, &openai::error_body(status, message))
}

async fn read(request: Request) -> Option<(String, Option<String>, Option<String>, Vec<u8>)> {
    let (parts, body) = request.into_parts();
    let header_text = |name: header::HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type = header_text(header::CONTENT_TYPE);
    let authorization = header_text(header::AUTHORIZATION);
    let bytes = to_bytes(body, MAX_UPLOAD).await.ok()?;
    Some((
        parts.uri.path().to_owned(),
        authorization,
        content_type,
        bytes.to_vec(),
    ))
}

pub(crate) async fn transcribe(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let Some((path, authorization, content_type, body)) = read(request).await else {
        return fail(StatusCode::BAD_REQUEST, "could not read request body");
    };
    let Some(form) = multipart::parse(content_type.as_deref().unwrap_or(""), &body) else {
        return fail(StatusCode::BAD_REQUEST, "expected multipart/form-data");
    };
    let complete = form
        .iter()
        .any(|p| p.name == "file" && p.filename.is_some())
        && form.iter().any(|p| p.name == "model");
    let (transcript, refusal) = shared.with_speech(|s| {
        s.requests.push(SpeechRequest {
            path,
            authorization,
            form,
            json: Value::Null,
        });
        (s.transcript.clone(), s.transcript_error.clone())
    });
    if let Some((status, message)) = refusal {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return fail(status, &message);
    }
    if !complete {
        return fail(StatusCode::BAD_REQUEST, "file and model are required");
    }
    wire::json(StatusCode::OK, &json!({ "text": transcript }))
}

pub(crate) async fn speak(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let Some((path, authorization, _, body)) = read(request).await else {
        return fail(StatusCode::BAD_REQUEST, "could not read request body");
    };
    let Ok(json) = serde_json::from_slice::<Value>(&body) else {
        return fail(
            StatusCode::BAD_REQUEST,
            "We could not parse the JSON body of your request.",
        );
    };
    let complete =
        json["input"].is_string() && json["model"].is_string() && json["voice"].is_string();
    let audio = shared.with_speech(|s| {
        s.requests.push(SpeechRequest {
            path,
            authorization,
            form: Vec::new(),
            json,
        });
        s.audio.clone()
    });
    if !complete {
        return fail(
            StatusCode::BAD_REQUEST,
            "model, input and voice are required",
        );
    }
    (StatusCode::OK, [(header::CONTENT_TYPE, "audio/ogg")], audio).into_response()
}
