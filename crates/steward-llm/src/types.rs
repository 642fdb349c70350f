//! The provider-neutral request/response types, the `ModelProvider` trait, provider
//! configuration and `ModelRef` parsing.
//!
//! Owns: the shapes every caller codes against. Does not own: any wire format (see the
//! `openai`, `anthropic`, `gemini` modules) or retry policy (see `models`).

use crate::LlmError;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use steward_protocol::{BlobRef, Message, MimeType, PartKind, ToolCall, ToolSpec, Usage};
use tokio_util::sync::CancellationToken;

/// One model call, independent of the provider's wire format.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// System prompt, sent as-is so that provider-side prompt caches keep hitting.
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_output_tokens: Option<u32>,
    pub temperature: Option<f32>,
    /// The bytes of the message parts sent as data (loaded by the caller for the messages it
    /// sends); every other attachment in `messages` goes as its text placeholder.
    pub parts: PartBytes,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    /// Anything else, with the provider's own word for it (e.g. "content_filter").
    Other(String),
}

/// A complete answer from one model.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    /// `arguments` is the raw JSON text the model sent (may be malformed; never parsed here).
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    /// "provider:model" that actually answered (differs from the primary after a fallback).
    pub model: String,
    pub finish: FinishReason,
}

/// Called with each streamed piece of answer text, in order. In non-streaming mode it is
/// called once with the whole text (if any), so surfaces behave the same either way.
pub type TextSink<'a> = &'a (dyn Fn(&str) + Send + Sync);

/// One model API (one configured provider).
#[async_trait::async_trait]
pub trait ModelProvider: Send + Sync {
    fn name(&self) -> &str;
    async fn chat(
        &self,
        model: &str,
        req: &ChatRequest,
        on_text: Option<TextSink<'_>>,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError>;
    /// Cheap reachability + auth check for `steward doctor` (e.g. GET the models list).
    async fn probe(&self) -> Result<(), LlmError>;
    /// Whether a message part of type `mime` can be sent to this provider's models. The
    /// built-in clients answer from their wire format and the owner's `parts` setting; a
    /// provider that does not say takes everything.
    fn accepts(&self, mime: MimeType) -> bool {
        let _ = mime;
        true
    }
}

/// The bytes of the parts a request sends as data, by blob. A message's attachment whose
/// bytes are not here is sent as its short text placeholder (`[image: photo.jpg, 120 KB]`).
/// `Debug` shows only the references and sizes.
#[derive(Clone, Default, PartialEq)]
pub struct PartBytes(BTreeMap<BlobRef, Arc<[u8]>>);

impl PartBytes {
    pub fn insert(&mut self, blob: BlobRef, data: Arc<[u8]>) {
        self.0.insert(blob, data);
    }

    pub fn get(&self, blob: &BlobRef) -> Option<&Arc<[u8]>> {
        self.0.get(blob)
    }

    pub fn contains(&self, blob: &BlobRef) -> bool {
        self.0.contains_key(blob)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl fmt::Debug for PartBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(k, v)| (k.as_str(), v.len())))
            .finish()
    }
}

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// OpenAI chat completions (also Ollama, vLLM, OpenRouter, LM Studio, Groq).
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini generateContent.
    Gemini,
}

/// How to reach one provider.
#[derive(Clone)]
pub struct ProviderConfig {
    /// "openai", "anthropic", "gemini", "ollama", or a user-defined name.
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub api_key: Option<String>,
    /// false = never stream (for servers whose streamed tool calls are broken).
    pub stream: bool,
    /// Whole request, including reading the stream.
    pub request_timeout: Duration,
    pub connect_timeout: Duration,
    /// Which part kinds this provider's models may be sent (`providers.NAME.parts`): None =
    /// everything its wire format carries (`ProviderKind::accepts`), empty = text only.
    pub parts: Option<Vec<PartKind>>,
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The key must never reach logs, so only its presence is shown.
        f.debug_struct("ProviderConfig")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field(
                "base_url",
                &steward_protocol::secret_url::mask_url(&self.base_url),
            )
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("stream", &self.stream)
            .field("request_timeout", &self.request_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("parts", &self.parts)
            .finish()
    }
}

/// "provider:model", e.g. "openai:gpt-4.1-mini" or "ollama:qwen3:8b".
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelRef {
    pub provider: String,
    pub model: String,
}

impl ModelRef {
    /// Split at the FIRST colon: model names (Ollama tags) may contain colons themselves.
    pub fn parse(s: &str) -> Result<ModelRef, LlmError> {
        let s = s.trim();
        let Some((provider, model)) = s.split_once(':') else {
            return Err(LlmError::Config(format!(
                "model {s:?} must be written as provider:model, e.g. openai:gpt-4.1-mini"
            )));
        };
        let (provider, model) = (provider.trim(), model.trim());
        if provider.is_empty() {
            return Err(LlmError::Config(format!(
                "model {s:?} has no provider before the colon (write provider:model, e.g. openai:gpt-4.1-mini)"
            )));
        }
        if model.is_empty() {
            return Err(LlmError::Config(format!(
                "model {s:?} has no model name after the colon (write provider:model, e.g. openai:gpt-4.1-mini)"
            )));
        }
        Ok(ModelRef {
            provider: provider.to_owned(),
            model: model.to_owned(),
        })
    }
}

impl fmt::Display for ModelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.provider, self.model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ref_splits_at_first_colon() {
        let r = ModelRef::parse("ollama:qwen3:8b").unwrap();
        assert_eq!(r.provider, "ollama");
        assert_eq!(r.model, "qwen3:8b");
        assert_eq!(r.to_string(), "ollama:qwen3:8b");
        let r = ModelRef::parse("openai:gpt-4.1-mini").unwrap();
        assert_eq!(
            (r.provider.as_str(), r.model.as_str()),
            ("openai", "gpt-4.1-mini")
        );
    }

    #[test]
    fn model_ref_rejects_empty_parts() {
        for bad in ["", "openai", ":gpt", "openai:", "  :  "] {
            match ModelRef::parse(bad) {
                Err(LlmError::Config(msg)) => assert!(
                    msg.contains("provider:model") || msg.contains("provider before"),
                    "{msg}"
                ),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn config_debug_masks_key() {
        let cfg = ProviderConfig {
            name: "openai".into(),
            kind: ProviderKind::OpenAi,
            base_url: "http://user:pw-canary@127.0.0.1:1/v1?api-key=k-canary".into(),
            api_key: Some("sk-secret-123".into()),
            stream: true,
            request_timeout: Duration::from_secs(1),
            connect_timeout: Duration::from_secs(1),
            parts: None,
        };
        let dbg = format!("{cfg:?}");
        assert!(!dbg.contains("sk-secret-123"));
        assert!(
            !dbg.contains("pw-canary") && !dbg.contains("k-canary"),
            "{dbg}"
        );
        assert!(dbg.contains("127.0.0.1:1/v1"), "{dbg}");
        assert!(dbg.contains("***"));
    }
}
