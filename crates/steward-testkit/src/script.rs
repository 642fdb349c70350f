//! The script a test hands the fake model (`Step`, `Reply`, `ScriptedCall`) and the
//! record it gets back (`RecordedRequest`, `WireFormat`); for the speech routes, the
//! transcript and audio they answer with (`SpeechState`) and their record (`SpeechRequest`).
//!
//! Owns: these plain data types, their builders and their JSON form (what the control
//! routes take: `Step` is externally tagged, `{"reply": {...}}`, `{"delay": {"ms", "then"}}`,
//! `"hang"`...; unknown fields are refused). Does not own: how a reply is rendered on the
//! wire (see `openai`, `anthropic`, `gemini`), the queue itself (see `state`) or the
//! control routes (see `control`).

use serde::Deserialize;
use serde_json::Value;
use std::fmt;

use crate::multipart::FormPart;

/// Which of the three wire formats a request arrived in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireFormat {
    OpenAi,
    Anthropic,
    Gemini,
}

impl WireFormat {
    /// The name the control routes report (`GET /_fake/requests`).
    pub fn as_str(self) -> &'static str {
        match self {
            WireFormat::OpenAi => "openai",
            WireFormat::Anthropic => "anthropic",
            WireFormat::Gemini => "gemini",
        }
    }
}

/// What the fake model does with the next model request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Answer normally, in whatever format and streaming mode was asked for.
    Reply(Reply),
    /// Answer with this HTTP status and the format's error JSON; `retry_after`
    /// becomes the `Retry-After` header verbatim.
    Error {
        status: u16,
        message: String,
        #[serde(default)]
        retry_after: Option<String>,
    },
    /// Wait, then perform `then`.
    Delay { ms: u64, then: Box<Step> },
    /// Accept the request and never answer; only the client giving up ends it.
    Hang,
    /// Start a streaming answer carrying `text`, then cut the connection without
    /// the format's terminal event. A non-streaming request gets a truncated body.
    BrokenStream { text: String },
}

impl Step {
    /// `Step::Error` without a `Retry-After` header.
    pub fn error(status: u16, message: impl Into<String>) -> Step {
        Step::Error {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    /// `Step::Delay` around `then`.
    pub fn delay(ms: u64, then: impl Into<Step>) -> Step {
        Step::Delay {
            ms,
            then: Box::new(then.into()),
        }
    }
}

impl From<Reply> for Step {
    fn from(reply: Reply) -> Step {
        Step::Reply(reply)
    }
}

/// A scripted assistant answer: text and/or tool calls, with reported usage. In JSON every
/// field may be left out (the `Default` fills it).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Reply {
    pub text: String,
    pub tool_calls: Vec<ScriptedCall>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Streamed text and argument pieces hold at most this many chars (0 acts as 1).
    pub chunk_chars: usize,
    /// A streamed answer waits this long before each piece it writes (0 = all at once): a
    /// slow model, so a client can be seen painting text before the turn ends.
    pub chunk_delay_ms: u64,
}

/// A scripted tool call. `arguments` is sent raw, so it may be malformed on purpose.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    pub name: String,
    pub arguments: String,
}

/// Usage reported when a test does not say otherwise; non-zero because real
/// services never report an empty prompt.
const DEFAULT_INPUT_TOKENS: u64 = 10;
const DEFAULT_OUTPUT_TOKENS: u64 = 5;
const DEFAULT_CHUNK_CHARS: usize = 4;

impl Default for Reply {
    fn default() -> Reply {
        Reply {
            text: String::new(),
            tool_calls: Vec::new(),
            input_tokens: DEFAULT_INPUT_TOKENS,
            output_tokens: DEFAULT_OUTPUT_TOKENS,
            chunk_chars: DEFAULT_CHUNK_CHARS,
            chunk_delay_ms: 0,
        }
    }
}

impl Reply {
    /// A plain text answer.
    pub fn text(t: impl Into<String>) -> Reply {
        Reply {
            text: t.into(),
            ..Reply::default()
        }
    }

    /// An answer that is a single tool call and no text.
    pub fn tool_call(name: &str, args_json: &str) -> Reply {
        Reply::default().with_call(name, args_json)
    }

    pub fn with_usage(mut self, input_tokens: u64, output_tokens: u64) -> Reply {
        self.input_tokens = input_tokens;
        self.output_tokens = output_tokens;
        self
    }

    pub fn with_text(mut self, t: impl Into<String>) -> Reply {
        self.text = t.into();
        self
    }

    /// Appends a tool call; calls are sent in the order they were added.
    pub fn with_call(mut self, name: impl Into<String>, args: impl Into<String>) -> Reply {
        self.tool_calls.push(ScriptedCall {
            name: name.into(),
            arguments: args.into(),
        });
        self
    }

    pub fn with_chunk_chars(mut self, n: usize) -> Reply {
        self.chunk_chars = n;
        self
    }

    /// A streamed answer waits `ms` before each piece (see `chunk_delay_ms`).
    pub fn with_chunk_delay_ms(mut self, ms: u64) -> Reply {
        self.chunk_delay_ms = ms;
        self
    }
}

