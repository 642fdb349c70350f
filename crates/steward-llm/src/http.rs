//! HTTP plumbing shared by the three wire formats: client construction, auth headers,
//! sending with cancellation + whole-request timeout, mapping transport failures and
//! error bodies to `LlmError`, reading capped JSON bodies, and driving an SSE stream.
//!
//! Owns: everything between "here is a request" and "here are bytes/events". Does not own:
//! request bodies or the meaning of events (the format modules do that). The API key lives
//! only in sensitive header values and in `redact`; it is never formatted anywhere else.

use crate::error::STREAM_CUT_BEFORE_OUTPUT;
use crate::sse::{SseEvent, SseParser};
use crate::{LlmError, ProviderConfig};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::de::DeserializeOwned;
use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;
use steward_protocol::secret_url;
use tokio_util::sync::CancellationToken;

/// Largest successful response body we accept (a runaway server must not eat memory).
const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
/// Largest error body we read to find a message.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// Longest error excerpt shown to the user.
const MAX_EXCERPT_CHARS: usize = 300;
/// Largest single SSE event (line + data) we buffer.
const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

/// Consumes SSE events for one streamed answer.
pub(crate) trait StreamHandler {
    /// Handle one event; `Ok(true)` means the answer is complete.
    fn on_event(&mut self, ev: SseEvent) -> Result<bool, LlmError>;
    /// Whether the answer may be accepted if the body ends now without an end marker.
    fn complete(&self) -> bool;
    /// Whether answer text has reached the user: a cut after that is not retryable. Tool
    /// call fragments do not count, as nobody has seen them and a retry loses nothing.
    fn has_output(&self) -> bool;
}

/// One provider's client and connection settings.
pub(crate) struct Http {
    pub name: String,
    pub base_url: String,
    pub stream: bool,
    /// Built on the first request, not at start: building it loads the system's root
    /// certificates (parsed, in memory), and an idle process — or a provider never called —
    /// should not pay for that.
    client: OnceLock<reqwest::Client>,
    connect_timeout: Duration,
    auth: HeaderMap,
    /// The API key and every secret part of the base URL (userinfo, query values), longest
    /// first: scrubbed from any text that becomes an error.
    secrets: Vec<String>,
    request_timeout: Duration,
    /// Base URL with credentials and query values masked, for messages.
    shown_base: String,
}

impl Http {
    /// `auth` lists (header, value) pairs carrying the key; they are marked sensitive.
    pub fn new(cfg: &ProviderConfig, auth: &[(&'static str, String)]) -> Result<Http, LlmError> {
        // reqwest is built without a default crypto provider; install ring once. An error
        // only means some provider is already installed, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let base_url = cfg.base_url.trim().trim_end_matches('/').to_owned();
        let parsed = reqwest::Url::parse(&base_url).map_err(|e| {
            LlmError::Config(format!(
                "provider {}: base_url is not a valid URL ({e})",
                cfg.name
            ))
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(LlmError::Config(format!(
                "provider {}: base_url must start with http:// or https://",
                cfg.name
            )));
        }
        let shown_base = secret_url::mask_url(&base_url);
        // Both spellings: the URL as configured and as the url crate re-serialises it (which
        // is what reqwest and servers echo), e.g. with percent-encoded userinfo.
        let mut secrets = secret_url::url_secrets(&base_url);
        secrets.extend(secret_url::url_secrets(parsed.as_str()));
        secrets.extend(cfg.api_key.clone().filter(|k| !k.is_empty()));
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();

        let mut headers = HeaderMap::new();
        for (name, value) in auth {
            let mut v = HeaderValue::from_str(value).map_err(|_| {
                LlmError::Config(format!(
                    "provider {}: the API key contains characters not allowed in an HTTP header",
                    cfg.name
                ))
            })?;
            v.set_sensitive(true);
            headers.insert(HeaderName::from_static(name), v);
        }
        Ok(Http {
            name: cfg.name.clone(),
            base_url,
            stream: cfg.stream,
            client: OnceLock::new(),
            connect_timeout: cfg.connect_timeout,
            auth: headers,
            secrets,
            request_timeout: cfg.request_timeout,
            shown_base,
        })
    }

    /// The provider's client, built on first use (two racing first calls may both build
    /// one; the first stored wins, the other is dropped).
    fn client(&self) -> Result<&reqwest::Client, LlmError> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let built = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .user_agent(concat!("steward/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                LlmError::Config(format!(
                    "provider {}: cannot build HTTP client: {}",
                    self.name,
                    chain(e)
                ))
            })?;
        Ok(self.client.get_or_init(|| built))
    }

