//! Opening one MCP session: spawning a stdio server (clean environment, stderr kept as a
//! short redacted tail) or opening a streamable HTTP session (custom headers), then the
//! `initialize` handshake. Everything is bounded: line and response sizes, the handshake
//! time (the caller wraps it in the server's timeout).
//!
//! Owns: transports and the handshake. Does not own retrying, tool lists or calls (see
//! `supervisor` and `tool`).

use super::group::ChildGroup;
use super::handler::{Handler, Signals};
use super::scrub::scrub;
use crate::spec::{INHERITED_ENV, ServerSpec, Transport};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, Command};

/// Largest single JSON-RPC message we accept from a server (a line on stdio, a body or SSE
/// event over HTTP). Tool results are cut to a few KB for the model anyway.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// Lines of a stdio server's stderr kept for `steward mcp test` and error messages.
const STDERR_LINES: usize = 20;
const STDERR_LINE_CHARS: usize = 300;

pub(crate) type Session = RunningService<RoleClient, Handler>;

/// A live session plus what we need to watch it.
pub(crate) struct Connection {
    pub session: Session,
    /// The stdio child and its process group (None for HTTP). The group is killed when
    /// dropped; `ChildGroup::stop` ends it politely first.
    pub child: Option<ChildGroup>,
    pub pid: Option<u32>,
}

/// Why a session could not be opened. Messages are safe to show: bounded, single-line, and
/// free of env and header values.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot start `{command}`: {reason}")]
    Spawn { command: String, reason: String },
    #[error("invalid header `{0}` (names must be ASCII tokens, values printable)")]
    Header(String),
    #[error("cannot build the HTTP client: {0}")]
    Http(String),
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    /// An HTTP server could not be reached or refused us, said plainly (see `http_error`).
    #[error("{0}")]
    Unreachable(String),
}

/// The last lines a stdio server wrote to stderr, secrets redacted.
#[derive(Clone, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    pub fn lines(&self) -> Vec<String> {
        match self.0.lock() {
            Ok(g) => g.iter().cloned().collect(),
            Err(p) => p.into_inner().iter().cloned().collect(),
        }
    }

    fn push(&self, line: String) {
        let mut g = match self.0.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if g.len() == STDERR_LINES {
            g.pop_front();
        }
        g.push_back(line);
    }

    pub(crate) fn clear(&self) {
        match self.0.lock() {
            Ok(mut g) => g.clear(),
            Err(p) => p.into_inner().clear(),
        }
    }
}

pub(crate) async fn connect(
    spec: &ServerSpec,
    signals: Arc<Signals>,
    tail: &StderrTail,
) -> Result<Connection, ConnectError> {
    let handler = Handler {
        server: spec.name.clone(),
        allow_sampling: spec.allow_sampling,
        signals,
    };
    let secrets = spec.secret_values();
    let handshake = |e: rmcp::service::ClientInitializeError| {
        ConnectError::Handshake(scrub(&e.to_string(), &secrets, 300))
    };
    match &spec.transport {
        Transport::Stdio { command, args, env } => {
            let mut cmd = Command::new(command);
            cmd.args(args)
                .env_clear()
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                // Its own process group, so stopping it reaches whatever it started (see
                // `group`); this also keeps a terminal's Ctrl-C from hitting it before
                // Steward has shut down.
                .process_group(0)
                .kill_on_drop(true);
            for var in INHERITED_ENV {
                if let Some(v) = std::env::var_os(var) {
                    cmd.env(var, v);
                }
            }
            cmd.envs(env);
            let child = cmd.spawn().map_err(|e| ConnectError::Spawn {
                command: command.clone(),
                reason: e.to_string(),
            })?;
            // Wrapped at once: from here on every early return kills the whole group.
            let mut group = ChildGroup::new(child);
            let pid = group.pid();
            let child = group.child_mut();
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(ConnectError::Spawn {
                    command: command.clone(),
                    reason: "no stdio pipes".into(),
                });
            };
            if let Some(stderr) = child.stderr.take() {
                tokio::spawn(read_stderr(
                    stderr,
                    tail.clone(),
                    secrets.clone(),
                    spec.name.clone(),
                ));
            }
            let transport = AsyncRwTransport::<RoleClient, _, _>::new(stdout, stdin)
                .with_max_line_length(MAX_MESSAGE_BYTES);
            let session = handler.serve(transport).await.map_err(handshake)?;
            Ok(Connection {
                session,
                child: Some(group),
                pid,
            })
        }
        Transport::Http { url, headers } => {
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let n = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| ConnectError::Header(name.clone()))?;
                let mut v =
                    HeaderValue::from_str(value).map_err(|_| ConnectError::Header(name.clone()))?;
                v.set_sensitive(true);
                custom.insert(n, v);
            }
            let _ = rustls::crypto::ring::default_provider().install_default();
            let client = reqwest::Client::builder()
                .connect_timeout(spec.timeout)
                .build()
                .map_err(|e| ConnectError::Http(e.to_string()))?;
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(custom)
                .max_json_response_size(MAX_MESSAGE_BYTES)
                .max_sse_event_size(MAX_MESSAGE_BYTES);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            let session = handler.serve(transport).await.map_err(|e| {
                match super::http_error::explain(&e, url, &secrets) {
                    Some(plain) => ConnectError::Unreachable(plain),
                    None => handshake(e),
                }
            })?;
            Ok(Connection {
                session,
                child: None,
                pid: None,
            })
        }
    }
}

/// Keep the last lines of a server's stderr (bounded per line and in count, secrets
/// redacted) and log them at debug level. Reads in fixed chunks: a server that never prints
/// a newline cannot make us buffer without limit.
async fn read_stderr(
    mut stderr: ChildStderr,
    tail: StderrTail,
    secrets: Vec<String>,
    server: String,
) {
    let mut buf = [0u8; 4096];
    let mut line: Vec<u8> = Vec::new();
    let cap = STDERR_LINE_CHARS * 4;
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in buf.iter().take(n) {
            if b == b'\n' {
                flush_line(&mut line, &tail, &secrets, &server);
            } else if line.len() < cap {
                line.push(b);
            }
        }
    }
    flush_line(&mut line, &tail, &secrets, &server);
}

fn flush_line(line: &mut Vec<u8>, tail: &StderrTail, secrets: &[String], server: &str) {
    if line.is_empty() {
        return;
    }
    let text = scrub(&String::from_utf8_lossy(line), secrets, STDERR_LINE_CHARS);
    line.clear();
    if text.is_empty() {
        return;
    }
    tracing::debug!(server, line = %text, "mcp server stderr");
    tail.push(text);
}
