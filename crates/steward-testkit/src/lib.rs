//! steward-testkit: a fake model server for Steward's tests and benchmarks.
//!
//! `FakeModel` listens on 127.0.0.1 and speaks the OpenAI Chat Completions,
//! Anthropic Messages and Gemini generateContent wire formats (whole bodies and
//! streams), answering from a FIFO of scripted `Step`s and recording every model
//! request — scripted from Rust or, by a test in another language (the browser tests), over
//! its `/_fake/*` control routes — and its speech routes (`/v1/audio/transcriptions`,
//! `/v1/audio/speech`, OpenAI's audio wire format, recorded apart); `telegram`, a fake Bot API (updates scripted, calls recorded); and `pinning`, the scripted turn every surface's projection is pinned by.
//! Owns: test doubles only. Does not own: anything production code uses;
//! nothing outside tests and benchmarks may depend on this crate.

mod anthropic;
mod control;
mod gemini;
pub mod multipart;
mod openai;
pub mod pinning;
pub mod raw_http;
mod script;
mod server;
mod speech;
mod state;
pub mod telegram;
mod wire;

pub use script::{
    DEFAULT_SPEECH_AUDIO, DEFAULT_TRANSCRIPT, RecordedRequest, Reply, ScriptedCall, SpeechRequest,
    Step, WireFormat,
};
pub use server::FakeModel;
