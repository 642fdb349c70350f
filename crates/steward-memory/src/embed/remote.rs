//! Remote embedders: OpenAI-compatible `/embeddings` (also Ollama's `/v1`), and Gemini's
//! `batchEmbedContents`.
//!
//! Owns: the wire formats, batching, order, dimension checks, normalisation, and keeping the
//! API key out of every error, log and Debug output.
//! Does not own: retries or fallbacks (the memory logic treats a failed vector as best-effort
//! and backfills later), nor reading keys from config (the binary).

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use steward_protocol::secret_url;

use super::{EmbedError, Embedder, l2_normalize};

/// Texts per request: below both OpenAI's (2048) and Gemini's (100) batch limits.
const BATCH: usize = 96;
const TIMEOUT: Duration = Duration::from_secs(60);
/// Error bodies are cut to this many characters: enough to diagnose, not a page of HTML.
const MAX_ERROR_CHARS: usize = 300;

/// Which wire protocol a remote embedder speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteKind {
    /// `POST {base}/embeddings` with a bearer key.
    OpenAi,
    /// `POST {base}/v1beta/models/{model}:batchEmbedContents` with `x-goog-api-key`.
    Gemini,
    /// Ollama's OpenAI-compatible endpoint (base ends in `/v1`); a key is optional.
    Ollama,
}

impl RemoteKind {
    fn prefix(self) -> &'static str {
        match self {
            RemoteKind::OpenAi => "openai",
            RemoteKind::Gemini => "gemini",
            RemoteKind::Ollama => "ollama",
        }
    }
}

/// An embedder behind an HTTP API.
pub struct RemoteEmbedder {
    kind: RemoteKind,
    base_url: String,
    api_key: Option<String>,
    model: String,
    model_id: String,
    dims: usize,
    http: reqwest::Client,
}

impl std::fmt::Debug for RemoteEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEmbedder")
            .field("kind", &self.kind)
            .field("base_url", &secret_url::mask_url(&self.base_url))
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("model", &self.model)
            .field("dims", &self.dims)
            .finish()
    }
}

impl RemoteEmbedder {
    /// `dims` is what the model is declared to return; any other width is an error, since
    /// vectors of one model id must all be comparable.
    pub fn new(
        kind: RemoteKind,
        base_url: String,
        api_key: Option<String>,
        model: String,
        dims: usize,
    ) -> Result<RemoteEmbedder, EmbedError> {
        let base_url = base_url.trim().trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(EmbedError::Config(format!(
                "base URL must start with http:// or https://, got {:?}",
                secret_url::mask_url(&base_url)
            )));
        }
        let model = model.trim();
        // Gemini names models "models/x" in some places; the URL and model id want bare "x".
        let model = model.strip_prefix("models/").unwrap_or(model).to_string();
        if model.is_empty() {
            return Err(EmbedError::Config("model name is empty".into()));
        }
        if dims == 0 {
            return Err(EmbedError::Config("dims must be greater than zero".into()));
        }
        let api_key = api_key.filter(|k| !k.trim().is_empty());
        if api_key.is_none() && kind != RemoteKind::Ollama {
            return Err(EmbedError::Config(format!(
                "{} embeddings need an API key",
                kind.prefix()
            )));
        }
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| EmbedError::Config(format!("HTTP client: {e}")))?;
        Ok(RemoteEmbedder {
            kind,
            model_id: format!("{}:{model}", kind.prefix()),
            base_url,
            api_key,
            model,
            dims,
            http,
        })
    }

    async fn embed_batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let request = match self.kind {
            RemoteKind::OpenAi | RemoteKind::Ollama => {
                let req = self
                    .http
                    .post(format!("{}/embeddings", self.base_url))
                    .json(&json!({ "model": self.model, "input": texts }));
                match &self.api_key {
                    Some(key) => req.bearer_auth(key),
                    None => req,
                }
            }
            RemoteKind::Gemini => {
                let model_path = format!("models/{}", self.model);
                let requests: Vec<_> = texts
                    .iter()
                    .map(
                        |t| json!({ "model": model_path, "content": { "parts": [{ "text": t }] } }),
                    )
                    .collect();
                let req = self
                    .http
                    .post(format!(
                        "{}/v1beta/{model_path}:batchEmbedContents",
                        self.base_url
                    ))
                    .json(&json!({ "requests": requests }));
                match &self.api_key {
                    Some(key) => req.header("x-goog-api-key", key),
                    None => req,
                }
            }
        };
        let response = request
            .send()
            .await
            .map_err(|e| EmbedError::Connect(self.redact(&e.without_url().to_string())))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|e| EmbedError::Connect(self.redact(&e.without_url().to_string())))?;
        if !status.is_success() {
            return Err(EmbedError::Http {
                status: status.as_u16(),
                message: self.redact(&error_message(&body)),
            });
        }
        let mut vectors = match self.kind {
            RemoteKind::OpenAi | RemoteKind::Ollama => decode_openai(&body)?,
            RemoteKind::Gemini => decode_gemini(&body)?,
        };
        if vectors.len() != texts.len() {
            return Err(EmbedError::Decode(format!(
                "asked for {} vectors, got {}",
                texts.len(),
                vectors.len()
            )));
        }
        for v in &mut vectors {
            if v.len() != self.dims {
                return Err(EmbedError::Decode(format!(
                    "{} returned {} dimensions, configured for {}",
                    self.model_id,
                    v.len(),
                    self.dims
                )));
            }
            l2_normalize(v);
        }
        Ok(vectors)
    }

    /// Servers sometimes echo the key back (e.g. "Incorrect API key provided: sk-…"), or the
    /// base URL's credentials: scrub them from anything that becomes an error message.
    fn redact(&self, text: &str) -> String {
        let text = match &self.api_key {
            Some(key) if !key.is_empty() => text.replace(key.as_str(), "[redacted]"),
            _ => text.to_string(),
        };
        secret_url::scrub_url(&text, &self.base_url)
    }
}

