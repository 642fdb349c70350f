//! The accept loop: connection caps (global and per client address), the header and idle
//! deadlines of each connection, and graceful shutdown.
//!
//! Owns: accepting, admission through `slots`, spawning one `conn` task per connection,
//! draining on shutdown. Does not own: routes or auth (the router), TLS (none: a reverse
//! proxy terminates it), reading configuration (the binary fills [`ConnLimits`]).
//!
//! Why our own loop rather than `axum::serve`: axum's has no header deadline, no idle
//! deadline and no cap, so a thousand half-open connections keep a thousand descriptors
//! until the process runs out and stops accepting anyone (the owner included).

mod conn;
mod slots;

pub(crate) use conn::{PeerAddr, mark_authenticated};

use axum::Router;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Limits on connections, from the binary's `http.*` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// A request head (from accept, or from the first byte after an idle spell) must be
    /// complete within this, else the connection is closed.
    pub header_timeout: Duration,
    /// A kept-alive connection with no request for this long is closed.
    pub idle_timeout: Duration,
    /// Most open connections; at the cap a waiting one gives way (see `slots`).
    pub max_connections: usize,
    /// Most open connections from one client address (IPv6: one /64).
    pub max_connections_per_ip: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 256,
            max_connections_per_ip: 64,
        }
    }
}

/// Serve with the default [`ConnLimits`] until `shutdown` resolves; then stop accepting
/// and let requests in progress finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    serve_with(listener, app, ConnLimits::default(), shutdown).await
}

/// [`serve`] with explicit limits.
pub async fn serve_with(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let slots = Arc::new(slots::Slots::new(
        limits.max_connections,
        limits.max_connections_per_ip,
    ));
    let deadlines = conn::Deadlines {
        header: limits.header_timeout,
        idle: limits.idle_timeout,
    };
    let stop = CancellationToken::new();
    let tasks = TaskTracker::new();
    let mut last_warning: Option<Instant> = None;
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (tcp, peer) = match accepted {
            Ok(pair) => pair,
            Err(err) if is_per_connection(&err) => continue,
            Err(err) => {
                // Out of descriptors (or memory): give one back by closing a waiting
                // connection, and pause so the loop does not spin.
                let shed = slots.shed_one();
                if last_warning.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
                    tracing::warn!(%err, shed, "accept failed; raise the file limit or lower http.max_connections");
                    last_warning = Some(Instant::now());
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let shared = Arc::new(conn::ConnShared::new());
        let id = match slots.admit(peer.ip(), shared.clone()) {
            Ok(id) => id,
            Err(refused) => {
                tracing::debug!(
                    ?refused,
                    "refused a connection: every slot serves the owner"
                );
                continue;
            }
        };
        // Streamed tokens are small writes; Nagle would hold them back.
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(%err, "could not set TCP_NODELAY");
        }
        let release = Release {
            slots: slots.clone(),
            id,
        };
        let (app, stop) = (app.clone(), stop.clone());
        tasks.spawn(async move {
            let _release = release;
            conn::run(tcp, peer, shared, app, deadlines, stop).await;
        });
    }
    // Close the listening socket first so new connections are refused, then drain.
    drop(listener);
    stop.cancel();
    tasks.close();
    tasks.wait().await;
    Ok(())
}

/// Errors that concern one connection only (it was reset before we accepted it).
fn is_per_connection(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Frees the connection's slot when its task ends, however it ends.
struct Release {
    slots: Arc<slots::Slots>,
    id: u64,
}

impl Drop for Release {
    fn drop(&mut self) {
        self.slots.release(self.id);
    }
}
