//! Keeping one server connected: open a session and list its tools, publish them, watch
//! the session (process exit, transport closed, a call that found it broken, a ping every
//! `HEALTH_INTERVAL`, `tools/list_changed`), and after a failure try again with capped
//! exponential backoff. While a server is down it offers no tools.
//!
//! Owns: the retry policy and the session's lifetime. Does not own the transports (see
//! `connect`) or what a call does (see `tool`).

use super::connect::{Connection, connect};
use super::group::ChildGroup;
use super::scrub::scrub;
use super::state::{ServerHandle, Status, ToolInfo};
use super::tool::{McpTool, ResourceTool, describe, effect_for, full_description};
use crate::names::namespaced;
use crate::schema::convert;
use rmcp::model::{ClientRequest, PingRequest};
use rmcp::{Peer, RoleClient};
use std::sync::Arc;
use std::time::{Duration, Instant};
use steward_tools::Tool;
use tokio_util::sync::CancellationToken;

/// First retry delay; doubles per failed attempt up to `BACKOFF_CAP`.
pub const BACKOFF_BASE: Duration = Duration::from_millis(500);
pub const BACKOFF_CAP: Duration = Duration::from_secs(60);
/// A session that lasted this long counts as healthy: the next failure starts the backoff
/// from the beginning. Shorter ones (a crash loop) keep growing it.
const STABLE: Duration = Duration::from_secs(30);
/// How often a connected session is pinged (HTTP servers cannot tell us they died).
const HEALTH_INTERVAL: Duration = Duration::from_secs(20);
/// Most tools taken from one server; more would only flood the tool index.
pub const MAX_TOOLS: usize = 128;
const LIST_RESOURCES: &str = "list_resources";
const READ_RESOURCE: &str = "read_resource";

/// Delay before attempt `attempts + 1`: base × 2^(attempts−1), capped, ±20 % jitter so many
/// servers failing together do not retry in lockstep.
pub fn backoff(attempts: u32) -> Duration {
    let exp = attempts.saturating_sub(1).min(16);
    let raw = BACKOFF_BASE.saturating_mul(1u32 << exp).min(BACKOFF_CAP);
    let jitter = 0.8 + fastrand::f64() * 0.4;
    raw.mul_f64(jitter).min(BACKOFF_CAP)
}

/// A session that is up, with the tools built for it.
pub(crate) struct Opened {
    pub conn: Connection,
    pub tools: Vec<Arc<dyn Tool>>,
    pub infos: Vec<ToolInfo>,
    /// Tool names in the configuration's `tools.NAME.effect` that this server does not have.
    pub unknown_overrides: Vec<String>,
    /// Time spent on spawning and the handshake (the rest of `open` is listing).
    pub handshake: Duration,
}

/// What one `tools/list` gave.
struct Listed {
    tools: Vec<Arc<dyn Tool>>,
    infos: Vec<ToolInfo>,
    unknown_overrides: Vec<String>,
}

/// Connect, then list every tool and build ours (names, schemas, effects).
pub(crate) async fn open(h: &Arc<ServerHandle>) -> Result<Opened, String> {
    h.stderr.clear();
    let started = Instant::now();
    let conn = connect(&h.spec, Arc::clone(&h.signals), &h.stderr)
        .await
        .map_err(|e| e.to_string())?;
    let handshake = started.elapsed();
    let listed = list(h, conn.session.peer()).await?;
    Ok(Opened {
        conn,
        tools: listed.tools,
        infos: listed.infos,
        unknown_overrides: listed.unknown_overrides,
        handshake,
    })
}

/// The owner's overrides naming no tool of the server, as the server spells its names.
fn unknown_overrides(h: &ServerHandle, listed: &[rmcp::model::Tool]) -> Vec<String> {
    h.spec
        .effects
        .keys()
        .filter(|name| !listed.iter().any(|t| t.name.as_ref() == name.as_str()))
        .cloned()
        .collect()
}

/// Log, once per server and process, what a person should fix: overrides that name no
/// tool and parameter schemas that could not be fully followed. (`steward mcp list`,
/// `mcp test` and `doctor` print the same from their probe.)
fn report_once(h: &ServerHandle, opened: &Opened) {
    if h.reported.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    for name in &opened.unknown_overrides {
        tracing::warn!(server = %h.spec.name, tool = %scrub(name, &[], 100), "[mcp.servers.{}] tools.{}.effect names no tool of this server; check the spelling (`steward mcp list` shows its tools)", h.spec.name, scrub(name, &[], 100));
    }
    for info in &opened.infos {
        for warning in &info.warnings {
            tracing::warn!(server = %h.spec.name, tool = %info.original, "MCP tool schema: {warning}");
        }
    }
}

