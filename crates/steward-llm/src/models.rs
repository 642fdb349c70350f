//! `Models`: the configured providers by name, and the resilient call (retry with
//! backoff + jitter, Retry-After, one fallback model, cancellation).
//!
//! Owns: which provider serves a `ModelRef`, and when to try again. Does not own: wire
//! formats or error classification (`LlmError::is_retryable`).

use crate::{
    ChatRequest, ChatResponse, LlmError, ModelProvider, ModelRef, ProviderConfig, ProviderKind,
    RetryPolicy, TextSink,
};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use steward_protocol::{Attachment, MimeType};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// Providers by name plus the retry policy.
#[derive(Clone)]
pub struct Models {
    providers: BTreeMap<String, Arc<dyn ModelProvider>>,
    retry: RetryPolicy,
}

impl fmt::Debug for Models {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Models")
            .field("providers", &self.provider_names())
            .field("retry", &self.retry)
            .finish()
    }
}

impl Models {
    pub fn new(configs: Vec<ProviderConfig>, retry: RetryPolicy) -> Result<Models, LlmError> {
        let mut providers: BTreeMap<String, Arc<dyn ModelProvider>> = BTreeMap::new();
        for cfg in configs {
            let name = cfg.name.trim();
            if name.is_empty() || name.contains(':') {
                return Err(LlmError::Config(format!(
                    "provider name {:?} must be non-empty and contain no ':' (models are written provider:model)",
                    cfg.name
                )));
            }
            if providers.contains_key(name) {
                return Err(LlmError::Config(format!(
                    "provider {name:?} is configured twice"
                )));
            }
            let p: Arc<dyn ModelProvider> = match cfg.kind {
                ProviderKind::OpenAi => Arc::new(crate::openai::OpenAi::new(&cfg)?),
                ProviderKind::Anthropic => Arc::new(crate::anthropic::Anthropic::new(&cfg)?),
                ProviderKind::Gemini => Arc::new(crate::gemini::Gemini::new(&cfg)?),
            };
            providers.insert(name.to_owned(), p);
        }
        Ok(Models { providers, retry })
    }

    /// Add (or replace, by name) a provider: for tests and custom integrations.
    pub fn with_provider(mut self, p: Arc<dyn ModelProvider>) -> Models {
        self.providers.insert(p.name().to_owned(), p);
        self
    }

    /// Known provider names, sorted.
    pub fn provider_names(&self) -> Vec<String> {
        self.providers.keys().cloned().collect()
    }

    /// Fails with a message naming the known providers if `model`'s provider is unknown.
    pub fn check(&self, model: &ModelRef) -> Result<(), LlmError> {
        self.provider(&model.provider).map(|_| ())
    }

    /// Whether `model` can be sent a part of type `mime` as data (false for an unknown
    /// provider).
    pub fn accepts(&self, model: &ModelRef, mime: MimeType) -> bool {
        self.providers
            .get(&model.provider)
            .is_some_and(|p| p.accepts(mime))
    }

    /// `Unsupported`, naming the model and the part, unless `model` takes `part`.
    pub fn check_part(&self, model: &ModelRef, part: &Attachment) -> Result<(), LlmError> {
        if self.accepts(model, part.mime_type()) {
            Ok(())
        } else {
            Err(crate::parts::unsupported(&model.to_string(), part))
        }
    }

    fn provider(&self, name: &str) -> Result<&Arc<dyn ModelProvider>, LlmError> {
        self.providers.get(name).ok_or_else(|| {
            let known = self.provider_names();
            let known = if known.is_empty() {
                "none are configured".to_owned()
            } else {
                format!("known providers: {}", known.join(", "))
            };
            LlmError::Config(format!("unknown model provider {name:?} ({known})"))
        })
    }

    /// Resilient call: retries on the primary, then one retried series on the fallback.
    /// Once any text reached `on_text` nothing is retried and no fallback is tried: the
    /// user already saw part of an answer, and a second answer would be spliced onto it.
    pub async fn chat(
        &self,
        primary: &ModelRef,
        fallback: Option<&ModelRef>,
        req: &ChatRequest,
        on_text: Option<TextSink<'_>>,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let emitted = AtomicBool::new(false);
        let err = match self.series(primary, req, on_text, &emitted, cancel).await {
            Ok(resp) => return Ok(resp),
            Err(e) => e,
        };
        let Some(fallback) = fallback else {
            return Err(err);
        };
        if matches!(err, LlmError::Cancelled) || emitted.load(Ordering::SeqCst) {
            return Err(err);
        }
        tracing::warn!(
            primary = %primary,
            fallback = %fallback,
            error = %err,
            "primary model failed; trying the fallback"
        );
        self.series(fallback, req, on_text, &emitted, cancel).await
    }

    /// Attempts on one model until success, a final error, or the retry budget runs out.
    async fn series(
        &self,
        model: &ModelRef,
        req: &ChatRequest,
        on_text: Option<TextSink<'_>>,
        emitted: &AtomicBool,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let provider = self.provider(&model.provider)?;
        // Before any call: a part this model cannot take fails here, not as a provider's 400.
        if let Some(part) =
            crate::parts::first_refused(&req.messages, &req.parts, &|m| provider.accepts(m))
        {
            return Err(crate::parts::unsupported(&model.to_string(), part));
        }
        let mut retry: u32 = 0;
        loop {
            if cancel.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            let attempt_emitted = AtomicBool::new(false);
            let watch = |text: &str| {
                attempt_emitted.store(true, Ordering::SeqCst);
                emitted.store(true, Ordering::SeqCst);
                if let Some(sink) = on_text {
                    sink(text);
                }
            };
            let sink: Option<TextSink<'_>> = on_text.map(|_| &watch as TextSink<'_>);
            let span = tracing::info_span!(
                "model_call",
                provider = %model.provider,
                model = %model.model,
                attempt = retry + 1,
                streaming = tracing::field::Empty,
                status = tracing::field::Empty,
                input_tokens = tracing::field::Empty,
                output_tokens = tracing::field::Empty,
            );
            let result = provider
                .chat(&model.model, req, sink, cancel)
                .instrument(span.clone())
                .await;
            let err = match result {
                Ok(mut resp) => {
                    resp.model = model.to_string();
                    return Ok(resp);
                }
                Err(e) => e,
            };
            let saw_text = attempt_emitted.load(Ordering::SeqCst);
            if matches!(err, LlmError::Cancelled)
                || saw_text
                || !err.is_retryable()
                || retry >= self.retry.max_retries
            {
                return Err(err);
            }
            let retry_after = match &err {
                LlmError::Http { retry_after, .. } => *retry_after,
                _ => None,
            };
            let delay = self.retry.delay(retry, retry_after);
            span.in_scope(|| {
                tracing::warn!(error = %err, delay_ms = delay.as_millis() as u64, "model call failed; retrying");
            });
            tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                _ = tokio::time::sleep(delay) => {}
            }
            retry += 1;
        }
    }

    /// Reachability + auth check of one provider.
    pub async fn probe(&self, provider: &str) -> Result<(), LlmError> {
        let p = self.provider(provider)?;
        p.probe().await
    }
}
