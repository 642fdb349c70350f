//! One guarded HTTP GET with manual redirects: every hop is vetted by the SSRF guard, the
//! connection is pinned to the addresses the guard checked, and the body is streamed up to
//! a byte cap, all under one deadline.
//!
//! Owns: the hop loop, the pinned per-hop client, status and content-type handling, the
//! size cap. Does not own: the address rules (`guard`), page-to-text (`html`) or the tool's
//! output (`tool`).
//!
//! Why a client per hop: reqwest's `resolve_to_addrs` is per client, and pinning must cover
//! exactly the name this hop goes to. Proxies are disabled on it (a proxy would resolve the
//! name itself and undo the pin), redirects are not followed by reqwest (each one is a new
//! hop, re-vetted here), and no compression is negotiated (no decompression bombs).

use super::guard::{GuardError, SsrfGuard};
use super::resolve::{Resolver, vet};
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use std::time::Duration;
use url::Url;

const ACCEPTED: &str = "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,\
                        application/json;q=0.8,application/xml;q=0.8,text/xml;q=0.8";
const MAX_URL_BYTES: usize = 4_096;

/// Caps on one fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchLimits {
    /// Bytes of body read at most; the rest is never read.
    pub max_bytes: usize,
    /// Deadline for everything: resolution, every hop, the body.
    pub timeout: Duration,
    /// Redirects followed at most.
    pub max_redirects: usize,
}

/// How the body should be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Html,
    Text,
}

/// A fetched response.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub url: Url,
    pub status: u16,
    /// The MIME type, lowercase, without parameters.
    pub mime: String,
    pub kind: Kind,
    pub body: String,
    /// The body was longer than `max_bytes` and was cut.
    pub truncated: bool,
    pub redirects: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("`url` is not a valid absolute URL: {0}")]
    BadUrl(String),
    #[error("{0}")]
    Refused(GuardError),
    #[error("a redirect from {from} was refused: {err}")]
    RedirectRefused { from: String, err: GuardError },
    #[error("stopped after {0} redirects (the limit)")]
    TooManyRedirects(usize),
    #[error("the server sent a redirect ({0}) without a usable Location header")]
    BadRedirect(u16),
    #[error("the fetch did not finish within {} s and was stopped", .0.as_secs())]
    Timeout(Duration),
    #[error("the server answered HTTP {0}")]
    Status(String),
    #[error(
        "content type `{0}` is not fetched: only HTML, plain text, Markdown, JSON and XML pages are read"
    )]
    ContentType(String),
    #[error(
        "the server sent no content type; only HTML, plain text, Markdown, JSON and XML pages are read"
    )]
    NoContentType,
    #[error("cannot fetch: {0}")]
    Transport(String),
}

/// Which content types are read, and how.
pub fn kind_of(mime: &str) -> Option<Kind> {
    match mime {
        "text/html" | "application/xhtml+xml" => Some(Kind::Html),
        "text/plain" | "text/markdown" | "text/x-markdown" | "application/json"
        | "application/xml" | "text/xml" => Some(Kind::Text),
        m if m.starts_with("application/") && (m.ends_with("+json") || m.ends_with("+xml")) => {
            Some(Kind::Text)
        }
        _ => None,
    }
}

/// GET `raw_url` under the guard and `limits`.
pub async fn fetch(
    guard: &SsrfGuard,
    resolver: &dyn Resolver,
    raw_url: &str,
    limits: FetchLimits,
) -> Result<Fetched, FetchError> {
    if raw_url.len() > MAX_URL_BYTES {
        return Err(FetchError::BadUrl(format!(
            "longer than {MAX_URL_BYTES} bytes"
        )));
    }
    let url = Url::parse(raw_url.trim()).map_err(|e| FetchError::BadUrl(e.to_string()))?;
    match tokio::time::timeout(limits.timeout, hops(guard, resolver, url, limits)).await {
        Ok(result) => result,
        Err(_) => Err(FetchError::Timeout(limits.timeout)),
    }
}

async fn hops(
    guard: &SsrfGuard,
    resolver: &dyn Resolver,
    mut url: Url,
    limits: FetchLimits,
) -> Result<Fetched, FetchError> {
    let tls = super::tls::client_config().map_err(FetchError::Transport)?;
    let mut redirects = 0;
    let mut from: Option<Url> = None;
    loop {
        let vetted = vet(guard, resolver, &url)
            .await
            .map_err(|err| match &from {
                None => FetchError::Refused(err),
                Some(prev) => FetchError::RedirectRefused {
                    from: shown_url(prev),
                    err,
                },
            })?;
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(limits.timeout.min(Duration::from_secs(10)))
            .pool_max_idle_per_host(0)
            .tls_backend_preconfigured(tls.clone())
            .user_agent(concat!(
                "steward/",
                env!("CARGO_PKG_VERSION"),
                " (fetch_url)"
            ));
        if let Some((host, addrs)) = &vetted.pin {
            builder = builder.resolve_to_addrs(host, addrs);
        }
        let client = builder
            .build()
            .map_err(|e| FetchError::Transport(chain(&e)))?;
        let resp = client
            .get(url.clone())
            .header(ACCEPT, ACCEPTED)
            .send()
            .await
            .map_err(|e| FetchError::Transport(chain(&e)))?;
        let status = resp.status();
        if status.is_redirection() && status != reqwest::StatusCode::NOT_MODIFIED {
            let next = resp
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|loc| url.join(loc.trim()).ok())
                .ok_or(FetchError::BadRedirect(status.as_u16()))?;
            if redirects >= limits.max_redirects {
                return Err(FetchError::TooManyRedirects(limits.max_redirects));
            }
            redirects += 1;
            // The next hop is vetted from scratch (check, resolve, pin) at the loop's top.
            from = Some(std::mem::replace(&mut url, next));
            continue;
        }
        if !status.is_success() {
            return Err(FetchError::Status(status.to_string()));
        }
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .ok_or(FetchError::NoContentType)?
            .to_owned();
        let mime = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let kind = kind_of(&mime)
            .ok_or_else(|| FetchError::ContentType(mime.chars().take(80).collect()))?;
        let (bytes, truncated) = read_capped(resp, limits.max_bytes).await?;
        return Ok(Fetched {
            url,
            status: status.as_u16(),
            mime,
            kind,
            body: decode(&bytes, &content_type),
            truncated,
            redirects,
        });
    }
}

/// Read at most `max` bytes of the body; dropping the response afterwards closes the
/// connection, so the rest is never transferred beyond what the kernel already buffered.
async fn read_capped(
    mut resp: reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), FetchError> {
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| FetchError::Transport(chain(&e)))?
    {
        let room = max - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// UTF-8 (lossy) unless the header names Latin-1 / Windows-1252, read here as Latin-1.
fn decode(bytes: &[u8], content_type: &str) -> String {
    let lower = content_type.to_ascii_lowercase();
    let latin1 = ["iso-8859-1", "latin1", "windows-1252", "us-ascii"]
        .iter()
        .any(|c| lower.contains(&format!("charset={c}")));
    if latin1 {
        bytes.iter().map(|&b| char::from(b)).collect()
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// A URL for messages: without query or fragment (they may carry tokens), bounded.
pub fn shown_url(url: &Url) -> String {
    let mut u = url.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.to_string().chars().take(200).collect()
}

/// The error and its causes, without the request URL (the caller names it), bounded.
fn chain(e: &reqwest::Error) -> String {
    let mut out = if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "could not connect".to_owned()
    } else {
        "request failed".to_owned()
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out.chars().take(300).collect()
}
