//! Message parts in each wire format against the fake server: a photo, an audio clip and a
//! PDF sent as data in the shape each provider's API reference gives, an older message's part
//! sent as its text placeholder, and a part a model cannot take refused before any call.

use crate::fake::*;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_llm::{ChatRequest, LlmError, ModelRef, PartBytes, ProviderKind};
use steward_protocol::{FileName, Message, MimeType, PartKind, Upload};
use tokio_util::sync::CancellationToken;

const PHOTO: &[u8] = b"\x89PNG\r\n\x1a\n fake photo";
const AUDIO: &[u8] = b"RIFF fake audio";
const PDF: &[u8] = b"%PDF-1.7 fake";
/// base64 of the three above.
const PHOTO_B64: &str = "iVBORw0KGgogZmFrZSBwaG90bw==";
const AUDIO_B64: &str = "UklGRiBmYWtlIGF1ZGlv";
const PDF_B64: &str = "JVBERi0xLjcgZmFrZQ==";

fn upload(mime: &str, name: Option<&str>, data: &[u8]) -> Upload {
    Upload::new(
        MimeType::parse(mime).unwrap(),
        name.map(|n| FileName::parse(n).unwrap()),
        data.to_vec(),
    )
    .unwrap()
}

/// An older message with a photo whose bytes are not sent, then the current one with a
/// photo, an audio clip of `audio_mime` and a PDF, all sent as data.
fn request(audio_mime: &str) -> ChatRequest {
    let old = upload("image/jpeg", Some("old.jpg"), &[1u8; 2048]);
    let parts = [
        upload("image/png", Some("photo.png"), PHOTO),
        upload(audio_mime, Some("voice"), AUDIO),
        upload("application/pdf", Some("paper.pdf"), PDF),
    ];
    let mut bytes = PartBytes::default();
    for p in &parts {
        bytes.insert(p.attachment().blob().clone(), Arc::clone(p.data()));
    }
    ChatRequest {
        system: String::new(),
        messages: vec![
            Message::user_with("earlier", vec![old.attachment().clone()]),
            Message::assistant("A cat.", vec![]),
            Message::user_with(
                "what is this?",
                parts.iter().map(|p| p.attachment().clone()).collect(),
            ),
        ],
        tools: Vec::new(),
        max_output_tokens: Some(50),
        temperature: None,
        parts: bytes,
    }
}

async fn chat(kind: ProviderKind, name: &str, reply: Value, req: &ChatRequest) -> Value {
    let server = FakeServer::start(vec![Reply::ok(reply)]).await;
    let base = match kind {
        ProviderKind::OpenAi => format!("{}/v1", server.base),
        _ => server.base.clone(),
    };
    let model = ModelRef::parse(&format!("{name}:m")).unwrap();
    models(vec![config(name, kind, &base, false)])
        .chat(&model, None, req, None, &CancellationToken::new())
        .await
        .unwrap();
    server.requests()[0].body.clone()
}

#[tokio::test]
async fn openai_gets_image_url_input_audio_and_file_parts() {
    let reply = json!({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]});
    let body = chat(ProviderKind::OpenAi, "openai", reply, &request("audio/wav")).await;
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "earlier\n[image: old.jpg, 2 KB]"}]},
            {"role": "assistant", "content": "A cat."},
            {"role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PHOTO_B64}")}},
                {"type": "input_audio", "input_audio": {"data": AUDIO_B64, "format": "wav"}},
                {"type": "file", "file": {"filename": "paper.pdf", "file_data": format!("data:application/pdf;base64,{PDF_B64}")}},
            ]},
        ])
    );
}

#[tokio::test]
async fn anthropic_gets_image_and_document_blocks_with_base64_sources() {
    let mut req = request("audio/wav");
    // Anthropic takes no audio: this request carries the photo and the PDF only.
    req.messages[2].attachments.remove(1);
    let reply = json!({"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn"});
    let body = chat(ProviderKind::Anthropic, "anthropic", reply, &req).await;
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "earlier\n[image: old.jpg, 2 KB]"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "A cat."}]},
            {"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PHOTO_B64}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64}, "title": "paper.pdf"},
                {"type": "text", "text": "what is this?"},
            ]},
        ])
    );
}