#[derive(Deserialize)]
struct OpenAiResponse {
    data: Vec<OpenAiItem>,
}

#[derive(Deserialize)]
struct OpenAiItem {
    embedding: Vec<f32>,
    #[serde(default)]
    index: Option<usize>,
}

fn decode_openai(body: &[u8]) -> Result<Vec<Vec<f32>>, EmbedError> {
    let mut parsed: OpenAiResponse = serde_json::from_slice(body)
        .map_err(|e| EmbedError::Decode(format!("not an embeddings response: {e}")))?;
    // The API documents `index` as the input position; honour it rather than trusting the
    // array order.
    if parsed.data.iter().all(|d| d.index.is_some()) {
        parsed.data.sort_by_key(|d| d.index);
        let in_place = parsed
            .data
            .iter()
            .enumerate()
            .all(|(i, d)| d.index == Some(i));
        if !in_place {
            return Err(EmbedError::Decode(
                "response indices are not 0..n (missing or duplicated)".into(),
            ));
        }
    }
    Ok(parsed.data.into_iter().map(|d| d.embedding).collect())
}

#[derive(Deserialize)]
struct GeminiResponse {
    embeddings: Vec<GeminiItem>,
}

#[derive(Deserialize)]
struct GeminiItem {
    values: Vec<f32>,
}

fn decode_gemini(body: &[u8]) -> Result<Vec<Vec<f32>>, EmbedError> {
    let parsed: GeminiResponse = serde_json::from_slice(body)
        .map_err(|e| EmbedError::Decode(format!("not a batchEmbedContents response: {e}")))?;
    Ok(parsed.embeddings.into_iter().map(|e| e.values).collect())
}

/// The most useful line of an error body: `error.message` (OpenAI, Gemini, Ollama all use it),
/// else `error` as a string, else the raw text, cut short.
fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let from_json = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let err = v.get("error")?;
            err.get("message")
                .and_then(|m| m.as_str())
                .or_else(|| err.as_str())
                .map(str::to_string)
        });
    let msg = from_json.unwrap_or_else(|| text.trim().to_string());
    if msg.chars().count() > MAX_ERROR_CHARS {
        let cut: String = msg.chars().take(MAX_ERROR_CHARS).collect();
        format!("{cut}…")
    } else {
        msg
    }
}

