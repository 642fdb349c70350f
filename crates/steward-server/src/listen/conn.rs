//! One HTTP/1 connection: its phase (reading a request head, serving, idle between
//! requests), the deadlines that close it, whether it ever presented a valid token, and
//! the task that serves it until it ends, times out, is displaced or the server stops.
//!
//! Owns: phase tracking (bytes read → head, request → busy, response body finished →
//! idle), the header and idle deadlines, per-connection shutdown, handing each request its
//! connection's peer address (`PeerAddr`). Does not own: caps and
//! displacement (`slots`), routing or auth (the router; auth only calls
//! [`mark_authenticated`]).

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::Service as _;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Where a connection is between requests. The deadline of `Head` and `Idle` runs from
/// `since`; `Busy` (a request being served, its response being written) has none, so a long
/// streamed turn is never cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Waiting for a request head to complete: from accept, or from the first byte after
    /// an idle spell.
    Head { since: Instant },
    /// Requests in progress (more than one only with pipelining).
    Busy(usize),
    /// A response finished and no byte of the next request has arrived.
    Idle { since: Instant },
}

/// State shared by the connection's task, its IO, its requests and the slot table.
pub(crate) struct ConnShared {
    authenticated: AtomicBool,
    phase: watch::Sender<Phase>,
    kill: CancellationToken,
}

impl ConnShared {
    pub(crate) fn new() -> ConnShared {
        ConnShared {
            authenticated: AtomicBool::new(false),
            phase: watch::Sender::new(Phase::Head {
                since: Instant::now(),
            }),
            kill: CancellationToken::new(),
        }
    }

    pub(crate) fn mark_authenticated(&self) {
        self.authenticated.store(true, Ordering::Relaxed);
    }

    pub(crate) fn is_authenticated(&self) -> bool {
        self.authenticated.load(Ordering::Relaxed)
    }

    pub(crate) fn is_busy(&self) -> bool {
        matches!(*self.phase.borrow(), Phase::Busy(_))
    }

    /// Ask the connection's task to close it now.
    pub(crate) fn kill(&self) {
        self.kill.cancel();
    }

    #[cfg(test)]
    pub(crate) fn killed(&self) -> bool {
        self.kill.is_cancelled()
    }

    /// Bytes arrived: an idle connection is now reading a request head.
    fn on_bytes(&self) {
        if matches!(*self.phase.borrow(), Phase::Idle { .. }) {
            self.phase.send_if_modified(|p| match p {
                Phase::Idle { .. } => {
                    *p = Phase::Head {
                        since: Instant::now(),
                    };
                    true
                }
                _ => false,
            });
        }
    }

    /// A request head is complete and its handler starts.
    pub(crate) fn begin(&self) {
        self.phase.send_modify(|p| {
            *p = match *p {
                Phase::Busy(n) => Phase::Busy(n + 1),
                _ => Phase::Busy(1),
            }
        });
    }

    /// A response was written whole (or abandoned).
    fn end(&self) {
        self.phase.send_modify(|p| {
            *p = match *p {
                Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
                _ => Phase::Idle {
                    since: Instant::now(),
                },
            }
        });
    }
}

/// Inserted into every request's extensions so the auth layer can mark its connection.
#[derive(Clone)]
pub(crate) struct ConnMark(Arc<ConnShared>);

/// The TCP peer of the connection a request came on, inserted into every request's
/// extensions (`client.rs` reads it: the client's address unless a trusted proxy names one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PeerAddr(pub(crate) SocketAddr);

/// Called by the auth layer when a request presented the valid token: from then on the
/// connection is the owner's and is displaced only when idle, after every pre-auth one.
pub(crate) fn mark_authenticated(req: &Request) {
    if let Some(ConnMark(conn)) = req.extensions().get::<ConnMark>() {
        conn.mark_authenticated();
    }
}

/// The deadlines and HTTP settings every connection gets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadlines {
    pub(crate) header: Duration,
    pub(crate) idle: Duration,
}

