//! Telegram media through the real binary: `steward serve` polls the fake Bot API, fetches
//! files with `getFile` and the download route, transcribes voice notes and speaks answers
//! through the fake model server's speech routes (OpenAI's audio wire format), and sends
//! photos to the fake model as image parts. Shown here: a voice note → "🎤 what was heard",
//! a turn whose text is the transcript (the upload carried the audio and the model name), the
//! answer, and with text-to-speech a `sendVoice` upload; without speech-to-text the reply
//! naming `speech.stt_base_url` and no model call; a failing transcriber reported without
//! its key; a photo → an `image_url` data URL in the
//! model request; a photo over the part limit refused before any download; a markdown file →
//! a note; a PDF → a note of its text, read by the confined reader (the binary started
//! again), and bytes that only claim to be a PDF → refused in words; hostile files: a `../` path (never downloaded), a size that lies (cut off and
//! refused), a "text" file that is not UTF-8.

use crate::support;

use base64::Engine as _;
use serde_json::Value;
use std::time::Duration;
use steward_testkit::telegram::{self as tg, FakeBotApi};
use steward_testkit::{FakeModel, Reply, Step};
use support::telegram::{bot_command, until};
use support::*;

const ANN: u64 = 1001;
/// The smallest JPEG header the surface checks for, then some body.
const JPEG: &[u8] = b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00fake-jpeg-body";
/// Three pages of text in a core font, written by fpdf2 (an independent PDF writer).
const LEASE_PDF: &[u8] = include_bytes!("../../steward-sandbox/tests/fixtures/lease-3-pages.pdf");
const VOICE: &[u8] = b"OggS\x00\x02voice-note-audio-bytes";
const SPEECH_KEY: &str = "sk-speech-secret-0123456789";

fn serve_bot(dir: &TempDir, fake: &FakeModel, bot: &FakeBotApi, env: &[(&str, &str)]) -> Server {
    let mut cmd = bot_command(dir, fake, bot);
    cmd.env("STEWARD_TELEGRAM_ALLOWED_USERS", ANN.to_string());
    for (k, v) in env {
        cmd.env(k, v);
    }
    start_server(cmd)
}

