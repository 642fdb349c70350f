//! The speech clients against a small server on loopback: what goes on the wire, what comes
//! back, and that a key never shows in an error.

use super::*;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use std::sync::{Arc, Mutex};

const KEY: &str = "sk-test-secret-key-0123456789";

/// A request as the server saw it: headers and body.
type Received = (HeaderMap, Vec<u8>);

#[derive(Default, Clone)]
struct Seen(Arc<Mutex<Vec<Received>>>);

async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/v1")
}

fn endpoint(base: &str) -> SpeechEndpoint {
    SpeechEndpoint {
        base_url: base.to_owned(),
        model: "whisper-1".to_owned(),
        api_key: Some(KEY.to_owned()),
    }
}

#[tokio::test]
async fn a_transcription_is_a_multipart_upload_with_the_file_and_model() {
    let seen = Seen::default();
    let record = seen.clone();
    let router = axum::Router::new().route(
        "/v1/audio/transcriptions",
        post(move |headers: HeaderMap, body: Bytes| {
            let record = record.clone();
            async move {
                record.0.lock().unwrap().push((headers, body.to_vec()));
                axum::Json(json!({"text": "  buy milk  "}))
            }
        }),
    );
    let base = serve(router).await;
    let stt = SpeechToText::new(&endpoint(&base)).unwrap();
    let text = stt
        .transcribe(b"OggS-audio-bytes".to_vec(), "voice.ogg", "audio/ogg")
        .await
        .unwrap();
    assert_eq!(text, "buy milk");
    let (headers, body) = seen.0.lock().unwrap()[0].clone();
    assert_eq!(headers["authorization"], format!("Bearer {KEY}"));
    let ct = headers["content-type"].to_str().unwrap().to_owned();
    assert!(ct.starts_with("multipart/form-data; boundary="), "{ct}");
    let body = String::from_utf8_lossy(&body);
    assert!(
        body.contains("name=\"file\"; filename=\"voice.ogg\""),
        "{body}"
    );
    assert!(body.contains("OggS-audio-bytes"));
    assert!(body.contains("name=\"model\"\r\n\r\nwhisper-1"), "{body}");
}

#[tokio::test]
async fn an_error_body_echoing_the_key_never_shows_it() {
    let router = axum::Router::new()
        .route(
            "/v1/audio/transcriptions",
            post(|| async {
                (
                    StatusCode::UNAUTHORIZED,
                    axum::Json(json!({"error": {"message": format!("bad key {KEY}")}})),
                )
            }),
        )
        .route(
            "/v1/audio/speech",
            post(|| async { (StatusCode::INTERNAL_SERVER_ERROR, format!("oops {KEY}")) }),
        );
    let base = serve(router).await;
    let err = SpeechToText::new(&endpoint(&base))
        .unwrap()
        .transcribe(vec![1, 2, 3], "voice.ogg", "audio/ogg")
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(!text.contains(KEY), "{text}");
    assert!(text.contains("401"), "{text}");
    let err = TextToSpeech::new(&endpoint(&base), "alloy")
        .unwrap()
        .speak("hi")
        .await
        .unwrap_err();
    assert!(!err.to_string().contains(KEY), "{err}");
    assert!(!format!("{err:?}").contains(KEY));
    assert!(!format!("{:?}", endpoint(&base)).contains(KEY));
}

#[tokio::test]
async fn speech_sends_opus_json_cut_to_the_input_limit_and_caps_the_answer() {
    let seen = Seen::default();
    let record = seen.clone();
    let big = Arc::new(Mutex::new(false));
    let big_flag = big.clone();
    let router = axum::Router::new().route(
        "/v1/audio/speech",
        post(move |headers: HeaderMap, body: Bytes| {
            let record = record.clone();
            let big = *big_flag.lock().unwrap();
            async move {
                record.0.lock().unwrap().push((headers, body.to_vec()));
                if big {
                    vec![0u8; MAX_SPEECH_AUDIO_BYTES + 1]
                } else {
                    b"OggS-spoken".to_vec()
                }
            }
        }),
    );
    let base = serve(router).await;
    let tts = TextToSpeech::new(&endpoint(&base), "nova").unwrap();
    let long = "é".repeat(MAX_SPEECH_INPUT_CHARS + 10);
    assert_eq!(tts.speak(&long).await.unwrap(), b"OggS-spoken");
    let (_, body) = seen.0.lock().unwrap()[0].clone();
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["response_format"], "opus");
    assert_eq!(body["voice"], "nova");
    assert_eq!(body["model"], "whisper-1");
    assert_eq!(
        body["input"].as_str().unwrap().chars().count(),
        MAX_SPEECH_INPUT_CHARS
    );
    *big.lock().unwrap() = true;
    let err = tts.speak("hi").await.unwrap_err();
    assert!(err.to_string().contains("larger than"), "{err}");
}
