//! Name resolution for the SSRF guard: the `Resolver` port (so tests can answer
//! "evil.test → 10.0.0.5" without DNS), the production `SystemResolver`, and `vet`, which
//! runs the guard's static checks, resolves once and judges every answer.
//!
//! Owns: turning a URL into the socket addresses a connection may be pinned to. Does not
//! own: the rules (`guard`, `ranges`) or the HTTP client (`fetch`).

use super::guard::{GuardError, SsrfGuard};
use std::net::{IpAddr, SocketAddr};
use url::Url;

/// Resolves a host name to IP addresses. Implementations return every address they would
/// let a client connect to; the guard refuses the host if any of them is refused.
#[async_trait::async_trait]
pub trait Resolver: Send + Sync {
    async fn lookup(&self, host: &str, port: u16) -> std::io::Result<Vec<IpAddr>>;
}

/// The system resolver (getaddrinfo on tokio's blocking pool).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

#[async_trait::async_trait]
impl Resolver for SystemResolver {
    async fn lookup(&self, host: &str, port: u16) -> std::io::Result<Vec<IpAddr>> {
        Ok(tokio::net::lookup_host((host, port))
            .await?
            .map(|sa| sa.ip())
            .collect())
    }
}

/// A URL cleared for one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vetted {
    /// The host name to pin, with the checked addresses; None for an IP literal (the
    /// client connects to exactly that address, which was checked).
    pub pin: Option<(String, Vec<SocketAddr>)>,
}

/// Check `url`, resolve its host once, and judge every address.
pub async fn vet(
    guard: &SsrfGuard,
    resolver: &dyn Resolver,
    url: &Url,
) -> Result<Vetted, GuardError> {
    let target = guard.check_url(url)?;
    if target.ip.is_some() {
        return Ok(Vetted { pin: None });
    }
    let answers = resolver
        .lookup(&target.host, target.port)
        .await
        .map_err(|e| GuardError::Resolve {
            host: target.host.chars().take(100).collect(),
            reason: e.to_string().chars().take(200).collect(),
        })?;
    let addrs = guard.check_resolved(&target, &answers)?;
    Ok(Vetted {
        pin: Some((target.host, addrs)),
    })
}