fn texts(bot: &FakeBotApi) -> Vec<String> {
    bot.calls_of("sendMessage")
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

async fn one_reply(bot: &FakeBotApi, what: &str) -> String {
    until(bot, what, |b| !texts(b).is_empty()).await;
    texts(bot).remove(0)
}

/// The last user message of a recorded OpenAI request.
fn last_user(request: &Value) -> Value {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn a_voice_note_is_transcribed_answered_and_spoken_back() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-voice");
    let base = fake.openai_base_url();
    let _srv = serve_bot(
        &dir,
        &fake,
        &bot,
        &[
            ("STEWARD_SPEECH_STT_BASE_URL", &base),
            ("STEWARD_SPEECH_STT_API_KEY", SPEECH_KEY),
            ("STEWARD_SPEECH_STT_MODEL", "whisper-large-v3"),
            ("STEWARD_SPEECH_TTS_BASE_URL", &base),
            ("STEWARD_SPEECH_TTS_VOICE", "nova"),
        ],
    );
    fake.set_transcript("remind me to water the plants");
    fake.set_speech_audio(b"OggS\x00spoken-answer");
    fake.push(Step::Reply(Reply::text("I will **remind** you.")));
    bot.add_file("voice-1", VOICE);
    bot.push_update(tg::private_voice(1, ANN, "voice-1", VOICE.len() as u64));
    until(&bot, "the voice answer", |b| {
        !b.calls_of("sendVoice").is_empty()
    })
    .await;

    // What was heard comes first, then the answer.
    let sent = texts(&bot);
    assert_eq!(sent[0], "🎤 remind me to water the plants", "{sent:?}");
    assert!(sent.iter().any(|t| t.contains("remind")), "{sent:?}");
    // The upload carried the voice note's bytes and the model; the key as a bearer.
    let speech = fake.speech_requests();
    let stt = speech
        .iter()
        .find(|r| r.path == "/v1/audio/transcriptions")
        .unwrap();
    assert_eq!(stt.part("file").unwrap().data, VOICE);
    assert_eq!(stt.part("model").unwrap().text(), Some("whisper-large-v3"));
    assert_eq!(
        stt.authorization.as_deref(),
        Some(format!("Bearer {SPEECH_KEY}").as_str())
    );
    // The turn's text is the transcript.
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let said = last_user(&requests[0].body)["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        said.ends_with("\n\nremind me to water the plants"),
        "{said}"
    );
    // The answer spoken: markup dropped, the configured voice, Opus; sent as a voice upload.
    let tts = speech
        .iter()
        .find(|r| r.path == "/v1/audio/speech")
        .unwrap();
    assert_eq!(tts.json["input"], "I will remind you.");
    assert_eq!(tts.json["voice"], "nova");
    assert_eq!(tts.json["model"], "tts-1");
    assert_eq!(tts.json["response_format"], "opus");
    assert!(tts.authorization.is_none(), "no TTS key configured");
    let voice = &bot.calls_of("sendVoice")[0];
    assert_eq!(voice["chat_id"], ANN.to_string());
    assert_eq!(voice["voice"]["size"], b"OggS\x00spoken-answer".len());
    assert_eq!(voice["voice"]["content_type"], "audio/ogg");
    assert_eq!(bot.downloads().len(), 1);
}

#[tokio::test]
async fn without_speech_to_text_a_voice_note_gets_the_how_to_and_no_turn() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-voice-off");
    let _srv = serve_bot(&dir, &fake, &bot, &[]);
    bot.add_file("voice-1", VOICE);
    bot.push_update(tg::private_voice(1, ANN, "voice-1", VOICE.len() as u64));
    let reply = one_reply(&bot, "the how-to").await;
    assert!(reply.contains("speech.stt_base_url"), "{reply}");
    assert!(reply.contains("STEWARD_SPEECH_STT_BASE_URL"), "{reply}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(fake.requests().is_empty(), "no model call");
    assert!(fake.speech_requests().is_empty());
    assert!(bot.downloads().is_empty(), "nothing fetched for nothing");
}

#[tokio::test]
async fn a_failing_transcriber_is_reported_without_its_key_and_starts_no_turn() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-voice-fail");
    let base = fake.openai_base_url();
    let srv = serve_bot(
        &dir,
        &fake,
        &bot,
        &[
            ("STEWARD_SPEECH_STT_BASE_URL", &base),
            ("STEWARD_SPEECH_STT_API_KEY", SPEECH_KEY),
        ],
    );
    // The endpoint echoes the key back, as some do.
    fake.set_transcript_error(Some((
        401,
        &format!("Incorrect API key provided: {SPEECH_KEY}"),
    )));
    bot.add_file("voice-1", VOICE);
    bot.push_update(tg::private_voice(1, ANN, "voice-1", VOICE.len() as u64));
    let reply = one_reply(&bot, "the failure reply").await;
    assert!(reply.contains("could not transcribe"), "{reply}");
    assert!(reply.contains("401"), "{reply}");
    assert!(!reply.contains(SPEECH_KEY), "{reply}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(fake.speech_requests().len(), 1);
    assert!(fake.requests().is_empty(), "no turn");
    assert!(!srv.stderr_text().contains(SPEECH_KEY), "the log neither");
}

#[tokio::test]
async fn a_photo_reaches_the_model_as_an_image_part_with_its_caption() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-photo");
    let _srv = serve_bot(&dir, &fake, &bot, &[]);
    fake.push(Step::Reply(Reply::text("A fine cat.")));
    bot.add_file("small", b"\xFF\xD8\xFFsmall".to_vec());
    bot.add_file("large", JPEG);
    bot.push_update(tg::private_photo(
        1,
        ANN,
        &[
            ("small", 90, Some(9)),
            ("large", 800, Some(JPEG.len() as u64)),
        ],
        Some("what is this?"),
    ));
    until(&bot, "the answer", |b| {
        texts(b).iter().any(|t| t.contains("fine cat"))
    })
    .await;
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let user = last_user(&requests[0].body);
    let content = user["content"].as_array().unwrap();
    let b64 = base64::engine::general_purpose::STANDARD.encode(JPEG);
    assert!(
        content.iter().any(|p| p["type"] == "image_url"
            && p["image_url"]["url"] == format!("data:image/jpeg;base64,{b64}")),
        "the largest size as a data URL: {content:?}"
    );
    assert!(
        content
            .iter()
            .any(|p| p["type"] == "text" && p["text"].as_str().unwrap().contains("what is this?")),
        "{content:?}"
    );
    assert_eq!(bot.downloads(), vec!["files/file_1".to_owned()]);

    // Without a caption, the turn still has a text.
    fake.push(Step::Reply(Reply::text("Another.")));
    bot.push_update(tg::private_photo(2, ANN, &[("large", 800, None)], None));
    until(&bot, "the second answer", |b| {
        texts(b).iter().any(|t| t.contains("Another"))
    })
    .await;
    let user = last_user(&fake.requests()[1].body);
    let text = user["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["type"] == "text")
        .unwrap()["text"]
        .clone();
    assert!(text.as_str().unwrap().contains("(photo)"), "{text}");
}

#[tokio::test]
async fn a_photo_over_the_limit_is_refused_before_any_download() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-photo-big");
    let _srv = serve_bot(&dir, &fake, &bot, &[("STEWARD_MAX_PART_MB", "1")]);
    bot.add_file("huge", JPEG);
    bot.push_update(tg::private_photo(
        1,
        ANN,
        &[("huge", 4000, Some(3 * 1024 * 1024))],
        None,
    ));
    let reply = one_reply(&bot, "the refusal").await;
    assert!(reply.contains("larger than the 1 MB"), "{reply}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(bot.calls_of("getFile").is_empty(), "not even asked for");
    assert!(bot.downloads().is_empty());
    assert!(fake.requests().is_empty());
}

#[tokio::test]
async fn hostile_files_a_dotdot_path_a_lying_size_and_non_utf8_text_are_refused() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-hostile");
    let _srv = serve_bot(&dir, &fake, &bot, &[("STEWARD_MAX_PART_MB", "1")]);

    // getFile names a path out of the bot's files: never downloaded.
    bot.add_file_as("escape", "../../etc/passwd", JPEG, Some(JPEG.len() as u64));
    bot.push_update(tg::private_photo(1, ANN, &[("escape", 800, None)], None));
    let reply = one_reply(&bot, "the path refusal").await;
    assert!(reply.contains("did not download"), "{reply}");
    assert!(bot.downloads().is_empty(), "{:?}", bot.downloads());

    // getFile declares 100 bytes; 3 MB come (streamed, no Content-Length): cut off.
    let mut big = JPEG.to_vec();
    big.resize(3 * 1024 * 1024, b'x');
    bot.add_file_as("liar", "photos/file_9.jpg", big, Some(100));
    bot.push_update(tg::private_photo(2, ANN, &[("liar", 800, Some(100))], None));
    until(&bot, "the size refusal", |b| texts(b).len() >= 2).await;
    let reply = &texts(&bot)[1];
    assert!(reply.contains("larger than the 1 MB"), "{reply}");
    assert_eq!(bot.downloads(), vec!["photos/file_9.jpg".to_owned()]);

    // A "text" file that is not UTF-8: not saved.
    bot.add_file("latin1", b"caf\xE9 cr\xE8me".to_vec());
    bot.push_update(tg::private_document(
        3,
        ANN,
        "latin1",
        "menu.txt",
        "text/plain",
        11,
    ));
    until(&bot, "the UTF-8 refusal", |b| texts(b).len() >= 3).await;
    let reply = &texts(&bot)[2];
    assert!(reply.contains("not UTF-8"), "{reply}");

    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(fake.requests().is_empty(), "no turn for any of them");
    assert_eq!(notes(&_srv).await.len(), 0);
}