/// Serve one accepted connection until it ends, a deadline passes, it is displaced, or
/// `stop` fires (then a request in progress finishes and the connection closes after it).
pub(crate) async fn run(
    tcp: TcpStream,
    peer: SocketAddr,
    conn: Arc<ConnShared>,
    app: Router,
    deadlines: Deadlines,
    stop: CancellationToken,
) {
    let tower = TowerToHyperService::new(app);
    let mark = ConnMark(conn.clone());
    let svc_conn = conn.clone();
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        req.extensions_mut().insert(mark.clone());
        req.extensions_mut().insert(PeerAddr(peer));
        let guard = BusyGuard::begin(svc_conn.clone());
        let fut = tower.call(req);
        async move {
            let resp = fut.await?;
            Ok::<_, Infallible>(resp.map(|inner| GuardedBody {
                inner,
                _guard: guard,
            }))
        }
    });
    let io = TokioIo::new(Tracked {
        io: tcp,
        conn: conn.clone(),
    });
    let mut builder = http1::Builder::new();
    // hyper's own header timer is off: it would also cut idle keep-alive connections at
    // the header deadline. `watchdog` applies both deadlines instead.
    builder.keep_alive(true).header_read_timeout(None);
    let served = builder.serve_connection(io, service);
    tokio::pin!(served);
    let watchdog = watchdog(conn.phase.subscribe(), deadlines);
    tokio::pin!(watchdog);
    let mut draining = false;
    loop {
        tokio::select! {
            result = served.as_mut() => {
                if let Err(err) = result {
                    tracing::debug!(%err, "connection ended with an error");
                }
                break;
            }
            expired = &mut watchdog => {
                tracing::debug!(phase = expired, "closing a connection past its deadline");
                break;
            }
            _ = conn.kill.cancelled() => break,
            _ = stop.cancelled(), if !draining => {
                if !conn.is_busy() {
                    break;
                }
                // Let the request in progress finish, then close.
                draining = true;
                served.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Resolves when the connection has been in `Head` longer than the header deadline or in
/// `Idle` longer than the idle one; names the phase for the log.
async fn watchdog(mut phase: watch::Receiver<Phase>, deadlines: Deadlines) -> &'static str {
    loop {
        let now = *phase.borrow_and_update();
        let due = match now {
            Phase::Head { since } => Some((since + deadlines.header, "head")),
            Phase::Idle { since } => Some((since + deadlines.idle, "idle")),
            Phase::Busy(_) => None,
        };
        match due {
            Some((at, name)) => tokio::select! {
                _ = tokio::time::sleep_until(at) => return name,
                changed = phase.changed() => if changed.is_err() {
                    std::future::pending::<()>().await;
                },
            },
            None => {
                if phase.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        }
    }
}

/// Marks the connection busy for as long as one request (and its response body) lives.
struct BusyGuard(Arc<ConnShared>);

impl BusyGuard {
    fn begin(conn: Arc<ConnShared>) -> BusyGuard {
        conn.begin();
        BusyGuard(conn)
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// The router's response body, holding the request's [`BusyGuard`] until hyper has
/// written it whole (a streamed answer keeps the connection busy, never idle).
struct GuardedBody {
    inner: Body,
    _guard: BusyGuard,
}

impl http_body::Body for GuardedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The socket, reporting each read that brought bytes (an idle connection becomes a
/// connection reading a head, with the header deadline running).
struct Tracked {
    io: TcpStream,
    conn: Arc<ConnShared>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.conn.on_bytes();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn phases_and_their_deadlines() {
        let conn = ConnShared::new();
        let d = Deadlines {
            header: Duration::from_millis(50),
            idle: Duration::from_millis(80),
        };
        let within = |f| tokio::time::timeout(Duration::from_secs(10), f);
        // Fresh: the header deadline runs from accept.
        assert_eq!(
            within(watchdog(conn.phase.subscribe(), d)).await,
            Ok("head")
        );
        // Busy: no deadline at all (well past both), then idle: the idle one.
        conn.begin();
        let w = tokio::spawn(watchdog(conn.phase.subscribe(), d));
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(!w.is_finished(), "a busy connection has no deadline");
        conn.end();
        let idle = tokio::time::timeout(Duration::from_secs(10), w).await;
        assert_eq!(idle.unwrap().unwrap(), "idle");
        // A byte after idling starts the header deadline.
        conn.on_bytes();
        assert!(matches!(*conn.phase.borrow(), Phase::Head { .. }));
        assert_eq!(
            within(watchdog(conn.phase.subscribe(), d)).await,
            Ok("head")
        );
        // Two pipelined requests: busy until both end.
        conn.begin();
        conn.begin();
        conn.end();
        assert!(conn.is_busy());
        conn.end();
        assert!(!conn.is_busy());
    }
}
