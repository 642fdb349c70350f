//! Who is on the other end of a request: the client's address (what the failed-sign-in limit
//! counts against) and whether it reached Steward over HTTPS (what makes the session cookie
//! `Secure`). Steward serves plain HTTP; TLS is a reverse proxy's. With `http.trusted_proxy`
//! on, that proxy's word is taken: the client is the last hop of `X-Forwarded-For` (the one
//! the proxy itself appended; earlier hops are whatever the client sent) and the scheme is the
//! last value of `X-Forwarded-Proto`. Without it those headers are ignored, since any client
//! could send them: the client is the TCP peer, and the scheme is plain HTTP.
//!
//! Owns: reading those headers and the peer. Does not own: the peer itself (`listen`, which
//! puts it in each request) or what the address is used for.

use crate::AppState;
use crate::listen::PeerAddr;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName};
use std::convert::Infallible;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};

const FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");

/// The request's client as far as Steward can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Client {
    /// None when neither a peer nor a trusted hop is known (a router driven without the
    /// accept loop): all such requests then share one rate-limit bucket.
    pub(crate) ip: Option<IpAddr>,
    /// The request reached the proxy over HTTPS (only ever true behind a trusted proxy).
    pub(crate) https: bool,
}

impl Client {
    pub(crate) fn of(parts: &Parts, trusted_proxy: bool) -> Client {
        let peer = parts.extensions.get::<PeerAddr>().map(|p| p.0.ip());
        if !trusted_proxy {
            return Client {
                ip: peer,
                https: false,
            };
        }
        Client {
            ip: last_forwarded_for(&parts.headers).or(peer),
            https: last_value(&parts.headers, &FORWARDED_PROTO)
                .is_some_and(|p| p.eq_ignore_ascii_case("https")),
        }
    }

    /// The key a client's failed sign-ins are counted under: its address, an IPv6 one cut to
    /// its /64 (one host usually holds the whole /64, as the connection caps assume too), an
    /// IPv4-mapped one as IPv4.
    pub(crate) fn limit_key(&self) -> Option<IpAddr> {
        self.ip.map(|ip| match ip {
            IpAddr::V4(v4) => IpAddr::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let net = u128::from(v6) & !((1u128 << 64) - 1);
                    IpAddr::V6(Ipv6Addr::from(net))
                }
            },
        })
    }
}

impl FromRequestParts<AppState> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Client::of(parts, state.trusted_proxy))
    }
}

/// The last comma-separated value across every instance of the header, trimmed.
fn last_value<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Option<&'h str> {
    let value = headers.get_all(name).iter().next_back()?;
    let text = value.to_str().ok()?;
    let last = text.rsplit(',').next()?.trim();
    (!last.is_empty()).then_some(last)
}

/// The last hop of `X-Forwarded-For`: an address, possibly with a port (`1.2.3.4:5`,
/// `[::1]:5`); anything else is no address.
fn last_forwarded_for(headers: &HeaderMap) -> Option<IpAddr> {
    let hop = last_value(headers, &FORWARDED_FOR)?;
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn parts(headers: &[(&str, &str)], peer: Option<&str>) -> Parts {
        let mut req = Request::builder().uri("/api/v1/session");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let (mut parts, ()) = req.body(()).unwrap().into_parts();
        if let Some(p) = peer {
            parts.extensions.insert(PeerAddr(p.parse().unwrap()));
        }
        parts
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn without_a_trusted_proxy_the_headers_are_ignored() {
        let p = parts(
            &[
                ("x-forwarded-for", "9.9.9.9"),
                ("x-forwarded-proto", "https"),
            ],
            Some("10.0.0.1:5000"),
        );
        assert_eq!(
            Client::of(&p, false),
            Client {
                ip: ip("10.0.0.1"),
                https: false
            }
        );
    }

    #[test]
    fn a_trusted_proxy_names_the_client_by_its_last_hop() {
        let p = parts(
            &[
                ("x-forwarded-for", "6.6.6.6, 7.7.7.7"),
                ("x-forwarded-for", "1.2.3.4, 5.6.7.8"),
                ("x-forwarded-proto", "http, HTTPS"),
            ],
            Some("127.0.0.1:5000"),
        );
        assert_eq!(
            Client::of(&p, true),
            Client {
                ip: ip("5.6.7.8"),
                https: true
            }
        );
        let ported = parts(
            &[("x-forwarded-for", "[2001:db8::1]:443")],
            Some("127.0.0.1:1"),
        );
        assert_eq!(Client::of(&ported, true).ip, ip("2001:db8::1"));
        for junk in ["", "unknown", "1.2.3", "a, "] {
            let p = parts(&[("x-forwarded-for", junk)], Some("127.0.0.1:1"));
            assert_eq!(Client::of(&p, true).ip, ip("127.0.0.1"), "{junk:?}");
        }
        let plain = parts(&[("x-forwarded-proto", "http")], None);
        assert_eq!(
            Client::of(&plain, true),
            Client {
                ip: None,
                https: false
            }
        );
    }

    #[test]
    fn limit_keys_group_an_ipv6_64_and_unmap_ipv4() {
        let key = |s: &str| {
            Client {
                ip: ip(s),
                https: false,
            }
            .limit_key()
        };
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:bbbb::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:10.0.0.1"), ip("10.0.0.1"));
        assert_eq!(key("10.0.0.1"), ip("10.0.0.1"));
    }
}
