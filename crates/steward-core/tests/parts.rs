//! Message parts through a whole turn, against the fake model in all three wire formats: a
//! photo and an audio clip are stored as blobs, kept with the message in the store, sent as
//! data in each provider's format, sent again with the next turn (the previous user message's
//! parts) and then only as a placeholder; a part the model cannot take, or too big, fails the
//! turn before anything is stored.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{collect, fast_retry, final_text, inbound};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use steward_core::approvals::ApprovalSettings;
use steward_core::{AgentSettings, ModelBinding, Steward, StewardDeps};
use steward_llm::{ModelRef, Models, ProviderConfig, ProviderKind};
use steward_protocol::{
    BlobRef, ConversationId, FailureKind, FileName, Inbound, MimeType, PartLimits, TurnEvent,
    Upload,
};
use steward_store::{BlobStore, FsBlobStore, Store, StoreConfig};
use steward_testkit::FakeModel;

const PHOTO: &[u8] = b"\x89PNG\r\n\x1a\n a photo of a red car";
const AUDIO: &[u8] = b"RIFF....WAVEfmt  a voice note";

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "steward-parts-{tag}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every regular file under `dir`.
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

fn provider(name: &str, kind: ProviderKind, base_url: String) -> ProviderConfig {
    ProviderConfig {
        name: name.into(),
        kind,
        base_url,
        api_key: Some("test-key".into()),
        stream: false,
        request_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        parts: None,
    }
}

struct Parts {
    steward: Steward,
    store: Arc<dyn Store>,
    blobs: Arc<FsBlobStore>,
    dir: TempDir,
}

fn harness(fake: &FakeModel, model: &str, limits: PartLimits, tag: &str) -> Parts {
    let models = Models::new(
        vec![
            provider("openai", ProviderKind::OpenAi, fake.openai_base_url()),
            provider("anthropic", ProviderKind::Anthropic, fake.base_url()),
            provider("gemini", ProviderKind::Gemini, fake.base_url()),
        ],
        fast_retry(),
    )
    .unwrap();
    let dir = TempDir::new(tag);
    let blobs = Arc::new(FsBlobStore::open(dir.0.join("blobs"), limits).unwrap());
    let store = steward_store::open(&StoreConfig::in_memory()).unwrap();
    let steward = Steward::new(StewardDeps {
        store: store.clone(),
        models: Arc::new(models),
        tools: Arc::new(steward_tools::builtin_registry()),
        settings: AgentSettings::default(),
        binding: ModelBinding {
            primary: Some(ModelRef::parse(model).unwrap()),
            fallback: None,
        },
        approvals: ApprovalSettings::default(),
        memory: None,
        secrets: Vec::new(),
        blobs: Some(blobs.clone()),
        clock: steward_protocol::SystemClock::shared(),
    });
    Parts {
        steward,
        store,
        blobs,
        dir,
    }
}

fn upload(mime: &str, name: &str, data: &[u8]) -> Upload {
    Upload::new(
        MimeType::parse(mime).unwrap(),
        Some(FileName::parse(name).unwrap()),
        data.to_vec(),
    )
    .unwrap()
}

fn with_parts(conv: &str, text: &str, parts: Vec<Upload>) -> Inbound {
    let mut msg = inbound(conv, text);
    msg.attachments = parts;
    msg
}

fn b64(data: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// The user turns of a recorded body, in that format's shape, as their JSON.
fn user_turns(body: &Value) -> Vec<Value> {
    let list = body
        .get("messages")
        .or_else(|| body.get("contents"))
        .and_then(Value::as_array)
        .expect("messages or contents");
    list.iter()
        .filter(|m| m["role"] == "user")
        .cloned()
        .collect()
}

/// The request's whole text, to look for placeholders in.
fn text_of(v: &Value) -> String {
    v.to_string()
}

struct Case {
    model: &'static str,
    audio_mime: &'static str,
    /// What the photo must look like in the request.
    photo: fn(&str) -> Value,
    /// What the audio must look like (None: this model gets no audio in this case).
    audio: Option<fn(&str) -> Value>,
}

fn openai_photo(b: &str) -> Value {
    serde_json::json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{b}")}})
}
fn openai_audio(b: &str) -> Value {
    serde_json::json!({"type": "input_audio", "input_audio": {"data": b, "format": "wav"}})
}
fn anthropic_photo(b: &str) -> Value {
    serde_json::json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b}})
}
fn gemini_photo(b: &str) -> Value {
    serde_json::json!({"inlineData": {"mimeType": "image/png", "data": b}})
}
fn gemini_audio(b: &str) -> Value {
    serde_json::json!({"inlineData": {"mimeType": "audio/ogg", "data": b}})
}