/// One model request as the fake model received it.
#[derive(Clone)]
pub struct RecordedRequest {
    pub format: WireFormat,
    /// The URI path, without the query string.
    pub path: String,
    /// The raw query string (without `?`), if there was one.
    pub query: Option<String>,
    /// Header names are lowercase; values that are not UTF-8 are decoded lossily.
    pub headers: Vec<(String, String)>,
    /// The parsed JSON body; a body that is not JSON is kept as a JSON string.
    pub body: serde_json::Value,
    pub streaming: bool,
    /// From the body (OpenAI, Anthropic) or the path (Gemini); empty if absent.
    pub model: String,
}

impl RecordedRequest {
    /// First value of the header `name`, compared case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Value of the query parameter `name` (not percent-decoded).
    pub fn query_param(&self, name: &str) -> Option<&str> {
        self.query.as_deref()?.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k == name).then_some(v)
        })
    }
}

/// Headers and query parameters that carry credentials in one of the three APIs.
const SECRET_HEADERS: [&str; 4] = [
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "proxy-authorization",
];
const SECRET_QUERY_PARAMS: [&str; 1] = ["key"];

// Hand-written so the API keys a client sends never reach test output.
impl fmt::Debug for RecordedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| {
                let secret = SECRET_HEADERS.iter().any(|s| k.eq_ignore_ascii_case(s));
                (k.as_str(), if secret { "<redacted>" } else { v.as_str() })
            })
            .collect();
        let query = self.query.as_deref().map(redact_query);
        f.debug_struct("RecordedRequest")
            .field("format", &self.format)
            .field("path", &self.path)
            .field("query", &query)
            .field("headers", &headers)
            .field("body", &self.body)
            .field("streaming", &self.streaming)
            .field("model", &self.model)
            .finish()
    }
}

pub(crate) fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if SECRET_QUERY_PARAMS.contains(&k) => format!("{k}=<redacted>"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded() -> RecordedRequest {
        RecordedRequest {
            format: WireFormat::Gemini,
            path: "/v1beta/models/m:generateContent".into(),
            query: Some("alt=sse&key=sekrit-query".into()),
            headers: vec![
                ("authorization".into(), "Bearer sekrit-bearer".into()),
                ("x-api-key".into(), "sekrit-anthropic".into()),
                ("x-goog-api-key".into(), "sekrit-goog".into()),
                ("content-type".into(), "application/json".into()),
            ],
            body: serde_json::json!({}),
            streaming: true,
            model: "m".into(),
        }
    }

    #[test]
    fn debug_hides_credentials_but_keeps_the_rest() {
        let shown = format!("{:?}", recorded());
        assert!(!shown.contains("sekrit"), "{shown}");
        assert!(shown.contains("application/json"));
        assert!(shown.contains("alt=sse"));
    }

    #[test]
    fn header_lookup_ignores_case_and_query_param_splits_pairs() {
        let r = recorded();
        assert_eq!(r.header("Content-Type"), Some("application/json"));
        assert_eq!(r.header("x-missing"), None);
        assert_eq!(r.query_param("alt"), Some("sse"));
        assert_eq!(r.query_param("al"), None);
    }

    #[test]
    fn builders_accumulate_calls_in_order() {
        let r = Reply::tool_call("a", "{}")
            .with_call("b", "{\"x\":1}")
            .with_text("hi")
            .with_usage(3, 4);
        let names: Vec<&str> = r.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(
            (r.text.as_str(), r.input_tokens, r.output_tokens),
            ("hi", 3, 4)
        );
    }
}

/// What the fake transcriber hears until a test says otherwise.
pub const DEFAULT_TRANSCRIPT: &str = "hello from the fake transcriber";
/// The bytes the fake speaker answers with until a test says otherwise (an Ogg page's magic).
pub const DEFAULT_SPEECH_AUDIO: &[u8] = b"OggS\x00fake-opus-audio";

/// One recorded speech request.
#[derive(Debug, Clone)]
pub struct SpeechRequest {
    /// `/v1/audio/transcriptions` or `/v1/audio/speech`.
    pub path: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// A transcription's form parts (empty for speech).
    pub form: Vec<FormPart>,
    /// A speech request's JSON body (`Null` for a transcription).
    pub json: Value,
}

impl SpeechRequest {
    /// The form part named `name`.
    pub fn part(&self, name: &str) -> Option<&FormPart> {
        self.form.iter().find(|p| p.name == name)
    }
}

pub(crate) struct SpeechState {
    pub(crate) transcript: String,
    /// When set, every transcription is refused with this status and message (OpenAI's shape).
    pub(crate) transcript_error: Option<(u16, String)>,
    pub(crate) audio: Vec<u8>,
    pub(crate) requests: Vec<SpeechRequest>,
}

impl Default for SpeechState {
    fn default() -> Self {
        SpeechState {
            transcript: DEFAULT_TRANSCRIPT.to_owned(),
            transcript_error: None,
            audio: DEFAULT_SPEECH_AUDIO.to_vec(),
            requests: Vec::new(),
        }
    }
}
