//! Model providers for Steward: OpenAI-compatible chat completions (OpenAI, Ollama, vLLM,
//! OpenRouter, LM Studio, Groq), Anthropic Messages and Gemini generateContent, each
//! streamed or not, behind one `ModelProvider` trait; and `Models`, which picks the
//! provider for a `ModelRef` and adds retry with backoff, Retry-After and one fallback; and
//! the price table (`prices.rs`) that turns a call's usage into its cost; and the speech
//! endpoints of OpenAI's audio API (`speech.rs`: transcription and text-to-speech).
//!
//! Owns: wire formats, HTTP to model APIs, error classification, retry/fallback.
//! Does not own: the agent loop, tool execution, conversation storage or the shared types
//! in `steward-protocol`.
//!
//! Why hand-written wire formats (reqwest + serde) rather than a wrapper crate such as
//! `genai`: we need exact control of the HTTP status and `Retry-After` (retry decisions),
//! per-provider non-streaming (some servers stream tool calls brokenly), byte-stable
//! request bodies (provider prompt caches key on exact bytes) and error classification
//! (what is retryable, what message the user sees, that keys never leak into it).

mod anthropic;
mod call;
mod error;
mod gemini;
mod http;
mod models;
mod openai;
mod parts;
mod prices;
mod retry;
mod speech;
mod sse;
mod types;

pub use error::LlmError;
pub use models::Models;
pub use prices::{MAX_USD_PER_MILLION, Price, PriceError, PriceSource, PriceTable, UsdPerMillion};

pub use retry::RetryPolicy;
pub use speech::{
    MAX_SPEECH_AUDIO_BYTES, MAX_SPEECH_INPUT_CHARS, SpeechEndpoint, SpeechToText, TextToSpeech,
};
pub use types::{
    ChatRequest, ChatResponse, FinishReason, ModelProvider, ModelRef, PartBytes, ProviderConfig,
    ProviderKind, TextSink,
};