/// List every tool of the session and build ours: names, schemas, effects, and the two
/// resource tools when the server has resources.
async fn list(h: &Arc<ServerHandle>, peer: &Peer<RoleClient>) -> Result<Listed, String> {
    let mut listed = peer.list_all_tools().await.map_err(|e| {
        format!(
            "listing tools failed: {}",
            scrub(&e.to_string(), &h.spec.secret_values(), 300)
        )
    })?;
    let unknown_overrides = unknown_overrides(h, &listed);
    if listed.len() > MAX_TOOLS {
        tracing::warn!(server = %h.spec.name, offered = listed.len(), kept = MAX_TOOLS, "MCP server offers too many tools; keeping the first");
        listed.truncate(MAX_TOOLS);
    }
    let originals: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    let names = namespaced(&h.spec.name, &originals);
    let weak = Arc::downgrade(h);
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    let mut infos = Vec::new();
    for t in &listed {
        let Some(name) = names.get(t.name.as_ref()) else {
            continue;
        };
        let effect = effect_for(
            t.annotations.as_ref(),
            h.spec.effects.get(t.name.as_ref()).copied(),
            h.spec.trust_annotations,
        );
        let converted = convert(&t.input_schema);
        infos.push(ToolInfo {
            name: name.clone(),
            original: scrub(&t.name, &[], 100),
            effect,
            summary: describe(&h.spec.name, t.description.as_deref()),
            warnings: converted.problems.iter().map(ToString::to_string).collect(),
        });
        tools.push(Arc::new(McpTool {
            handle: weak.clone(),
            server: h.spec.name.clone(),
            name: name.clone(),
            original: t.name.to_string(),
            description: full_description(&h.spec.name, t.description.as_deref()),
            parameters: converted.parameters,
            effect,
        }));
    }
    let has_resources = peer
        .peer_info()
        .is_some_and(|i| i.capabilities.resources.is_some());
    if has_resources {
        for (suffix, read) in [(LIST_RESOURCES, false), (READ_RESOURCE, true)] {
            let name = format!("{}__{suffix}", h.spec.name);
            if infos.iter().any(|i| i.name == name) {
                tracing::warn!(server = %h.spec.name, tool = %name, "a server tool has the resource tool's name; resources not offered");
                continue;
            }
            let tool = ResourceTool {
                handle: weak.clone(),
                server: h.spec.name.clone(),
                name: name.clone(),
                read,
            };
            infos.push(ToolInfo {
                name: name.clone(),
                original: format!("(resources/{})", if read { "read" } else { "list" }),
                effect: tool.effect(),
                summary: format!("[mcp:{}] {}", h.spec.name, tool.description()),
                warnings: Vec::new(),
            });
            tools.push(Arc::new(tool));
        }
    }
    infos.sort_by(|a, b| a.name.cmp(&b.name));
    tools.sort_by(|a, b| a.name().cmp(b.name()));
    Ok(Listed {
        tools,
        infos,
        unknown_overrides,
    })
}

fn set_status(h: &ServerHandle, status: Status) {
    h.write().status = status;
}

/// Run `supervise` and start it again should it ever panic (a bug, or a hostile server
/// reaching one in a dependency): one server's supervisor must not die silently.
pub(crate) async fn supervise_forever(h: Arc<ServerHandle>, stop: CancellationToken) {
    loop {
        let task = tokio::spawn(supervise(Arc::clone(&h), stop.clone()));
        match task.await {
            Ok(()) => return,
            Err(e) => {
                tracing::error!(server = %h.spec.name, panicked = e.is_panic(), "MCP supervisor failed; restarting it");
                {
                    let mut live = h.write();
                    live.peer = None;
                    live.pid = None;
                    live.tools.clear();
                    live.infos.clear();
                    live.status = Status::Down {
                        error: "internal error in the MCP supervisor".to_owned(),
                        attempts: 1,
                        retry_in: BACKOFF_CAP,
                    };
                }
                tokio::select! {
                    _ = tokio::time::sleep(BACKOFF_CAP) => {}
                    _ = stop.cancelled() => return,
                }
            }
        }
    }
}

