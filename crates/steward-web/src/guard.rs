//! The SSRF guard: may this URL be fetched, and at which socket addresses?
//!
//! Owns: the URL checks (scheme, credentials, refused host names), the owner's allow-list,
//! and the decision over resolved addresses. Does not own: the address tables (`ranges`),
//! how names are resolved (`resolve::Resolver`), or the HTTP client that is then pinned to
//! the addresses returned here (`fetch`).
//!
//! Every spelling of a host is judged after the WHATWG URL parser has normalised it: the
//! `url` crate turns `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1` and `127.0.0.1.` into
//! the IPv4 address 127.0.0.1, lowercases names, applies IDNA (full-width letters become
//! ASCII) and canonicalises IPv6. So the checks below only ever see a `url::Host`, never
//! raw text, and cannot disagree with what the HTTP client connects to.
//!
//! A name is then resolved (by the caller, through `Resolver`) and refused if ANY of its
//! addresses is refused: connecting "to the public one" is not a defence, because the
//! client would be free to try the others. The caller pins the connection to exactly the
//! addresses returned by `check_resolved`, so a second DNS answer cannot swap them.

use super::ranges;
use std::net::{IpAddr, SocketAddr};
use url::{Host, Url};

/// Longest host text quoted in a message.
const MAX_SHOWN_HOST: usize = 100;

/// Names refused outright (cloud metadata services and loopback names).
const REFUSED_NAMES: &[&str] = &[
    "localhost",
    "localhost.localdomain",
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
    "metadata.packet.net",
    "metadata.platformequinix.com",
];

/// Name suffixes refused outright: loopback, private-use and link-local name spaces.
const REFUSED_SUFFIXES: &[&str] = &[".localhost", ".internal", ".local", ".home.arpa"];

/// Why a URL or address is refused. Messages are shown to the model: they say what was
/// refused and how the owner could allow it, and never quote more than a bounded host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    #[error("only http:// and https:// URLs can be fetched, not `{0}:`")]
    Scheme(String),
    #[error("URLs carrying a user name or password are refused")]
    Credentials,
    #[error("the URL has no host")]
    NoHost,
    #[error("`{host}` is refused: {why} (the owner can allow it with web.allow_hosts)")]
    BlockedName { host: String, why: &'static str },
    #[error(
        "`{host}` is refused: address {addr} is {why} (the owner can allow it with web.allow_hosts)"
    )]
    BlockedAddress {
        host: String,
        addr: IpAddr,
        why: String,
    },
    #[error("cannot resolve `{host}`: {reason}")]
    Resolve { host: String, reason: String },
    #[error(
        "invalid web.allow_hosts entry `{0}`: use a host name or IP address, optionally with :port"
    )]
    BadAllowEntry(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum AllowHost {
    Name(String),
    Ip(IpAddr),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowEntry {
    host: AllowHost,
    /// None = any port.
    port: Option<u16>,
}

/// Hosts the owner lets `fetch_url` reach although the address checks would refuse them
/// (a NAS, a local wiki). Exact matches only: `nas.local` does not allow `x.nas.local`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    entries: Vec<AllowEntry>,
}

impl AllowList {
    /// Parse a comma- or space-separated list: `nas.local, 192.168.1.10:5000, [fd00::1]`.
    /// Entries are normalised like URL hosts, so `0x7f.1` means 127.0.0.1.
    pub fn parse(list: &str) -> Result<AllowList, GuardError> {
        let entries = list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|e| !e.is_empty())
            .map(parse_entry)
            .collect::<Result<_, _>>()?;
        Ok(AllowList { entries })
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn allows(&self, host: &Host<&str>, port: u16) -> bool {
        self.entries.iter().any(|e| {
            let host_matches = match (&e.host, host) {
                (AllowHost::Name(n), Host::Domain(d)) => *n == normalise_name(d),
                (AllowHost::Ip(a), Host::Ipv4(b)) => *a == IpAddr::V4(*b),
                (AllowHost::Ip(a), Host::Ipv6(b)) => {
                    a.to_canonical() == IpAddr::V6(*b).to_canonical()
                }
                _ => false,
            };
            host_matches && e.port.is_none_or(|p| p == port)
        })
    }
}

fn parse_entry(raw: &str) -> Result<AllowEntry, GuardError> {
    let bad = || GuardError::BadAllowEntry(shown(raw));
    if let Ok(ip) = raw.parse::<IpAddr>() {
        return Ok(AllowEntry {
            host: AllowHost::Ip(ip.to_canonical()),
            port: None,
        });
    }
    let url = Url::parse(&format!("http://{raw}/")).map_err(|_| bad())?;
    if url.path() != "/"
        || url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return Err(bad());
    }
    let host = match url.host() {
        Some(Host::Domain(d)) if !normalise_name(d).is_empty() => {
            AllowHost::Name(normalise_name(d))
        }
        Some(Host::Ipv4(ip)) => AllowHost::Ip(IpAddr::V4(ip)),
        Some(Host::Ipv6(ip)) => AllowHost::Ip(IpAddr::V6(ip).to_canonical()),
        _ => return Err(bad()),
    };
    // `Url` forgets an explicit default port (":80"), so look at the text for one.
    let after_host = raw.rsplit_once(']').map_or(raw, |(_, rest)| rest);
    let port = if after_host.contains(':') {
        Some(url.port().unwrap_or(80))
    } else {
        None
    };
    Ok(AllowEntry { host, port })
}

