//! Raw HTTP/1 over loopback sockets, for tests about connections themselves (half-open
//! requests, deadlines, caps) where a client library would hide what the socket does.
//! Distinct 127.0.0.x source addresses stand for distinct client hosts.
//!
//! Owns: test plumbing only (connect from an address, send a partial head, read one
//! response, tell a closed socket from an open one). Does not own any assertion.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The start of a request head that never ends.
pub const PARTIAL_HEAD: &[u8] = b"GET /health HTTP/1.1\r\nHost: steward\r\n";

/// How long [`read_response`] waits for each read.
const READ_LIMIT: Duration = Duration::from_secs(10);

/// Connect to `to` from 127.0.0.`last_octet`.
pub async fn connect_from(last_octet: u8, to: SocketAddr) -> io::Result<TcpStream> {
    let sock = TcpSocket::new_v4()?;
    sock.bind(SocketAddr::from(([127, 0, 0, last_octet], 0)))?;
    sock.connect(to).await
}

/// Connected, a request head begun and never finished.
pub async fn half_open(last_octet: u8, to: SocketAddr) -> io::Result<TcpStream> {
    let mut s = connect_from(last_octet, to).await?;
    s.write_all(PARTIAL_HEAD).await?;
    Ok(s)
}

/// Whether the peer closed `s` within `limit`; an error if it sent bytes instead.
pub async fn closed_within(s: &mut TcpStream, limit: Duration) -> io::Result<bool> {
    let mut buf = [0u8; 256];
    match tokio::time::timeout(limit, s.read(&mut buf)).await {
        Err(_) => Ok(false),
        Ok(Ok(0)) | Ok(Err(_)) => Ok(true),
        Ok(Ok(n)) => Err(io::Error::other(format!(
            "expected a close, got bytes: {:?}",
            String::from_utf8_lossy(&buf[..n])
        ))),
    }
}

/// Read one response with a `content-length` body (each read within 10 s); returns its
/// status line, lower-cased.
pub async fn read_response(s: &mut TcpStream) -> io::Result<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(Ok(0), |v| v.trim().parse::<usize>())
                .map_err(io::Error::other)?;
            if buf.len() >= end + 4 + len {
                return Ok(head.lines().next().unwrap_or_default().to_owned());
            }
        }
        let n = tokio::time::timeout(READ_LIMIT, s.read(&mut chunk))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no response within 10 s"))??;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("closed before a whole response: {buf:?}"),
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Finish a half-open `/health` request and read its answer's status line.
pub async fn finish_health(s: &mut TcpStream) -> io::Result<String> {
    s.write_all(b"\r\n").await?;
    read_response(s).await
}
