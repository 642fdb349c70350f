//! The MCP client: every configured server supervised in the background, its tools offered
//! to the registry as a `ToolSource` (one per server, label `mcp:NAME`) that shows what is
//! connected right now, plus a one-shot `probe` for `steward mcp list` and `steward mcp test`.
//!
//! Owns: `McpManager` (start, statuses, shutdown) and `ServerSource`. Start-up never waits
//! for a server: `McpManager::start` only spawns supervisors. Does not own configuration
//! parsing (the binary) or policy (steward-core's approval gate sees each tool's effect).

pub mod connect;
pub(crate) mod group;
pub mod handler;
mod http_error;
pub mod reach;
mod scrub;
pub mod state;
pub mod supervisor;
pub mod tool;

use crate::spec::ServerSpec;
use state::{ServerHandle, ServerStatus, Status, ToolInfo};
use std::sync::Arc;
use std::time::{Duration, Instant};
use steward_tools::{Tool, ToolSource};
use tokio_util::sync::CancellationToken;

/// All configured servers.
pub struct McpManager {
    servers: Vec<Arc<ServerHandle>>,
    stop: CancellationToken,
    /// The supervisors, so a shutdown can wait for sessions to end properly (an HTTP
    /// session's `DELETE`, a stdio server's SIGTERM) before the process exits.
    tasks: std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl McpManager {
    /// Spawn one supervisor per enabled server and return at once. Must run inside a Tokio
    /// runtime. The supervisors run until [`shutdown`](Self::shutdown) or the runtime ends.
    pub fn start(specs: Vec<ServerSpec>) -> Arc<McpManager> {
        let stop = CancellationToken::new();
        let servers: Vec<Arc<ServerHandle>> = specs.into_iter().map(ServerHandle::new).collect();
        let tasks = servers
            .iter()
            .filter(|h| h.spec.enabled)
            .map(|h| tokio::spawn(supervisor::supervise_forever(Arc::clone(h), stop.clone())))
            .collect();
        Arc::new(McpManager {
            servers,
            stop,
            tasks: std::sync::Mutex::new(tasks),
        })
    }

    /// One tool source per server (disabled ones included: they simply offer nothing).
    pub fn sources(&self) -> Vec<Arc<dyn ToolSource>> {
        self.servers
            .iter()
            .map(|h| Arc::new(ServerSource(Arc::clone(h))) as Arc<dyn ToolSource>)
            .collect()
    }

    pub fn server(&self, name: &str) -> Option<Arc<ServerHandle>> {
        self.servers.iter().find(|h| h.spec.name == name).cloned()
    }

    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers.iter().map(|h| h.status()).collect()
    }

    /// Stop every supervisor; their sessions close and stdio servers are killed.
    pub fn shutdown(&self) {
        self.stop.cancel();
    }

    /// [`shutdown`](Self::shutdown), then wait up to `grace` for every session to end: an
    /// HTTP session is ended with `DELETE` (streamable HTTP, as the spec asks of a client
    /// that leaves), a stdio server's process group gets SIGTERM (SIGKILL after 2 s).
    /// Returns whether all ended within `grace`.
    pub async fn shutdown_and_wait(&self, grace: Duration) -> bool {
        self.shutdown();
        let tasks: Vec<_> = match self.tasks.lock() {
            Ok(mut g) => g.drain(..).collect(),
            Err(p) => p.into_inner().drain(..).collect(),
        };
        let all = async {
            for t in tasks {
                let _ = t.await;
            }
        };
        tokio::time::timeout(grace, all).await.is_ok()
    }
}

/// One server's tools as the registry sees them.
pub struct ServerSource(Arc<ServerHandle>);

impl ToolSource for ServerSource {
    fn label(&self) -> &str {
        &self.0.label
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        // Sorted by name when published; empty while the server is down.
        self.0.read().tools.clone()
    }
}

/// What `probe` found.
#[derive(Debug, Clone)]
pub struct ProbeReport {
    pub name: String,
    pub transport: &'static str,
    pub target: String,
    /// Spawn/handshake (or the failure) time.
    pub connect: Duration,
    /// Listing tools (zero if the connection failed).
    pub list: Duration,
    pub result: Result<Vec<ToolInfo>, String>,
    /// `tools.NAME.effect` overrides in the configuration that name no tool of this server
    /// (empty when the connection failed: then nobody knows).
    pub unknown_overrides: Vec<String>,
    /// Last stderr lines of a stdio server (secrets redacted).
    pub stderr: Vec<String>,
}

/// Connect once, list the tools, disconnect: for `steward mcp list` / `steward mcp test`.
/// Bounded by the server's timeout; never retries.
pub async fn probe(spec: &ServerSpec) -> ProbeReport {
    let h = ServerHandle::new(spec.clone());
    let started = Instant::now();
    let outcome = tokio::time::timeout(spec.timeout, supervisor::open(&h)).await;
    let elapsed = started.elapsed();
    let mut unknown = Vec::new();
    let (connect, list, result) = match outcome {
        Err(_) => (
            elapsed,
            Duration::ZERO,
            Err(format!(
                "no answer within {} s (timeout_secs)",
                spec.timeout.as_secs()
            )),
        ),
        Ok(Err(e)) => (elapsed, Duration::ZERO, Err(e)),
        Ok(Ok(opened)) => {
            let supervisor::Opened {
                conn,
                infos,
                handshake,
                unknown_overrides,
                ..
            } = opened;
            unknown = unknown_overrides;
            let mut session = conn.session;
            let _ = session.close_with_timeout(Duration::from_secs(3)).await;
            if let Some(mut group) = conn.child {
                group.stop().await;
            }
            (handshake, elapsed.saturating_sub(handshake), Ok(infos))
        }
    };
    // Let the stderr reader drain what the process wrote before it went away.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let st = h.status();
    ProbeReport {
        name: spec.name.clone(),
        transport: st.transport,
        target: st.target,
        connect,
        list,
        result,
        unknown_overrides: unknown,
        stderr: st.stderr,
    }
}

impl ServerStatus {
    /// Connected right now?
    pub fn is_connected(&self) -> bool {
        self.status == Status::Connected
    }
}
