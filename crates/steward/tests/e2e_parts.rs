//! End to end, message parts over HTTP: the real binary, its data directory and the fake
//! model in each provider's format. A photo and an audio clip posted as base64 reach the
//! model's request in that provider's wire format, are stored (the message in SQLite, the
//! bytes under `<data_dir>/blobs/`), and go again with the next turn; an oversized part, a
//! part the model cannot take and a text-only provider are refused with nothing stored.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use base64::Engine as _;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use steward_testkit::FakeModel;
use support::*;

const PHOTO: &[u8] = b"\x89PNG\r\n\x1a\n the photo of a red bicycle";
const VOICE: &[u8] = b"RIFF....WAVEfmt  remind me to buy bread";

fn b64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// `steward serve` bound to `model`, every provider pointed at the fake; `env` on top.
fn serve(dir: &TempDir, fake: &FakeModel, model: &str, env: &[(&str, &str)]) -> Server {
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), model);
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("ANTHROPIC_API_KEY", "anthropic-e2e-key")
        .env("ANTHROPIC_BASE_URL", fake.base_url())
        .env("GEMINI_API_KEY", "gemini-e2e-key")
        .env("GEMINI_BASE_URL", fake.base_url());
    for (k, v) in env {
        cmd.env(k, v);
    }
    start_server(cmd)
}

async fn post(srv: &Server, body: Value) -> (u16, Value) {
    let resp = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap())
}

fn photo() -> Value {
    json!({"mime_type": "image/png", "name": "bike.png", "data_base64": b64(PHOTO)})
}

fn voice(mime: &str) -> Value {
    json!({"kind": "audio", "mime_type": mime, "name": "voice", "data_base64": b64(VOICE)})
}

/// The last user turn of a recorded body (OpenAI/Anthropic `messages`, Gemini `contents`).
fn user_turns(body: &Value) -> Vec<Value> {
    body.get("messages")
        .or_else(|| body.get("contents"))
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .cloned()
        .collect()
}

fn parts_of(turn: &Value) -> Vec<Value> {
    turn.get("content")
        .or_else(|| turn.get("parts"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn stored_attachments(dir: &TempDir, conv: &str) -> Vec<Value> {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT attachments FROM messages WHERE conversation_id = ?1 ORDER BY seq")
        .unwrap();
    stmt.query_map([conv], |r| r.get::<_, Option<String>>(0))
        .unwrap()
        .map(|r| {
            r.unwrap()
                .map_or(Value::Null, |j| serde_json::from_str(&j).unwrap())
        })
        .collect()
}

fn message_count(dir: &TempDir) -> i64 {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    conn.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
        .unwrap()
}

#[tokio::test]
async fn a_photo_and_a_voice_note_reach_each_provider_in_its_wire_format() {
    let openai = (
        "openai:gpt-fake",
        Some("audio/wav"),
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(PHOTO))}}),
        Some(json!({"type": "input_audio", "input_audio": {"data": b64(VOICE), "format": "wav"}})),
    );
    let gemini = (
        "gemini:gemini-fake",
        Some("audio/ogg"),
        json!({"inlineData": {"mimeType": "image/png", "data": b64(PHOTO)}}),
        Some(json!({"inlineData": {"mimeType": "audio/ogg", "data": b64(VOICE)}})),
    );
    let anthropic = (
        "anthropic:claude-fake",
        None,
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PHOTO)}}),
        None,
    );
    for (model, audio_mime, photo_wire, voice_wire) in [openai, gemini, anthropic] {
        let fake = FakeModel::start().await.unwrap();
        let dir = TempDir::new("parts");
        let srv = serve(&dir, &fake, model, &[]);
        let mut parts = vec![photo()];
        if let Some(m) = audio_mime {
            parts.push(voice(m));
        }
        let (status, body) = post(
            &srv,
            json!({"conversation_id": "p1", "text": "what is this?", "attachments": parts}),
        )
        .await;
        assert_eq!(status, 200, "{model}: {body}");

        let sent = parts_of(user_turns(&fake.requests()[0].body).last().unwrap());
        assert!(sent.contains(&photo_wire), "{model}: {sent:?}");
        if let Some(v) = &voice_wire {
            assert!(sent.contains(v), "{model}: {sent:?}");
        }
        // Stored: the attachments with the message, the bytes under blobs/ (owner-only).
        let stored = stored_attachments(&dir, "p1");
        assert_eq!(stored[0].as_array().unwrap().len(), parts.len(), "{model}");
        assert_eq!(stored[0][0]["name"], "bike.png");
        assert!(stored[1].is_null(), "the answer has no parts");
        let blobs = files(&dir.path().join("blobs"));
        assert_eq!(blobs.len(), parts.len(), "{model}: {blobs:?}");
        use std::os::unix::fs::PermissionsExt;
        for b in &blobs {
            let mode = std::fs::metadata(b).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{b:?}");
        }

        // The read side lists what was attached, never the bytes.
        let page: Value = client()
            .get(srv.url("/api/v1/conversations/p1"))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let listed = &page["messages"][0]["attachments"][0];
        assert_eq!(listed["name"], "bike.png", "{page}");
        assert_eq!(listed["size"], PHOTO.len());
        assert!(!page.to_string().contains(&b64(PHOTO)));

        // The next turn's history carries the photo again (the previous user message).
        let (status, _) = post(
            &srv,
            json!({"conversation_id": "p1", "text": "what colour is it?"}),
        )
        .await;
        assert_eq!(status, 200);
        let history = user_turns(&fake.requests()[1].body);
        assert!(
            parts_of(&history[0]).contains(&photo_wire),
            "{model}: {history:?}"
        );
    }
}