async fn notes(srv: &Server) -> Vec<Value> {
    let body: Value = client()
        .get(srv.url("/api/v1/notes"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["notes"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_markdown_file_and_a_pdf_become_notes_and_a_damaged_pdf_is_refused() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-doc");
    let srv = serve_bot(&dir, &fake, &bot, &[]);
    let md = "# Packing list\n\n- passport\n- charger\n";
    bot.add_file("md-1", md.as_bytes());
    bot.push_update(tg::private_document(
        1,
        ANN,
        "md-1",
        "Packing list.md",
        "text/markdown",
        md.len() as u64,
    ));
    let reply = one_reply(&bot, "the saved reply").await;
    assert!(
        reply.contains("Saved as a note") && reply.contains("Packing list"),
        "{reply}"
    );
    let notes = notes(&srv).await;
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["title"], "Packing list");
    assert_eq!(notes[0]["body"], md);

    // A real PDF (three pages, written by fpdf2): its text is read by the confined reader
    // (this binary started again) and kept as a note.
    bot.add_file("pdf-1", LEASE_PDF.to_vec());
    bot.push_update(tg::private_document(
        2,
        ANN,
        "pdf-1",
        "Lease 2027.pdf",
        "application/pdf",
        LEASE_PDF.len() as u64,
    ));
    until(&bot, "the PDF reply", |b| texts(b).len() >= 2).await;
    let reply = &texts(&bot)[1];
    assert!(
        reply.contains("Saved as a note") && reply.contains("3 pages"),
        "{reply}"
    );
    let notes = self::notes(&srv).await;
    assert_eq!(notes.len(), 2, "{notes:?}");
    let lease = notes
        .iter()
        .find(|n| n["title"] == "Lease 2027")
        .expect("the PDF's note");
    let body = lease["body"].as_str().unwrap();
    for page in 1..=3 {
        assert!(
            body.contains(&format!("Page {page} of the lease")),
            "{body}"
        );
    }
    assert!(
        body.contains("rent is due") && body.contains("Café"),
        "{body}"
    );

    // Bytes that only claim to be a PDF: refused in words, nothing saved, the bot goes on.
    bot.add_file("pdf-2", b"%PDF-1.7 fake".to_vec());
    bot.push_update(tg::private_document(
        3,
        ANN,
        "pdf-2",
        "paper.pdf",
        "application/pdf",
        13,
    ));
    until(&bot, "the damaged-PDF reply", |b| texts(b).len() >= 3).await;
    assert!(
        texts(&bot)[2].contains("could not read that PDF"),
        "{:?}",
        texts(&bot)
    );
    bot.push_update(tg::private_document(
        4,
        ANN,
        "pdf-2",
        "setup.exe",
        "application/x-msdownload",
        13,
    ));
    until(&bot, "the other-file reply", |b| texts(b).len() >= 4).await;
    assert!(texts(&bot)[3].contains("not read"), "{:?}", texts(&bot));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        bot.downloads().len(),
        3,
        "the markdown file and the two PDFs were fetched, not the program"
    );
    assert_eq!(
        self::notes(&srv).await.len(),
        2,
        "the damaged PDF saved nothing"
    );
    assert!(fake.requests().is_empty(), "documents start no turn");
}
