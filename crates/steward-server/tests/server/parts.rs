//! Message parts on `POST /api/v1/messages`: base64 in JSON reaches the assistant as uploads
//! with their bytes; malformed base64, a media type off the list, a hostile name, a kind
//! that lies and a forged hash are 400; a part past the limits is 413 before it is decoded;
//! nothing refused ever reaches the assistant (which is what stores).

use crate::support::{Fake, TOKEN, json_of, start, start_with};
use base64::Engine as _;
use serde_json::{Value, json};
use steward_protocol::{BlobRef, FailureKind, PartLimits};
use steward_server::ServerConfig;

const MESSAGES: &str = "/api/v1/messages";
const PHOTO: &[u8] = b"\x89PNG\r\n\x1a\n photo";
const AUDIO: &[u8] = b"OggS voice";

fn b64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

fn photo() -> Value {
    json!({"kind": "image", "mime_type": "image/png", "name": "car.png", "data_base64": b64(PHOTO)})
}

fn audio() -> Value {
    json!({"mime_type": "audio/ogg", "data_base64": b64(AUDIO), "sha256": BlobRef::of(AUDIO).hex()})
}

#[tokio::test]
async fn a_photo_and_an_audio_part_reach_the_assistant_with_their_bytes() {
    let server = start(Fake::standard()).await;
    let resp = server
        .post(
            MESSAGES,
            &json!({"text": "what is this?", "attachments": [photo(), audio()]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let seen = server.fake.seen();
    let parts = &seen[0].attachments;
    assert_eq!(parts.len(), 2);
    assert_eq!(&**parts[0].data(), PHOTO);
    assert_eq!(parts[0].attachment().mime_type().as_str(), "image/png");
    assert_eq!(parts[0].attachment().name().unwrap().as_str(), "car.png");
    assert_eq!(parts[0].attachment().blob(), &BlobRef::of(PHOTO));
    assert_eq!(&**parts[1].data(), AUDIO);
    assert_eq!(parts[1].attachment().size(), AUDIO.len() as u64);

    // A part alone, without text, is a message too.
    let resp = server
        .post(MESSAGES, &json!({"text": "", "attachments": [photo()]}))
        .await;
    assert_eq!(resp.status(), 200);
    // Without parts, empty text is still refused.
    let resp = server.post(MESSAGES, &json!({"text": " "})).await;
    assert_eq!(resp.status(), 400);
}

#[tokio::test]
async fn hostile_parts_are_400_with_a_reason_and_never_submitted() {
    let server = start(Fake::standard()).await;
    let with = |field: &str, value: Value| {
        let mut p = photo();
        p[field] = value;
        p
    };
    let cases = [
        (
            with("data_base64", json!("not base64!")),
            "not valid base64",
        ),
        (with("data_base64", json!("abc")), "not valid base64"),
        (
            with("mime_type", json!("image/svg+xml")),
            "media type not allowed",
        ),
        (
            with("mime_type", json!("text/html")),
            "media type not allowed",
        ),
        (with("name", json!("../../etc/passwd")), "invalid file name"),
        (with("name", json!("a\u{202e}gnp.exe")), "invalid file name"),
        (with("name", json!("a\nb.png")), "invalid file name"),
        (with("kind", json!("audio")), "does not match"),
        (with("kind", json!("video")), "unknown part kind"),
        (
            with("sha256", json!(BlobRef::of(b"other").as_str())),
            "does not match its bytes",
        ),
        (
            with("sha256", json!("sha256:../x")),
            "invalid blob reference",
        ),
        (
            json!({"mime_type": "text/plain", "data_base64": b64(&[0xff, 0xfe])}),
            "UTF-8",
        ),
    ];
    for (part, needle) in cases {
        let resp = server
            .post(MESSAGES, &json!({"text": "look", "attachments": [part]}))
            .await;
        assert_eq!(resp.status(), 400, "{needle}");
        let msg = json_of(resp).await["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            msg.contains(needle) && msg.starts_with("attachments[0]"),
            "{msg}"
        );
        assert!(
            !msg.contains("passwd") && !msg.contains("svg"),
            "echoed: {msg}"
        );
    }
    assert!(server.fake.seen().is_empty());
}

#[tokio::test]
async fn an_oversized_part_is_413_before_it_is_decoded_or_submitted() {
    let mut cfg = ServerConfig::new(TOKEN, crate::support::owner_id());
    cfg.parts = PartLimits {
        max_part_bytes: 1024,
        max_message_bytes: 1536,
        max_parts: 2,
    };
    let server = start_with(Fake::standard(), cfg).await;
    let big = |n: usize| json!({"mime_type": "image/png", "data_base64": b64(&vec![7u8; n])});
    let cases = [
        (
            vec![big(1025)],
            "a part of 1025 bytes is larger than the limit of 1024 bytes",
        ),
        (
            vec![big(1000), big(1000)],
            "come to 2000 bytes, over the limit of 1536 bytes",
        ),
        (vec![big(1), big(1), big(1)], "at most 2 parts"),
    ];
    for (parts, needle) in cases {
        let resp = server
            .post(MESSAGES, &json!({"text": "look", "attachments": parts}))
            .await;
        assert_eq!(resp.status(), 413, "{needle}");
        let err = json_of(resp).await;
        assert_eq!(err["error"]["kind"], "payload_too_large");
        let msg = err["error"]["message"].as_str().unwrap();
        assert!(msg.contains(needle), "{msg}");
    }
    // Exactly at the limit is fine, and the body limit makes room for it in base64.
    let resp = server
        .post(
            MESSAGES,
            &json!({"text": "look", "attachments": [big(1024)]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(server.fake.seen().len(), 1);
}

#[tokio::test]
async fn the_rest_of_the_body_still_fits_the_body_limit() {
    let mut cfg = ServerConfig::new(TOKEN, crate::support::owner_id());
    cfg.max_body_bytes = 4096;
    let server = start_with(Fake::standard(), cfg).await;
    // 6 KB of base64 is fine: it is a part's data.
    let part = json!({"mime_type": "image/png", "data_base64": b64(&[1u8; 4500])});
    let resp = server
        .post(
            MESSAGES,
            &json!({"text": "look", "attachments": [part.clone()]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    // 6 KB of anything else is not.
    let resp = server
        .post(
            MESSAGES,
            &json!({"text": "look", "pad": "p".repeat(6000), "attachments": [part]}),
        )
        .await;
    assert_eq!(resp.status(), 413);
    assert_eq!(server.fake.seen().len(), 1);
}

#[tokio::test]
async fn a_model_that_cannot_take_a_part_is_422_and_a_refused_size_413() {
    for (kind, status, wire) in [
        (FailureKind::Unsupported, 422, "unsupported"),
        (FailureKind::TooLarge, 413, "too_large"),
    ] {
        let server = start(Fake::failing(kind)).await;
        let resp = server
            .post(
                MESSAGES,
                &json!({"text": "listen", "attachments": [audio()]}),
            )
            .await;
        assert_eq!(resp.status(), status);
        assert_eq!(resp.headers()["x-should-retry"], "false");
        assert_eq!(json_of(resp).await["error"]["kind"], wire);
    }
}

const CHAT: &str = "/v1/chat/completions";

fn chat(content: Value) -> Value {
    json!({"model": "steward", "messages": [{"role": "user", "content": content}]})
}

#[tokio::test]
async fn the_openai_endpoint_takes_data_url_images_input_audio_and_pdf_files() {
    let server = start(Fake::standard()).await;
    let content = json!([
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(PHOTO)), "detail": "auto"}},
        {"type": "input_audio", "input_audio": {"data": b64(AUDIO), "format": "mp3"}},
        {"type": "file", "file": {"filename": "a.pdf", "file_data": format!("data:application/pdf;base64,{}", b64(b"%PDF"))}},
    ]);
    let resp = server.post(CHAT, &chat(content)).await;
    assert_eq!(resp.status(), 200);
    let seen = server.fake.seen();
    assert_eq!(seen[0].text, "what is this?");
    let parts = &seen[0].attachments;
    let mimes: Vec<&str> = parts
        .iter()
        .map(|p| p.attachment().mime_type().as_str())
        .collect();
    assert_eq!(mimes, ["image/png", "audio/mpeg", "application/pdf"]);
    assert_eq!(&**parts[0].data(), PHOTO);
    assert_eq!(parts[2].attachment().name().unwrap().as_str(), "a.pdf");
}

#[tokio::test]
async fn the_openai_endpoint_refuses_remote_urls_odd_formats_and_oversized_parts() {
    let mut cfg = ServerConfig::new(TOKEN, crate::support::owner_id());
    cfg.parts.max_part_bytes = 8;
    let server = start_with(Fake::standard(), cfg).await;
    let cases = [
        (
            json!({"type": "image_url", "image_url": {"url": "https://example.com/x.png"}}),
            400,
            "does not fetch",
        ),
        (
            json!({"type": "image_url", "image_url": {"url": format!("data:image/svg+xml;base64,{}", b64(b"<svg"))}}),
            400,
            "media type not allowed",
        ),
        (
            json!({"type": "input_audio", "input_audio": {"data": b64(b"x"), "format": "flac"}}),
            400,
            "wav",
        ),
        (
            json!({"type": "file", "file": {"file_id": "file-123"}}),
            400,
            "file ids",
        ),
        (
            json!({"type": "video_url", "video_url": {}}),
            400,
            "only content parts",
        ),
        (
            json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(PHOTO))}}),
            413,
            "larger than the limit",
        ),
    ];
    for (part, status, needle) in cases {
        let resp = server.post(CHAT, &chat(json!([part]))).await;
        assert_eq!(resp.status(), status, "{needle}");
        let err = json_of(resp).await;
        let msg = err["error"]["message"].as_str().unwrap();
        assert!(msg.contains(needle), "{msg}");
    }
    assert!(server.fake.seen().is_empty());
}