/// Run until `stop`: connect, serve, and reconnect with backoff after every failure.
pub(crate) async fn supervise(h: Arc<ServerHandle>, stop: CancellationToken) {
    let mut attempts: u32 = 0;
    loop {
        set_status(&h, Status::Connecting);
        let started = Instant::now();
        let opened = tokio::select! {
            r = tokio::time::timeout(h.spec.timeout, open(&h)) => r,
            _ = stop.cancelled() => return,
        };
        let error = match opened {
            Ok(Ok(opened)) => {
                tracing::info!(server = %h.spec.name, tools = opened.tools.len(), "MCP server connected");
                report_once(&h, &opened);
                match serve(&h, opened, &stop).await {
                    Some(why) => why,
                    None => return,
                }
            }
            Ok(Err(e)) => e,
            Err(_) => format!(
                "no answer within {} s while connecting",
                h.spec.timeout.as_secs()
            ),
        };
        if started.elapsed() >= STABLE {
            attempts = 0;
        }
        attempts = attempts.saturating_add(1);
        let delay = backoff(attempts);
        tracing::warn!(server = %h.spec.name, error = %error, attempts, retry_ms = delay.as_millis() as u64, "MCP server down");
        set_status(
            &h,
            Status::Down {
                error,
                attempts,
                retry_in: delay,
            },
        );
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = stop.cancelled() => return,
        }
    }
}

/// Publish a session and watch it. Returns why it ended, or None when told to stop.
async fn serve(h: &Arc<ServerHandle>, opened: Opened, stop: &CancellationToken) -> Option<String> {
    let Opened {
        conn, tools, infos, ..
    } = opened;
    let Connection {
        session,
        mut child,
        pid,
    } = conn;
    let peer = session.peer().clone();
    let generation = {
        let mut live = h.write();
        live.generation += 1;
        live.peer = Some(peer.clone());
        live.pid = pid;
        live.tools = tools;
        live.infos = infos;
        live.status = Status::Connected;
        live.generation
    };
    let cancel = session.cancellation_token();
    let waiting = session.waiting();
    tokio::pin!(waiting);
    let mut health = tokio::time::interval(HEALTH_INTERVAL);
    health.tick().await; // the first tick is immediate
    let mut ended = false;
    let why = loop {
        tokio::select! {
            _ = stop.cancelled() => break None,
            _ = &mut waiting => {
                ended = true;
                break Some("the session closed (the server exited or the connection dropped)".to_owned());
            }
            status = wait_child(&mut child) => break Some(format!("the server process exited ({status})")),
            _ = h.broken.notified() => {
                // Set by a call that saw the transport fail; stale wake-ups are ignored.
                // One guard: a second read lock while a writer waits could deadlock.
                let live = h.read();
                if live.generation == generation && live.peer.is_none() {
                    break Some(match &live.status {
                        Status::Down { error, .. } => error.clone(),
                        _ => "the connection broke".to_owned(),
                    });
                }
            }
            _ = h.signals.tools_changed.notified() => {
                let listed = tokio::time::timeout(h.spec.timeout, list(h, &peer)).await;
                if let Ok(Ok(listed)) = listed {
                    let mut live = h.write();
                    if live.generation == generation {
                        live.tools = listed.tools;
                        live.infos = listed.infos;
                    }
                }
            }
            _ = health.tick() => {
                let ping = ClientRequest::PingRequest(PingRequest { method: Default::default(), extensions: Default::default() });
                let ok = matches!(tokio::time::timeout(h.spec.timeout, peer.send_request(ping)).await, Ok(Ok(_)));
                if !ok {
                    break Some("no answer to a health-check ping".to_owned());
                }
            }
        }
    };
    {
        // Everything in one step, so nobody sees "connected" without a session or tools.
        let mut live = h.write();
        if live.generation == generation {
            live.peer = None;
            live.pid = None;
            live.tools.clear();
            live.infos.clear();
            if live.status == Status::Connected {
                live.status = Status::Down {
                    error: why.clone().unwrap_or_else(|| "stopped".to_owned()),
                    attempts: 0,
                    retry_in: Duration::ZERO,
                };
            }
        }
    }
    cancel.cancel();
    if !ended {
        let _ = tokio::time::timeout(Duration::from_secs(3), &mut waiting).await;
    }
    if let Some(mut group) = child {
        // The whole group, also after a crash: the leader may be gone, its helpers not.
        group.stop().await;
    }
    why
}

/// Wait for the stdio child to exit; never resolves for HTTP servers.
async fn wait_child(child: &mut Option<ChildGroup>) -> String {
    match child {
        Some(c) => match c.child_mut().wait().await {
            Ok(status) => status.to_string(),
            Err(e) => e.to_string(),
        },
        None => std::future::pending().await,
    }
}