#[async_trait::async_trait]
impl Embedder for RemoteEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dims(&self) -> usize {
        self.dims
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(self.embed_batch(chunk).await?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_message_prefers_json_message_and_truncates() {
        let body = br#"{"error":{"message":"bad model","type":"invalid"}}"#;
        assert_eq!(error_message(body), "bad model");
        assert_eq!(
            error_message(br#"{"error":"model not found"}"#),
            "model not found"
        );
        let long = "x".repeat(1000);
        let msg = error_message(long.as_bytes());
        assert_eq!(msg.chars().count(), MAX_ERROR_CHARS + 1);
    }

    #[test]
    fn openai_decode_reorders_by_index_and_rejects_gaps() {
        let body = br#"{"data":[{"index":1,"embedding":[2.0]},{"index":0,"embedding":[1.0]}]}"#;
        assert_eq!(decode_openai(body).unwrap(), vec![vec![1.0], vec![2.0]]);
        let gap = br#"{"data":[{"index":0,"embedding":[1.0]},{"index":2,"embedding":[2.0]}]}"#;
        assert!(matches!(decode_openai(gap), Err(EmbedError::Decode(_))));
    }

    #[test]
    fn config_errors_and_model_ids() {
        let no_key = RemoteEmbedder::new(
            RemoteKind::OpenAi,
            "http://127.0.0.1:1/v1".into(),
            None,
            "m".into(),
            3,
        );
        assert!(matches!(no_key, Err(EmbedError::Config(_))));
        let bad_url = RemoteEmbedder::new(
            RemoteKind::Ollama,
            "127.0.0.1:1".into(),
            None,
            "m".into(),
            3,
        );
        assert!(matches!(bad_url, Err(EmbedError::Config(_))));
        let zero = RemoteEmbedder::new(
            RemoteKind::Ollama,
            "http://127.0.0.1:1".into(),
            None,
            "m".into(),
            0,
        );
        assert!(matches!(zero, Err(EmbedError::Config(_))));
        let g = RemoteEmbedder::new(
            RemoteKind::Gemini,
            "http://127.0.0.1:1/".into(),
            Some("k".into()),
            "models/text-embedding-004".into(),
            768,
        )
        .unwrap();
        assert_eq!(g.model_id(), "gemini:text-embedding-004");
        assert_eq!(g.dims(), 768);
    }

    #[test]
    fn debug_never_shows_the_key() {
        let e = RemoteEmbedder::new(
            RemoteKind::OpenAi,
            "http://127.0.0.1:1/v1".into(),
            Some("sk-secret-123".into()),
            "m".into(),
            3,
        )
        .unwrap();
        let dbg = format!("{e:?}");
        assert!(!dbg.contains("sk-secret-123"), "{dbg}");
        assert!(dbg.contains("[redacted]"));
    }

    #[tokio::test]
    async fn credentials_in_the_base_url_stay_out_of_errors_and_debug() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let e = RemoteEmbedder::new(
            RemoteKind::OpenAi,
            format!("http://user:pw-canary-e1@127.0.0.1:{port}/v1?api-key=qk-canary-e2"),
            Some("sk-secret-123".into()),
            "m".into(),
            3,
        )
        .unwrap();
        let err = e.embed(&["hello".to_owned()]).await.unwrap_err();
        let shown = format!("{err} {err:?} {e:?}");
        assert!(matches!(err, EmbedError::Connect(_)), "{shown}");
        assert!(!shown.contains("pw-canary-e1"), "{shown}");
        assert!(!shown.contains("qk-canary-e2"), "{shown}");
        let bad = RemoteEmbedder::new(
            RemoteKind::OpenAi,
            "ftp://user:pw-canary-e3@h".into(),
            Some("k".into()),
            "m".into(),
            3,
        )
        .unwrap_err();
        assert!(!bad.to_string().contains("pw-canary-e3"), "{bad}");
    }
}
