//! Bot API access: frankenstein's method trait over the workspace's reqwest client.
//!
//! Owns: `BotApi` (the configurable base URL, the token in the path, one JSON POST per call —
//! or one `multipart/form-data` POST for a file upload — turning answers into frankenstein
//! types or a `TelegramError` with the token scrubbed).
//! Does not own: retrying (`poller`, `backoff`), deciding who may talk to the bot
//! (`allowlist`). frankenstein's own `client-reqwest` is not used: it would switch on
//! reqwest's `rustls` feature, and with it a second crypto provider (aws-lc-rs), for the
//! whole workspace.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use frankenstein::AsyncTelegramApi;
use frankenstein::response::ErrorResponse;

use crate::error::TelegramError;
use crate::token::BotToken;

/// Telegram's own Bot API server; `telegram.api_base_url` replaces it (a local Bot API
/// server, or the tests' fake).
pub const DEFAULT_API_BASE: &str = "https://api.telegram.org";

/// Room beyond the long-poll timeout before the HTTP client gives up on a `getUpdates`.
const REQUEST_SLACK: Duration = Duration::from_secs(15);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A Bot API client for one bot. `Debug` shows the base URL, never the token.
#[derive(Clone)]
pub struct BotApi {
    pub(crate) http: reqwest::Client,
    pub(crate) base: String,
    pub(crate) token: BotToken,
}

impl fmt::Debug for BotApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BotApi")
            .field("base", &self.base)
            .field("token", &self.token)
            .finish()
    }
}

impl BotApi {
    /// A client for `base` (e.g. `https://api.telegram.org`, no `/bot` suffix). Requests time
    /// out `long_poll` plus some slack after they were sent, so that a long poll is never cut
    /// short by the client itself.
    pub fn new(base: &str, token: BotToken, long_poll: Duration) -> Result<Self, TelegramError> {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(long_poll.saturating_add(REQUEST_SLACK))
            .build()
            .map_err(|e| TelegramError::Client(token.scrub(&e.without_url().to_string())))?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
            token,
        })
    }

    /// The token, to scrub texts with.
    pub fn token(&self) -> &BotToken {
        &self.token
    }

    pub(crate) fn transport(&self, e: reqwest::Error) -> TelegramError {
        // `without_url` drops the URL reqwest keeps; the scrub catches it in a source's text.
        let e = e.without_url();
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        TelegramError::Transport(self.token.scrub(&text))
    }

    fn decode_failure(&self, method: &str, e: &serde_json::Error) -> TelegramError {
        // serde's message can quote the offending value (a person's text): keep only where.
        TelegramError::Decode {
            method: method.to_owned(),
            reason: format!(
                "{:?} error at line {} column {}",
                e.classify(),
                e.line(),
                e.column()
            ),
        }
    }

    /// A method call as `multipart/form-data` (a file upload: `sendVoice`, `sendPhoto`);
    /// reqwest writes the body with a random boundary.
    pub(crate) async fn request_multipart<Output: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        form: reqwest::multipart::Form,
    ) -> Result<Output, TelegramError> {
        let url = format!("{}/bot{}/{method}", self.base, self.token.expose());
        let response = self
            .http
            .post(url)
            .multipart(form)
            .send()
            .await
            .map_err(|e| self.transport(e))?;
        self.answer(method, response).await
    }

    /// The Bot API's answer to `method`: its result decoded, or its error object.
    async fn answer<Output: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        response: reqwest::Response,
    ) -> Result<Output, TelegramError> {
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| self.transport(e))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(|e| self.decode_failure(method, &e));
        }
        match serde_json::from_slice::<ErrorResponse>(&bytes) {
            Ok(err) => Err(TelegramError::Api {
                method: method.to_owned(),
                code: u16::try_from(err.error_code).unwrap_or(status.as_u16()),
                description: self.token.scrub(&err.description),
                retry_after: err.parameters.and_then(|p| p.retry_after).map(u64::from),
            }),
            Err(_) => Err(TelegramError::Status {
                method: method.to_owned(),
                status: status.as_u16(),
            }),
        }
    }
}

#[async_trait::async_trait]
impl AsyncTelegramApi for BotApi {
    type Error = TelegramError;

    async fn request<Params, Output>(
        &self,
        method: &str,
        params: Option<Params>,
    ) -> Result<Output, Self::Error>
    where
        Params: serde::ser::Serialize + std::fmt::Debug + std::marker::Send,
        Output: serde::de::DeserializeOwned,
    {
        let url = format!("{}/bot{}/{method}", self.base, self.token.expose());
        let body = match params {
            Some(p) => serde_json::to_vec(&p).map_err(|_| TelegramError::Encode {
                method: method.to_owned(),
            })?,
            None => b"{}".to_vec(),
        };
        let response = self
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| self.transport(e))?;
        self.answer(method, response).await
    }

    async fn request_with_form_data<Params, Output>(
        &self,
        method: &str,
        _params: Params,
        _files: Vec<(&str, PathBuf)>,
    ) -> Result<Output, Self::Error>
    where
        Params: serde::ser::Serialize + std::fmt::Debug + std::marker::Send,
        Output: serde::de::DeserializeOwned,
    {
        Err(TelegramError::UploadUnsupported {
            method: method.to_owned(),
        })
    }
}
