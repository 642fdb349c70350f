//! HTTP response plumbing shared by the three formats: whole JSON bodies, event
//! streams that end cleanly or are cut, and splitting text into stream pieces.
//!
//! Owns: bytes-on-the-wire mechanics. Does not own: any format's JSON shapes.

use std::io;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream;
use serde_json::Value;

/// How long a cut stream waits before dropping the connection, so the pieces
/// already written leave the server first rather than being discarded with it.
const CUT_GRACE: Duration = Duration::from_millis(30);

/// What a renderer needs to know about the request it answers.
pub(crate) struct Ctx {
    pub(crate) model: String,
    pub(crate) streaming: bool,
    /// Unique per request; seeds response and tool-call ids.
    pub(crate) id: u64,
    /// OpenAI `stream_options.include_usage`.
    pub(crate) include_usage: bool,
    /// Gemini `alt=sse`; without it a Gemini stream is one chunked JSON array.
    pub(crate) sse: bool,
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Splits `s` into pieces of at most `n` chars (never inside a char). An empty
/// string gives no pieces.
pub(crate) fn pieces(s: &str, n: usize) -> Vec<&str> {
    let n = n.max(1);
    let mut out = Vec::new();
    let mut start = 0;
    for (count, (i, _)) in s.char_indices().enumerate() {
        if count > 0 && count % n == 0 {
            out.push(&s[start..i]);
            start = i;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// A complete response with a known length, so headers and body leave together.
pub(crate) fn full(status: StatusCode, content_type: &'static str, body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

pub(crate) fn json(status: StatusCode, value: &Value) -> Response {
    full(status, "application/json", Bytes::from(value.to_string()))
}

/// One SSE event with an `event:` line (Anthropic style).
pub(crate) fn named_event(name: &str, data: &Value) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// One SSE event with only a `data:` line (OpenAI style).
pub(crate) fn data_event(data: &Value) -> Bytes {
    Bytes::from(format!("data: {data}\n\n"))
}

/// One SSE event as Gemini frames it: CRLF line endings, which naive `\n\n`
/// splitters get wrong, so clients should be tested against them.
pub(crate) fn crlf_data_event(data: &Value) -> Bytes {
    Bytes::from(format!("data: {data}\r\n\r\n"))
}

/// A 200 response whose body is `chunks`, each sent as its own write. When `cut`
/// is set, the connection is dropped after the last chunk instead of ending the
/// body, which a client sees as a transport error mid-body.
pub(crate) fn streamed(content_type: &'static str, chunks: Vec<Bytes>, cut: bool) -> Response {
    let body_chunks = stream::iter(chunks.into_iter().map(Ok::<Bytes, io::Error>));
    let body = if cut {
        let failure = stream::once(async {
            tokio::time::sleep(CUT_GRACE).await;
            Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "scripted broken stream",
            ))
        });
        Body::from_stream(body_chunks.chain(failure))
    } else {
        Body::from_stream(body_chunks)
    };
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `response` with a wait of `delay` before each piece of its body: the streams above write
/// one event per piece, so a client sees them arrive one by one, as from a slow model.
pub(crate) fn paced(response: Response, delay: Duration) -> Response {
    let (parts, body) = response.into_parts();
    let pieces = body.into_data_stream().then(move |piece| async move {
        tokio::time::sleep(delay).await;
        piece
    });
    Response::from_parts(parts, Body::from_stream(pieces))
}

/// The first half of a body, as a connection dropped mid-response leaves it.
pub(crate) fn truncated(whole: String) -> Bytes {
    let mut bytes = whole.into_bytes();
    bytes.truncate(bytes.len() / 2);
    Bytes::from(bytes)
}

#[cfg(test)]
mod tests {
    use super::pieces;

    #[test]
    fn pieces_respect_char_boundaries_and_rejoin() {
        let s = "héllo wörld ☃";
        let p = pieces(s, 4);
        assert_eq!(p.concat(), s);
        assert!(p.iter().all(|x| x.chars().count() <= 4));
        assert_eq!(p[0], "héll");
        assert_eq!(p.len(), 4);
    }

    #[test]
    fn pieces_edge_cases() {
        assert!(pieces("", 4).is_empty());
        assert_eq!(pieces("abc", 0), ["a", "b", "c"]);
        assert_eq!(pieces("abc", 10), ["abc"]);
    }
}