/// Lowercase (the parser already did) and without trailing dots: `LOCALHOST.` = `localhost`.
fn normalise_name(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

fn shown(host: &str) -> String {
    if host.chars().count() <= MAX_SHOWN_HOST {
        return host.to_owned();
    }
    let mut cut: String = host.chars().take(MAX_SHOWN_HOST - 1).collect();
    cut.push('…');
    cut
}

/// A URL that passed the static checks; names still need resolving.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The host as the URL spells it after normalisation (what the HTTP client looks up).
    pub host: String,
    /// Set when the host is an IP literal: nothing to resolve.
    pub ip: Option<IpAddr>,
    pub port: u16,
    /// The owner allow-listed this host (and port): address checks are skipped.
    pub allow_listed: bool,
}

/// The SSRF guard: stateless apart from the owner's allow-list.
#[derive(Debug, Clone, Default)]
pub struct SsrfGuard {
    allow: AllowList,
}

impl SsrfGuard {
    pub fn new(allow: AllowList) -> SsrfGuard {
        SsrfGuard { allow }
    }

    /// Scheme, credentials, host name and (for IP literals) address checks.
    pub fn check_url(&self, url: &Url) -> Result<Target, GuardError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(GuardError::Scheme(url.scheme().chars().take(20).collect()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(GuardError::Credentials);
        }
        let host = url.host().ok_or(GuardError::NoHost)?;
        let port = url.port_or_known_default().ok_or(GuardError::NoHost)?;
        let host_text = url.host_str().unwrap_or_default().to_owned();
        let allow_listed = self.allow.allows(&host, port);
        let ip = match host {
            Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
            Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
            Host::Domain(_) => None,
        };
        if !allow_listed {
            match ip {
                Some(ip) => refuse_addr(&host_text, ip)?,
                None => refuse_name(&host_text)?,
            }
        }
        Ok(Target {
            host: host_text,
            ip,
            port,
            allow_listed,
        })
    }

    /// Judge every resolved address of `target`; the socket addresses to pin the connection
    /// to, or the first refusal. An empty answer is an error, never "nothing to check".
    pub fn check_resolved(
        &self,
        target: &Target,
        addrs: &[IpAddr],
    ) -> Result<Vec<SocketAddr>, GuardError> {
        if addrs.is_empty() {
            return Err(GuardError::Resolve {
                host: shown(&target.host),
                reason: "no addresses".to_owned(),
            });
        }
        if !target.allow_listed {
            for ip in addrs {
                refuse_addr(&target.host, *ip)?;
            }
        }
        let mut out: Vec<SocketAddr> = addrs
            .iter()
            .map(|ip| SocketAddr::new(ranges::canonical(*ip), target.port))
            .collect();
        out.dedup();
        Ok(out)
    }
}

fn refuse_addr(host: &str, ip: IpAddr) -> Result<(), GuardError> {
    match ranges::refusal(ip) {
        Some(why) => Err(GuardError::BlockedAddress {
            host: shown(host),
            addr: ip,
            why,
        }),
        None => Ok(()),
    }
}

fn refuse_name(host: &str) -> Result<(), GuardError> {
    let name = normalise_name(host);
    let why = if name.is_empty() {
        Some("an empty host name")
    } else if REFUSED_NAMES.contains(&name.as_str()) {
        Some("a loopback or cloud-metadata host name")
    } else if REFUSED_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        Some("a local or internal-only host name")
    } else {
        None
    };
    match why {
        Some(why) => Err(GuardError::BlockedName {
            host: shown(host),
            why,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
