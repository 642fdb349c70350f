//! Speech endpoints speaking OpenAI's audio API, which whisper.cpp's server, LocalAI, Groq
//! and others speak too: `POST {base}/audio/transcriptions` (multipart/form-data with `file`
//! and `model`; answer `{"text": …}`) and `POST {base}/audio/speech` (JSON `{model, input,
//! voice, response_format}`; answer the audio bytes).
//!
//! Owns: those two calls, their size caps and their errors (`LlmError`, through the same
//! `Http` plumbing as the chat clients, so the API key is only ever in a sensitive header and
//! scrubbed from any text that becomes an error). Does not own: where audio comes from or
//! goes to (a surface), or deciding when to call them.
//!
//! Why here (layer 3) and not in a surface: it is a model-ish HTTP API with a key, a base URL
//! and provider errors, exactly what this crate's `Http` already handles; every surface that
//! takes voice (Telegram now, the web app later) can share it.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::http::Http;
use crate::{LlmError, ProviderConfig, ProviderKind};

/// Longest text sent to be spoken, in characters (OpenAI's own limit for `input`).
pub const MAX_SPEECH_INPUT_CHARS: usize = 4096;
/// Largest audio a text-to-speech endpoint may answer with.
pub const MAX_SPEECH_AUDIO_BYTES: usize = 20 * 1024 * 1024;
/// Whole-request timeout of one speech call (a long voice note takes a while to transcribe).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One speech endpoint: its base URL (the part before `/audio/…`, e.g.
/// `https://api.openai.com/v1`), the model and an optional bearer key. `Debug` masks the key.
#[derive(Clone)]
pub struct SpeechEndpoint {
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
}

impl fmt::Debug for SpeechEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpeechEndpoint")
            .field(
                "base_url",
                &steward_protocol::secret_url::mask_url(&self.base_url),
            )
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .finish()
    }
}

fn http_for(name: &str, endpoint: &SpeechEndpoint) -> Result<Http, LlmError> {
    let cfg = ProviderConfig {
        name: name.to_owned(),
        kind: ProviderKind::OpenAi,
        base_url: endpoint.base_url.clone(),
        api_key: endpoint.api_key.clone(),
        stream: false,
        request_timeout: REQUEST_TIMEOUT,
        connect_timeout: CONNECT_TIMEOUT,
        parts: None,
    };
    let auth: Vec<(&'static str, String)> = endpoint
        .api_key
        .iter()
        .filter(|k| !k.is_empty())
        .map(|k| ("authorization", format!("Bearer {k}")))
        .collect();
    Http::new(&cfg, &auth)
}

/// A speech-to-text client (`/audio/transcriptions`).
pub struct SpeechToText {
    http: Http,
    model: String,
}

impl fmt::Debug for SpeechToText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpeechToText")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct Transcription {
    text: String,
}

impl SpeechToText {
    pub fn new(endpoint: &SpeechEndpoint) -> Result<Self, LlmError> {
        Ok(Self {
            http: http_for("speech-to-text", endpoint)?,
            model: endpoint.model.clone(),
        })
    }

    /// The words heard in `audio` (a file named `file_name`, of type `mime`), trimmed.
    pub async fn transcribe(
        &self,
        audio: Vec<u8>,
        file_name: &str,
        mime: &str,
    ) -> Result<String, LlmError> {
        let file = reqwest::multipart::Part::bytes(audio)
            .file_name(file_name.to_owned())
            .mime_str(mime)
            .map_err(|_| LlmError::Config(format!("{mime} is not a media type")))?;
        let form = reqwest::multipart::Form::new()
            .part("file", file)
            .text("model", self.model.clone())
            .text("response_format", "json");
        let url = format!("{}/audio/transcriptions", self.http.base_url);
        let request = self.http.post_form(&url, form)?;
        let answer: Transcription = self
            .http
            .guarded(&CancellationToken::new(), async {
                let resp = self.http.send(request).await?;
                self.http.json(resp).await
            })
            .await?;
        Ok(answer.text.trim().to_owned())
    }
}

/// A text-to-speech client (`/audio/speech`), answering Opus in Ogg (what Telegram plays as
/// a voice message).
pub struct TextToSpeech {
    http: Http,
    model: String,
    voice: String,
}

impl fmt::Debug for TextToSpeech {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TextToSpeech")
            .field("model", &self.model)
            .field("voice", &self.voice)
            .finish_non_exhaustive()
    }
}

impl TextToSpeech {
    pub fn new(endpoint: &SpeechEndpoint, voice: &str) -> Result<Self, LlmError> {
        Ok(Self {
            http: http_for("text-to-speech", endpoint)?,
            model: endpoint.model.clone(),
            voice: voice.to_owned(),
        })
    }

    /// `text` spoken, as Ogg/Opus bytes; text past `MAX_SPEECH_INPUT_CHARS` is cut there.
    pub async fn speak(&self, text: &str) -> Result<Vec<u8>, LlmError> {
        let input: String = text.chars().take(MAX_SPEECH_INPUT_CHARS).collect();
        let body = json!({
            "model": self.model,
            "input": input,
            "voice": self.voice,
            "response_format": "opus",
        });
        let url = format!("{}/audio/speech", self.http.base_url);
        let request = self.http.post_json(&url, &body)?;
        let audio = self
            .http
            .guarded(&CancellationToken::new(), async {
                let resp = self.http.send(request).await?;
                self.http.bytes(resp, MAX_SPEECH_AUDIO_BYTES).await
            })
            .await?;
        if audio.is_empty() {
            return Err(self.http.decode("the answer held no audio"));
        }
        Ok(audio)
    }
}

#[cfg(test)]
mod tests;
