//! The shared, always-current view of one configured server: its status, the live session's
//! peer, and the tools it offers right now. The supervisor writes it; tools, the
//! `ToolSource` and `steward mcp list` read it.
//!
//! Owns: `ServerHandle`, `Status` and `ServerStatus` (the read-only snapshot). Does not own
//! connecting or retrying (see `supervisor`).

use super::connect::StderrTail;
use super::handler::Signals;
use crate::spec::ServerSpec;
use rmcp::{Peer, RoleClient};
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;
use steward_protocol::Effect;
use steward_tools::Tool;
use tokio::sync::Notify;

/// Where a server is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// `enabled = false`: never started.
    Disabled,
    /// Spawning / handshaking / listing tools.
    Connecting,
    /// A live session whose tools are published (set and cleared together with them).
    Connected,
    /// Not connected; the next attempt is due after `retry_in` (from when this was set).
    Down {
        error: String,
        attempts: u32,
        retry_in: Duration,
    },
}

impl Status {
    pub fn label(&self) -> &'static str {
        match self {
            Status::Disabled => "disabled",
            Status::Connecting => "connecting",
            Status::Connected => "connected",
            Status::Down { .. } => "down",
        }
    }
}

/// One tool as `steward mcp list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInfo {
    /// The registry name (`server__tool`).
    pub name: String,
    /// The server's own name for it.
    pub original: String,
    pub effect: Effect,
    /// One line, bounded.
    pub summary: String,
    /// What a person should know about this tool's parameter schema (a `$ref` that could
    /// not be followed, so that part is unchecked here); one bounded line each.
    pub warnings: Vec<String>,
}

/// A snapshot for listings and tests.
#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub name: String,
    pub transport: &'static str,
    pub target: String,
    pub status: Status,
    pub pid: Option<u32>,
    pub tools: Vec<ToolInfo>,
    /// How many sampling requests this server made (all refused).
    pub sampling_refused: u64,
    /// The last lines of a stdio server's stderr, secrets redacted.
    pub stderr: Vec<String>,
}

pub(crate) struct Live {
    pub status: Status,
    pub peer: Option<Peer<RoleClient>>,
    pub pid: Option<u32>,
    /// Increases with every session; a failure report for an older session is ignored.
    pub generation: u64,
    pub tools: Vec<Arc<dyn Tool>>,
    pub infos: Vec<ToolInfo>,
}

/// One configured server, shared by its supervisor and everything that reads it.
pub struct ServerHandle {
    pub(crate) spec: ServerSpec,
    pub(crate) label: String,
    pub(crate) live: RwLock<Live>,
    pub(crate) signals: Arc<Signals>,
    /// Wakes the supervisor when a call found the session broken.
    pub(crate) broken: Notify,
    pub(crate) stderr: StderrTail,
    /// Set once the configuration problems found at the first listing have been logged.
    pub(crate) reported: std::sync::atomic::AtomicBool,
}

impl ServerHandle {
    pub(crate) fn new(spec: ServerSpec) -> Arc<ServerHandle> {
        let status = if spec.enabled {
            Status::Connecting
        } else {
            Status::Disabled
        };
        Arc::new(ServerHandle {
            label: format!("mcp:{}", spec.name),
            spec,
            live: RwLock::new(Live {
                status,
                peer: None,
                pid: None,
                generation: 0,
                tools: Vec::new(),
                infos: Vec::new(),
            }),
            signals: Arc::new(Signals::default()),
            broken: Notify::new(),
            stderr: StderrTail::default(),
            reported: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn spec(&self) -> &ServerSpec {
        &self.spec
    }

    /// A poisoned lock means a panic mid-update of plain data; the data is still usable and
    /// a tool call must never take the assistant down over it.
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Live> {
        self.live.read().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, Live> {
        self.live.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The current session's peer and generation, if connected.
    pub(crate) fn peer(&self) -> Option<(Peer<RoleClient>, u64)> {
        let live = self.read();
        match (&live.status, &live.peer) {
            (Status::Connected, Some(p)) => Some((p.clone(), live.generation)),
            _ => None,
        }
    }

    /// A call saw the transport fail: drop the session's tools now and let the supervisor
    /// reconnect. Ignored if that session has already been replaced.
    pub(crate) fn report_broken(&self, generation: u64, why: &str) {
        {
            let mut live = self.write();
            if live.generation != generation || live.peer.is_none() {
                return;
            }
            live.peer = None;
            live.tools.clear();
            live.infos.clear();
            live.status = Status::Down {
                error: why.to_owned(),
                attempts: 0,
                retry_in: Duration::ZERO,
            };
        }
        tracing::warn!(server = %self.spec.name, reason = why, "MCP session broken; reconnecting");
        self.broken.notify_one();
    }

    /// The snapshot `steward mcp list` and the tests read.
    pub fn status(&self) -> ServerStatus {
        let live = self.read();
        ServerStatus {
            name: self.spec.name.clone(),
            transport: self.spec.transport_kind(),
            target: self.spec.target(),
            status: live.status.clone(),
            pid: live.pid,
            tools: live.infos.clone(),
            sampling_refused: self.signals.sampling_refused.load(Ordering::Relaxed),
            stderr: self.stderr.lines(),
        }
    }
}