    pub fn get(&self, url: &str) -> Result<reqwest::RequestBuilder, LlmError> {
        Ok(self.client()?.get(url).headers(self.auth.clone()))
    }

    pub fn post_json(
        &self,
        url: &str,
        body: &serde_json::Value,
    ) -> Result<reqwest::RequestBuilder, LlmError> {
        // Serialized once here so the bytes on the wire are exactly serde_json's output.
        let bytes = serde_json::to_vec(body).unwrap_or_default();
        Ok(self
            .client()?
            .post(url)
            .headers(self.auth.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(bytes))
    }

    /// A `multipart/form-data` POST (the speech-to-text upload); reqwest writes the body and
    /// its random boundary.
    pub fn post_form(
        &self,
        url: &str,
        form: reqwest::multipart::Form,
    ) -> Result<reqwest::RequestBuilder, LlmError> {
        Ok(self
            .client()?
            .post(url)
            .headers(self.auth.clone())
            .multipart(form))
    }

    /// Read a whole body of at most `limit` bytes (audio from a text-to-speech endpoint);
    /// a longer one is refused as soon as it passes the limit, not after it was read.
    pub async fn bytes(
        &self,
        mut resp: reqwest::Response,
        limit: usize,
    ) -> Result<Vec<u8>, LlmError> {
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| self.body_error(e, false))? {
            if body.len().saturating_add(chunk.len()) > limit {
                return Err(self.decode(&format!("the response is larger than {limit} bytes")));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// Run `fut` under the whole-request timeout, aborting at once on cancellation.
    pub async fn guarded<T>(
        &self,
        cancel: &CancellationToken,
        fut: impl Future<Output = Result<T, LlmError>>,
    ) -> Result<T, LlmError> {
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(LlmError::Cancelled),
            r = tokio::time::timeout(self.request_timeout, fut) => r.unwrap_or_else(|_| Err(LlmError::Timeout { provider: self.name.clone() })),
        }
    }

    /// Send and return the response if its status is a success; otherwise an `Http` error
    /// carrying a redacted excerpt of the body and any Retry-After.
    pub async fn send(&self, rb: reqwest::RequestBuilder) -> Result<reqwest::Response, LlmError> {
        let mut resp = rb.send().await.map_err(|e| self.transport_error(e))?;
        let status = resp.status();
        tracing::Span::current().record("status", status.as_u16());
        if status.is_success() {
            return Ok(resp);
        }
        let retry_after = crate::retry::retry_after(resp.headers());
        let mut body = Vec::new();
        // A failure while reading the error body must not hide the status itself.
        while let Ok(Some(chunk)) = resp.chunk().await {
            body.extend_from_slice(&chunk);
            if body.len() >= MAX_ERROR_BODY_BYTES {
                break;
            }
        }
        Err(LlmError::Http {
            provider: self.name.clone(),
            status: status.as_u16(),
            message: self.redact(&error_excerpt(&body)),
            retry_after,
        })
    }

    /// Read a whole (capped) body and parse it as JSON.
    pub async fn json<T: DeserializeOwned>(
        &self,
        mut resp: reqwest::Response,
    ) -> Result<T, LlmError> {
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| self.body_error(e, false))? {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_BODY_BYTES {
                return Err(self.decode("the response is too large"));
            }
        }
        serde_json::from_slice(&body).map_err(|e| self.decode(&format!("invalid JSON ({e})")))
    }

    /// Feed the SSE body to `handler` until it reports completion or the body ends.
    pub async fn drive_stream(
        &self,
        mut resp: reqwest::Response,
        handler: &mut impl StreamHandler,
    ) -> Result<(), LlmError> {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        loop {
            let chunk = resp
                .chunk()
                .await
                .map_err(|e| self.body_error(e, handler.has_output()))?;
            let ended = chunk.is_none();
            match chunk {
                Some(bytes) => parser.push(&bytes, &mut events),
                None => parser.finish(&mut events),
            }
            if parser.buffered() > MAX_EVENT_BYTES {
                return Err(self.decode("a stream event is too large"));
            }
            for ev in events.drain(..) {
                if handler.on_event(ev).map_err(|e| self.adopt(e))? {
                    return Ok(());
                }
            }
            if ended {
                if handler.complete() {
                    return Ok(());
                }
                return Err(self.stream_cut(
                    handler.has_output(),
                    "the stream ended before the answer was complete",
                ));
            }
        }
    }

    /// Errors built by stream handlers leave `provider` empty; fill it in and redact.
    fn adopt(&self, e: LlmError) -> LlmError {
        match e {
            LlmError::Decode { message, .. } => self.decode(&message),
            LlmError::Http {
                status,
                message,
                retry_after,
                ..
            } => LlmError::Http {
                provider: self.name.clone(),
                status,
                message: self.redact(&message),
                retry_after,
            },
            other => other,
        }
    }

    pub fn decode(&self, message: &str) -> LlmError {
        LlmError::Decode {
            provider: self.name.clone(),
            message: self.redact(message),
        }
    }

    fn stream_cut(&self, had_output: bool, detail: &str) -> LlmError {
        let message = if had_output {
            format!("the answer stream broke after output began: {detail}")
        } else {
            format!("{STREAM_CUT_BEFORE_OUTPUT}: {detail}")
        };
        self.decode(&message)
    }

    fn body_error(&self, e: reqwest::Error, had_output: bool) -> LlmError {
        if e.is_timeout() {
            return LlmError::Timeout {
                provider: self.name.clone(),
            };
        }
        self.stream_cut(had_output, &chain(e))
    }

    pub fn transport_error(&self, e: reqwest::Error) -> LlmError {
        if e.is_timeout() {
            return LlmError::Timeout {
                provider: self.name.clone(),
            };
        }
        // Anything failing before a response (refused, DNS, TLS, reset) is a reachability
        // problem worth retrying.
        LlmError::Connect {
            provider: self.name.clone(),
            message: self.redact(&format!("{} ({})", self.shown_base, chain(e))),
        }
    }

    /// Remove the key and the base URL's credentials from text that came from outside
    /// (error bodies can echo them).
    pub fn redact(&self, text: &str) -> String {
        secret_url::scrub(text, &self.secrets)
    }
}

/// The error's message and its causes, without the request URL (it may carry credentials).
fn chain(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&dyn std::error::Error> = Some(&e);
    while let Some(err) = cur {
        let s = err.to_string();
        let s = s.split(" for url (").next().unwrap_or(&s).to_owned();
        if !parts.iter().any(|p| p == &s) {
            parts.push(s);
        }
        cur = err.source();
    }
    parts.join(": ")
}

/// A short, single-line excerpt of an error body, preferring the provider's own message
/// (`{"error":{"message":..}}` for all three formats, `{"error":"..."}` for Ollama).
pub(crate) fn error_excerpt(body: &[u8]) -> String {
    let from_json = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let err = v.get("error")?;
            err.get("message")
                .and_then(|m| m.as_str())
                .or_else(|| err.as_str())
                .map(str::to_owned)
        });
    let text = from_json.unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(MAX_EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_prefers_provider_message_and_is_short() {
        assert_eq!(
            error_excerpt(br#"{"error":{"message":"bad key","type":"auth"}}"#),
            "bad key"
        );
        assert_eq!(
            error_excerpt(br#"{"error":"model not found"}"#),
            "model not found"
        );
        assert_eq!(error_excerpt(b"  plain\n  text "), "plain text");
        let long = "x".repeat(1000);
        let ex = error_excerpt(long.as_bytes());
        assert!(ex.chars().count() <= MAX_EXCERPT_CHARS + 1);
    }
}