/// The parts of a user turn (`content` or `parts`).
fn parts_of(turn: &Value) -> Vec<Value> {
    turn.get("content")
        .or_else(|| turn.get("parts"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

#[tokio::test]
async fn a_photo_and_an_audio_part_reach_each_provider_and_the_next_turn() {
    let cases = [
        Case {
            model: "openai:gpt-test",
            audio_mime: "audio/wav",
            photo: openai_photo,
            audio: Some(openai_audio),
        },
        Case {
            model: "gemini:gemini-test",
            audio_mime: "audio/ogg",
            photo: gemini_photo,
            audio: Some(gemini_audio),
        },
        // Anthropic takes no audio (its refusal is the next test): the photo alone.
        Case {
            model: "anthropic:claude-test",
            audio_mime: "",
            photo: anthropic_photo,
            audio: None,
        },
    ];
    for case in cases {
        let fake = FakeModel::start().await.unwrap();
        let h = harness(&fake, case.model, PartLimits::default(), "roundtrip");
        let mut parts = vec![upload("image/png", "car.png", PHOTO)];
        if case.audio.is_some() {
            parts.push(upload(case.audio_mime, "voice", AUDIO));
        }
        let conv = ConversationId::parse("parts").unwrap();
        let events = collect(
            &h.steward,
            with_parts("parts", "what is this?", parts.clone()),
        )
        .await;
        assert_eq!(final_text(&events), "ok", "{}", case.model);

        // The request carried each part as data, in this provider's format.
        let first = &fake.requests()[0].body;
        let users = user_turns(first);
        let sent = parts_of(users.last().unwrap());
        assert!(
            sent.contains(&(case.photo)(&b64(PHOTO))),
            "{}: {sent:?}",
            case.model
        );
        if let Some(audio) = case.audio {
            assert!(
                sent.contains(&audio(&b64(AUDIO))),
                "{}: {sent:?}",
                case.model
            );
        }

        // The store kept the message with its attachments, the blob dir their bytes.
        let stored = h.store.recent_messages(&conv, 10).await.unwrap();
        let kept: Vec<_> = parts.iter().map(|p| p.attachment().clone()).collect();
        assert_eq!(stored[0].attachments, kept, "{}", case.model);
        assert_eq!(stored[0].content, "what is this?");
        assert_eq!(files(&h.dir.0.join("blobs")).len(), parts.len());
        for p in &parts {
            let back = h.blobs.get(p.attachment().blob()).await.unwrap();
            assert_eq!(&*back, &**p.data());
        }

        // The next turn sends the previous user message's parts again, read from the blobs.
        collect(&h.steward, inbound("parts", "and what colour is it?")).await;
        let second = &fake.requests()[1].body;
        let users = user_turns(second);
        assert_eq!(users.len(), 2, "{}", case.model);
        assert!(
            parts_of(&users[0]).contains(&(case.photo)(&b64(PHOTO))),
            "{}: {:?}",
            case.model,
            users[0]
        );

        // Two user messages later it is only named.
        collect(&h.steward, inbound("parts", "thanks")).await;
        let third = &fake.requests()[2].body;
        let users = user_turns(third);
        assert!(!text_of(&users[0]).contains(&b64(PHOTO)), "{}", case.model);
        assert!(
            text_of(&users[0]).contains("[image: car.png, 29 B]"),
            "{}: {:?}",
            case.model,
            users[0]
        );
    }
}

async fn assert_nothing_stored(h: &Parts, fake: &FakeModel) {
    let conv = ConversationId::parse("refused").unwrap();
    assert!(h.store.recent_messages(&conv, 10).await.unwrap().is_empty());
    assert!(files(&h.dir.0.join("blobs")).is_empty());
    assert_eq!(fake.request_count(), 0, "the model is never called");
}

fn failure(events: &[TurnEvent]) -> (FailureKind, String) {
    match events.last() {
        Some(TurnEvent::Failed { kind, message, .. }) => (*kind, message.clone()),
        other => panic!("expected Failed, got {other:?}"),
    }
}

#[tokio::test]
async fn audio_to_anthropic_fails_before_anything_is_stored() {
    let fake = FakeModel::start().await.unwrap();
    let h = harness(
        &fake,
        "anthropic:claude-test",
        PartLimits::default(),
        "anthropic",
    );
    let parts = vec![
        upload("image/png", "car.png", PHOTO),
        upload("audio/wav", "voice.wav", AUDIO),
    ];
    let events = collect(&h.steward, with_parts("refused", "listen", parts)).await;
    let (kind, message) = failure(&events);
    assert_eq!(kind, FailureKind::Unsupported);
    assert!(
        message.contains("anthropic:claude-test") && message.contains("audio part voice.wav"),
        "{message}"
    );
    assert_nothing_stored(&h, &fake).await;
}

#[tokio::test]
async fn an_oversized_part_is_refused_before_it_is_stored() {
    let fake = FakeModel::start().await.unwrap();
    let limits = PartLimits {
        max_part_bytes: 1024,
        ..PartLimits::default()
    };
    let h = harness(&fake, "openai:gpt-test", limits, "oversized");
    let parts = vec![
        upload("image/png", "small.png", PHOTO),
        upload("image/png", "big.png", &[0u8; 1025]),
    ];
    let events = collect(&h.steward, with_parts("refused", "look", parts)).await;
    let (kind, message) = failure(&events);
    assert_eq!(kind, FailureKind::TooLarge);
    assert!(
        message.contains("larger than the limit of 1024 bytes (1 KB)"),
        "{message}"
    );
    assert_nothing_stored(&h, &fake).await;
}

#[tokio::test]
async fn a_lost_blob_is_sent_as_its_placeholder_and_the_turn_goes_on() {
    let fake = FakeModel::start().await.unwrap();
    let h = harness(&fake, "openai:gpt-test", PartLimits::default(), "lost");
    let photo = upload("image/png", "car.png", PHOTO);
    collect(&h.steward, with_parts("lost", "look", vec![photo.clone()])).await;
    std::fs::remove_file(h.blobs.path_of(photo.attachment().blob())).unwrap();
    let events = collect(&h.steward, inbound("lost", "and now?")).await;
    assert_eq!(final_text(&events), "ok");
    let users = user_turns(&fake.requests()[1].body);
    assert!(
        text_of(&users[0]).contains("[image: car.png, 29 B]"),
        "{:?}",
        users[0]
    );
    assert!(!text_of(&users[0]).contains("image_url"));
    // The model sees the blob's name nowhere but in the placeholder's place.
    assert!(!text_of(&users[0]).contains(BlobRef::of(PHOTO).hex()));
}

#[tokio::test]
async fn without_a_blob_store_a_message_with_parts_is_refused() {
    let fake = FakeModel::start().await.unwrap();
    let models = Models::new(
        vec![provider(
            "openai",
            ProviderKind::OpenAi,
            fake.openai_base_url(),
        )],
        fast_retry(),
    )
    .unwrap();
    let h = common::harness_with(models, AgentSettings::default(), Some("openai:gpt-test"));
    let events = collect(
        &h.steward,
        with_parts("refused", "look", vec![upload("image/png", "a.png", PHOTO)]),
    )
    .await;
    assert_eq!(failure(&events).0, FailureKind::Unsupported);
    let conv = ConversationId::parse("refused").unwrap();
    assert!(h.store.recent_messages(&conv, 10).await.unwrap().is_empty());
    assert_eq!(fake.request_count(), 0);
}

#[tokio::test]
async fn a_photo_without_text_is_a_message() {
    let fake = FakeModel::start().await.unwrap();
    let h = harness(&fake, "openai:gpt-test", PartLimits::default(), "notext");
    let events = collect(
        &h.steward,
        with_parts("notext", "", vec![upload("image/png", "car.png", PHOTO)]),
    )
    .await;
    assert_eq!(final_text(&events), "ok");
    let users = user_turns(&fake.requests()[0].body);
    assert!(parts_of(&users[0]).contains(&openai_photo(&b64(PHOTO))));
}
