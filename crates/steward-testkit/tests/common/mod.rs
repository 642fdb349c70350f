//! Helpers shared by the integration tests: a plain HTTP client, reading a body
//! that may be cut, and a small SSE parser.
//!
//! Owns: test plumbing only. Does not own: any assertion about the fake model.

#![allow(dead_code)]

use std::time::Duration;

use serde_json::Value;

pub fn client() -> reqwest::Client {
    client_with_timeout(Duration::from_secs(10))
}

pub fn client_with_timeout(timeout: Duration) -> reqwest::Client {
    // reqwest refuses to build a client without a TLS provider, even for http.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .build()
        .unwrap()
}

/// Reads the body chunk by chunk; returns what arrived and whether the transfer
/// ended in an error instead of a clean end of body.
pub async fn read_body(mut response: reqwest::Response) -> (String, bool) {
    let mut bytes = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
            Ok(None) => return (String::from_utf8(bytes).unwrap(), false),
            Err(_) => return (String::from_utf8(bytes).unwrap(), true),
        }
    }
}

#[derive(Debug, Clone)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

impl SseEvent {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

/// Parses SSE text per the spec's line rules (LF or CRLF). Panics on a line that
/// is neither a field nor blank, and on a trailing event without its blank line,
/// so framing mistakes fail the test.
pub fn parse_sse(raw: &str) -> Vec<SseEvent> {
    let text = raw.replace("\r\n", "\n");
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "unterminated event in {raw:?}"
    );
    let mut events = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.is_empty()) {
        let mut event = None;
        let mut data: Vec<&str> = Vec::new();
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("event: ") {
                event = Some(v.to_owned());
            } else if let Some(v) = line.strip_prefix("data: ") {
                data.push(v);
            } else {
                panic!("unexpected SSE line {line:?}");
            }
        }
        events.push(SseEvent {
            event,
            data: data.join("\n"),
        });
    }
    events
}

/// Like `parse_sse` but tolerates a partial last event (a cut stream).
pub fn parse_sse_prefix(raw: &str) -> Vec<SseEvent> {
    let text = raw.replace("\r\n", "\n");
    let complete = match text.rfind("\n\n") {
        Some(end) => &text[..end + 2],
        None => "",
    };
    parse_sse(complete)
}