#[tokio::test]
async fn anthropic_gets_a_plain_text_file_as_a_text_document() {
    let note = upload("text/plain", None, "shopping: milk".as_bytes());
    let mut bytes = PartBytes::default();
    bytes.insert(note.attachment().blob().clone(), Arc::clone(note.data()));
    let req = ChatRequest {
        messages: vec![Message::user_with("", vec![note.attachment().clone()])],
        parts: bytes,
        ..request("audio/wav")
    };
    let reply = json!({"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn"});
    let body = chat(ProviderKind::Anthropic, "anthropic", reply, &req).await;
    assert_eq!(
        body["messages"][0]["content"],
        json!([{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "shopping: milk"}}])
    );
}

#[tokio::test]
async fn gemini_gets_inline_data_parts() {
    let reply = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]});
    let body = chat(ProviderKind::Gemini, "gemini", reply, &request("audio/ogg")).await;
    assert_eq!(
        body["contents"],
        json!([
            {"role": "user", "parts": [{"text": "earlier\n[image: old.jpg, 2 KB]"}]},
            {"role": "model", "parts": [{"text": "A cat."}]},
            {"role": "user", "parts": [
                {"text": "what is this?"},
                {"inlineData": {"mimeType": "image/png", "data": PHOTO_B64}},
                {"inlineData": {"mimeType": "audio/ogg", "data": AUDIO_B64}},
                {"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}},
            ]},
        ])
    );
}

/// A part the model cannot take fails before any request, naming the model and the part.
#[tokio::test]
async fn a_part_the_model_cannot_take_is_refused_before_the_call() {
    let cases = [
        // Anthropic has no audio block; OpenAI's input_audio takes only wav and mp3.
        (
            ProviderKind::Anthropic,
            None,
            "audio/wav",
            "audio part voice (audio/wav)",
        ),
        (
            ProviderKind::OpenAi,
            None,
            "audio/ogg",
            "audio part voice (audio/ogg)",
        ),
        // An owner's text-only provider (`parts = "none"`).
        (
            ProviderKind::OpenAi,
            Some(vec![]),
            "audio/wav",
            "image part photo.png (image/png)",
        ),
        (
            ProviderKind::Gemini,
            Some(vec![PartKind::Image]),
            "audio/wav",
            "audio part voice (audio/wav)",
        ),
    ];
    for (kind, parts, audio, named) in cases {
        // Would answer, were it asked.
        let server = FakeServer::start(vec![Reply::status(500, "{}")]).await;
        let mut cfg = config("p", kind, &server.base, false);
        cfg.parts = parts;
        let model = ModelRef::parse("p:vision-less").unwrap();
        let m = models(vec![cfg]);
        let err = m
            .chat(
                &model,
                None,
                &request(audio),
                None,
                &CancellationToken::new(),
            )
            .await
            .unwrap_err();
        match &err {
            LlmError::Unsupported { .. } => {}
            other => panic!("{kind:?}: expected Unsupported, got {other:?}"),
        }
        let msg = err.to_string();
        assert!(
            msg.contains("p:vision-less") && msg.contains(named),
            "{msg}"
        );
        assert!(!err.is_retryable());
        assert!(server.requests().is_empty(), "{kind:?}: no request is sent");
        // The same check is what the assistant asks before it stores anything.
        let refused = &request(audio).messages[2].attachments;
        assert!(refused.iter().any(|a| m.check_part(&model, a).is_err()));
    }
}

/// A part whose bytes are not in the request goes as its placeholder, never as an error
/// (the model cannot read it, but it knows it was there).
#[tokio::test]
async fn a_part_without_its_bytes_is_a_placeholder_even_on_a_text_only_model() {
    let mut req = request("audio/wav");
    req.parts = PartBytes::default();
    let server = FakeServer::start(vec![Reply::ok(
        json!({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}),
    )])
    .await;
    let mut cfg = config(
        "p",
        ProviderKind::OpenAi,
        &format!("{}/v1", server.base),
        false,
    );
    cfg.parts = Some(Vec::new());
    models(vec![cfg])
        .chat(
            &ModelRef::parse("p:m").unwrap(),
            None,
            &req,
            None,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        server.requests()[0].body["messages"][2]["content"],
        json!([{"type": "text", "text": "what is this?\n[image: photo.png, 19 B]\n[audio: voice, 15 B]\n[file: paper.pdf, 13 B]"}])
    );
}