#[tokio::test]
async fn refused_parts_leave_nothing_stored() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("refused");
    let srv = serve(
        &dir,
        &fake,
        "anthropic:claude-fake",
        &[("STEWARD_MAX_PART_MB", "1")],
    );
    // Over the part limit: 413 before anything is decoded or stored.
    let big = json!({"mime_type": "image/png", "data_base64": b64(&vec![1u8; 1024 * 1024 + 1])});
    let (status, body) = post(
        &srv,
        json!({"conversation_id": "r", "text": "look", "attachments": [big]}),
    )
    .await;
    assert_eq!(status, 413, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("larger than the limit of 1048576 bytes"),
        "{body}"
    );
    // Anthropic takes no audio: 422 naming the model and the part.
    let (status, body) = post(
        &srv,
        json!({"conversation_id": "r", "text": "listen", "attachments": [photo(), voice("audio/wav")]}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["kind"], "unsupported");
    let msg = body["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("anthropic:claude-fake") && msg.contains("audio part voice"),
        "{msg}"
    );
    // A forged hash: 400.
    let mut forged = photo();
    forged["sha256"] = json!(format!("sha256:{}", "0".repeat(64)));
    let (status, _) = post(
        &srv,
        json!({"conversation_id": "r", "text": "x", "attachments": [forged]}),
    )
    .await;
    assert_eq!(status, 400);

    assert_eq!(message_count(&dir), 0, "no message stored");
    assert!(
        files(&dir.path().join("blobs")).is_empty(),
        "no blob stored"
    );
    assert_eq!(fake.request_count(), 0, "the model was never called");
}

#[tokio::test]
async fn a_provider_configured_text_only_refuses_every_part() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("textonly");
    std::fs::write(
        dir.path().join("steward.toml"),
        "[providers.local]\nkind = \"openai\"\nbase_url = \"".to_owned()
            + &fake.openai_base_url()
            + "\"\nparts = \"none\"\n",
    )
    .unwrap();
    let srv = serve(&dir, &fake, "local:small", &[]);
    let (status, body) = post(
        &srv,
        json!({"conversation_id": "t", "text": "look", "attachments": [photo()]}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("local:small cannot take the image part bike.png"),
        "{body}"
    );
    assert_eq!(message_count(&dir), 0);
    // Text still works.
    let (status, _) = post(&srv, json!({"conversation_id": "t", "text": "hello"})).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn an_openai_client_can_send_a_photo_as_a_data_url() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("oa-parts");
    let srv = serve(&dir, &fake, "gemini:gemini-fake", &[]);
    let content = json!([
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(PHOTO))}},
    ]);
    let resp = client()
        .post(srv.url("/v1/chat/completions"))
        .bearer_auth(TOKEN)
        .header("x-steward-conversation", "oa-parts")
        .json(&json!({"model": "steward", "messages": [{"role": "user", "content": content}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let sent = parts_of(user_turns(&fake.requests()[0].body).last().unwrap());
    assert!(
        sent.contains(&json!({"inlineData": {"mimeType": "image/png", "data": b64(PHOTO)}})),
        "{sent:?}"
    );
    assert_eq!(files(&dir.path().join("blobs")).len(), 1);
}
