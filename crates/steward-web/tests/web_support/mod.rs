//! Shared fixtures for the web tool tests: a raw HTTP/1.1 server on 127.0.0.1 that counts
//! the connections it accepts and the body bytes it manages to write (so a test can prove
//! a target was never contacted, or that a body was not read to the end), a resolver with
//! fixed answers that counts its lookups, and helpers to call the tools through a registry.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use steward_protocol::{ConversationId, ToolCall};
use steward_tools::{ToolContext, ToolOutcome, ToolRegistry};
use steward_web::{Resolver, WebConfig, web_tools_with_resolver};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the fake server sends after the status line and headers.
#[derive(Clone)]
pub enum Body {
    Bytes(Vec<u8>),
    /// Part of a body, then silence until the test ends.
    Stall,
    /// 64 KiB chunks until the client goes away or `limit` bytes were written.
    Endless {
        limit: usize,
    },
}

#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Body,
}

impl Reply {
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: Body::Bytes(body.into()),
        }
    }

    pub fn html(body: &str) -> Reply {
        Reply::new(200, "text/html; charset=utf-8", body)
    }

    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Body::Bytes(Vec::new()),
        }
    }
}

type Handler = Arc<dyn Fn(&str) -> Reply + Send + Sync>;

/// A counting HTTP server on 127.0.0.1; stops when dropped.
pub struct Server {
    pub addr: SocketAddr,
    pub accepted: Arc<AtomicUsize>,
    /// Body bytes successfully written, across all connections.
    pub written: Arc<AtomicUsize>,
    /// Request heads received, in order.
    pub requests: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    pub async fn start(handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let written = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Handler = Arc::new(handler);
        let (a, w, r) = (accepted.clone(), written.clone(), requests.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                a.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(serve(stream, handler.clone(), w.clone(), r.clone()));
            }
        });
        Server {
            addr,
            accepted,
            written,
            requests,
            task,
        }
    }

    /// A server that answers every request with the same reply.
    pub async fn fixed(reply: Reply) -> Server {
        Server::start(move |_| reply.clone()).await
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port())
    }

    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    pub fn written(&self) -> usize {
        self.written.load(Ordering::SeqCst)
    }
}

async fn serve(
    mut stream: TcpStream,
    handler: Handler,
    written: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<String>>>,
) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > 64 * 1024 {
            return;
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    requests.lock().unwrap().push(head);
    let reply = handler(&path);
    let mut out = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", reply.status);
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    match &reply.body {
        Body::Bytes(b) => out.push_str(&format!("Content-Length: {}\r\n", b.len())),
        Body::Stall => out.push_str("Content-Length: 100000\r\n"),
        Body::Endless { limit } => out.push_str(&format!("Content-Length: {limit}\r\n")),
    }
    out.push_str("\r\n");
    if stream.write_all(out.as_bytes()).await.is_err() {
        return;
    }
    match reply.body {
        Body::Bytes(b) => {
            if stream.write_all(&b).await.is_ok() {
                written.fetch_add(b.len(), Ordering::SeqCst);
            }
        }
        Body::Stall => {
            let _ = stream.write_all(b"<html><title>slow</title>").await;
            tokio::time::sleep(Duration::from_secs(120)).await;
        }
        Body::Endless { limit } => {
            let chunk = vec![b'a'; 64 * 1024];
            let mut sent = 0;
            while sent < limit {
                if stream.write_all(&chunk).await.is_err() {
                    break;
                }
                sent += chunk.len();
                written.fetch_add(chunk.len(), Ordering::SeqCst);
            }
        }
    }
    let _ = stream.shutdown().await;
}

/// Fixed DNS answers; unknown names fail like NXDOMAIN. Counts lookups.
#[derive(Default)]
pub struct FixedResolver {
    answers: HashMap<String, Vec<IpAddr>>,
    pub lookups: AtomicUsize,
}

impl FixedResolver {
    pub fn new(answers: &[(&str, &[&str])]) -> Arc<FixedResolver> {
        Arc::new(FixedResolver {
            answers: answers
                .iter()
                .map(|(h, ips)| {
                    (
                        h.to_string(),
                        ips.iter().map(|ip| ip.parse().unwrap()).collect(),
                    )
                })
                .collect(),
            lookups: AtomicUsize::new(0),
        })
    }

    pub fn lookups(&self) -> usize {
        self.lookups.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl Resolver for FixedResolver {
    async fn lookup(&self, host: &str, _port: u16) -> std::io::Result<Vec<IpAddr>> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        self.answers
            .get(host)
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such host"))
    }
}

pub fn registry(cfg: WebConfig, resolver: Arc<dyn Resolver>) -> ToolRegistry {
    let mut r = ToolRegistry::new();
    for tool in web_tools_with_resolver(cfg, resolver) {
        r.register(tool).unwrap();
    }
    r
}

pub fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test:web").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    )
}

pub async fn call(r: &ToolRegistry, tool: &str, args: Value) -> ToolOutcome {
    let call = ToolCall {
        id: "c1".into(),
        name: tool.into(),
        arguments: args.to_string(),
    };
    r.call(&call, &ctx()).await
}

pub async fn fetch(r: &ToolRegistry, url: &str) -> ToolOutcome {
    call(r, "fetch_url", json!({ "url": url })).await
}

/// A config allowing exactly these hosts, with short limits for tests.
pub fn cfg(allow: &str) -> WebConfig {
    WebConfig {
        allow_hosts: steward_web::AllowList::parse(allow).unwrap(),
        fetch_timeout: Duration::from_secs(5),
        ..WebConfig::default()
    }
}
