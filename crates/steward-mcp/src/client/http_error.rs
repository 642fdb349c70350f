//! Why a streamable-HTTP MCP server could not be reached, in words a person understands:
//! "could not connect to 127.0.0.1:3001 (connection refused) — is the server running?"
//! rather than rmcp's "Send message error Transport [..] error: Client error: error sending
//! request for url (…)".
//!
//! Owns: recognising the failure (refused, DNS, TLS, timeout, an HTTP status from the
//! server) from the error chain rmcp and reqwest give, and its wording. The wording names
//! the host and port, never the URL's credentials or query; detail text from below is
//! scrubbed of the server's secrets. Does not own retrying (see `supervisor`).

use reqwest::StatusCode;
use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpError;
use std::error::Error;

type HttpError = StreamableHttpError<reqwest::Error>;

/// A person's explanation of a failed HTTP handshake with `url`, or None when the failure
/// is not a transport one (then rmcp's own text is the best there is).
pub(crate) fn explain(
    err: &ClientInitializeError,
    url: &str,
    secrets: &[String],
) -> Option<String> {
    let first: &(dyn Error + 'static) = match err {
        // thiserror does not treat the `error` field as a source: start below it by hand.
        ClientInitializeError::TransportError { error, .. } => error.error.as_ref(),
        other => other.source()?,
    };
    let target = Target::of(url);
    chain(first).find_map(|e| {
        if let Some(http) = e.downcast_ref::<HttpError>() {
            return from_http(http, &target, secrets);
        }
        e.downcast_ref::<reqwest::Error>()
            .and_then(|r| from_reqwest(r, &target, secrets))
    })
}

/// Host and port, and the path (for a 404), from the configured URL.
struct Target {
    host: String,
    host_port: String,
    path: String,
}

impl Target {
    fn of(url: &str) -> Target {
        match reqwest::Url::parse(url) {
            Ok(u) => {
                let host = u.host_str().unwrap_or("?").to_owned();
                let host_port = match u.port_or_known_default() {
                    Some(p) => format!("{host}:{p}"),
                    None => host.clone(),
                };
                Target {
                    host,
                    host_port,
                    path: u.path().to_owned(),
                }
            }
            Err(_) => Target {
                host: "?".into(),
                host_port: "the configured address".into(),
                path: "?".into(),
            },
        }
    }
}

fn chain<'e>(first: &'e (dyn Error + 'static)) -> impl Iterator<Item = &'e (dyn Error + 'static)> {
    std::iter::successors(Some(first), |e: &&'e (dyn Error + 'static)| (*e).source()).take(16)
}

fn from_http(e: &HttpError, t: &Target, secrets: &[String]) -> Option<String> {
    match e {
        StreamableHttpError::Client(r) => from_reqwest(r, t, secrets),
        StreamableHttpError::AuthRequired(_) => Some(status_text(StatusCode::UNAUTHORIZED, t)),
        StreamableHttpError::InsufficientScope(_) => Some(status_text(StatusCode::FORBIDDEN, t)),
        StreamableHttpError::HttpStatus(s) => StatusCode::from_u16(s.status)
            .ok()
            .map(|c| status_text(c, t)),
        // "HTTP 404 Not Found: <body>": the status is what matters, the body is the server's.
        StreamableHttpError::UnexpectedServerResponse(text) => text
            .strip_prefix("HTTP ")
            .and_then(|rest| rest.get(..3))
            .and_then(|code| code.parse::<u16>().ok())
            .and_then(|code| StatusCode::from_u16(code).ok())
            .map(|c| status_text(c, t)),
        _ => None,
    }
}

fn from_reqwest(e: &reqwest::Error, t: &Target, secrets: &[String]) -> Option<String> {
    if let Some(status) = e.status() {
        return Some(status_text(status, t));
    }
    let hp = &t.host_port;
    let causes: Vec<&(dyn Error + 'static)> = chain(e).skip(1).collect();
    let text = |c: &&(dyn Error + 'static)| c.to_string().to_ascii_lowercase();
    let refused = causes.iter().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
    });
    if refused {
        return Some(format!(
            "could not connect to {hp} (connection refused) — is the server running?"
        ));
    }
    if causes.iter().any(|c| {
        let s = text(c);
        s.contains("dns error") || s.contains("failed to lookup address")
    }) {
        return Some(format!(
            "could not find the host `{}` (DNS lookup failed) — check the host name in the URL",
            t.host
        ));
    }
    let tls = causes.iter().find(|c| {
        is_rustls(c) || {
            let s = text(c);
            s.contains("certificate") || s.contains("tls") || s.contains("corrupt message")
        }
    });
    if let Some(tls) = tls {
        let detail = super::scrub::scrub(&tls.to_string(), secrets, 160);
        return Some(format!(
            "TLS with {hp} failed ({detail}) — check that the URL's scheme (http or https) matches the server and that its certificate is valid"
        ));
    }
    if e.is_timeout() {
        return Some(format!(
            "could not connect to {hp} (no answer in time) — is the server running and reachable?"
        ));
    }
    if e.is_connect() {
        let detail = causes
            .last()
            .map(|c| super::scrub::scrub(&c.to_string(), secrets, 160))
            .unwrap_or_else(|| "connection failed".into());
        return Some(format!("could not connect to {hp} ({detail})"));
    }
    None
}

/// rustls's error, directly or inside an `io::Error`.
fn is_rustls(e: &&(dyn Error + 'static)) -> bool {
    e.downcast_ref::<rustls::Error>().is_some()
        || e.downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .is_some_and(|inner| inner.downcast_ref::<rustls::Error>().is_some())
}

fn status_text(status: StatusCode, t: &Target) -> String {
    let hp = &t.host_port;
    let code = status.as_u16();
    let reason = status.canonical_reason().unwrap_or("");
    match code {
        401 => format!(
            "the server at {hp} refused the credentials (HTTP 401 {reason}) — check `headers` (e.g. Authorization) or the key in the URL"
        ),
        403 => format!(
            "the server at {hp} refused access (HTTP 403 {reason}) — check that the credentials allow this"
        ),
        404 => format!(
            "the server at {hp} has no MCP endpoint at `{}` (HTTP 404 {reason}) — check the URL's path (often /mcp)",
            t.path
        ),
        500..=599 => format!(
            "the server at {hp} failed (HTTP {code} {reason}) — check its logs; Steward will try again"
        ),
        _ => format!(
            "the server at {hp} answered HTTP {code} {reason} — is this URL a streamable-HTTP MCP endpoint?"
        ),
    }
}
