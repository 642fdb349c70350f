//! Which IP addresses a fetch may connect to: `refusal(ip)` names the special-purpose range
//! an address falls in, or None for an ordinary public address.
//!
//! Owns: the address tables (IANA IPv4 and IPv6 special-purpose registries, plus the IPv6
//! forms that carry an IPv4 address). Does not own: URL parsing, host names, the owner's
//! allow-list or name resolution (see `guard`).
//!
//! IPv6 is judged by allow-list, not deny-list: only global unicast (2000::/3) can pass, so
//! a range we forgot to list is refused rather than reached. IPv6 forms that embed an IPv4
//! address (IPv4-mapped, IPv4-compatible, SIIT, NAT64 64:ff9b::/96, 6to4 2002::/16) are
//! judged by the IPv4 address they carry, because that is where the packets end up.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` must not be contacted, or None when it is an ordinary public address.
pub fn refusal(ip: IpAddr) -> Option<String> {
    match ip {
        IpAddr::V4(v4) => v4_refusal(v4).map(str::to_owned),
        IpAddr::V6(v6) => v6_refusal(v6),
    }
}

/// The IPv4 address an IPv6 address stands for, if it is one of the embedding forms.
pub fn embedded_v4(v6: Ipv6Addr) -> Option<(Ipv4Addr, &'static str)> {
    let s = v6.segments();
    let o = v6.octets();
    let last32 = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    if s[..5] == [0, 0, 0, 0, 0] && s[5] == 0xffff {
        return Some((last32, "IPv4-mapped IPv6"));
    }
    if s[..4] == [0, 0, 0, 0] && s[4] == 0xffff && s[5] == 0 {
        return Some((last32, "SIIT-translated IPv6"));
    }
    // ::a.b.c.d (deprecated IPv4-compatible); :: and ::1 are handled as themselves.
    if s[..6] == [0; 6] && u32::from(last32) > 1 {
        return Some((last32, "IPv4-compatible IPv6"));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some((last32, "NAT64 IPv6"));
    }
    if s[0] == 0x2002 {
        return Some((Ipv4Addr::new(o[2], o[3], o[4], o[5]), "6to4 IPv6"));
    }
    None
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], len: u32) -> bool {
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

/// IANA IPv4 special-purpose ranges a personal assistant has no business fetching from.
const V4_REFUSED: &[([u8; 4], u32, &str)] = &[
    ([255, 255, 255, 255], 32, "broadcast"),
    (
        [0, 0, 0, 0],
        8,
        "unspecified / \"this network\" (0.0.0.0/8)",
    ),
    ([10, 0, 0, 0], 8, "private (10.0.0.0/8)"),
    (
        [100, 64, 0, 0],
        10,
        "shared address space / CGNAT (100.64.0.0/10)",
    ),
    ([127, 0, 0, 0], 8, "loopback (127.0.0.0/8)"),
    (
        [169, 254, 0, 0],
        16,
        "link-local / cloud metadata (169.254.0.0/16)",
    ),
    ([172, 16, 0, 0], 12, "private (172.16.0.0/12)"),
    (
        [192, 0, 0, 0],
        24,
        "IETF protocol assignments (192.0.0.0/24)",
    ),
    ([192, 0, 2, 0], 24, "documentation (192.0.2.0/24)"),
    ([192, 88, 99, 0], 24, "6to4 relay anycast (192.88.99.0/24)"),
    ([192, 168, 0, 0], 16, "private (192.168.0.0/16)"),
    ([198, 18, 0, 0], 15, "benchmarking (198.18.0.0/15)"),
    ([198, 51, 100, 0], 24, "documentation (198.51.100.0/24)"),
    ([203, 0, 113, 0], 24, "documentation (203.0.113.0/24)"),
    ([224, 0, 0, 0], 4, "multicast (224.0.0.0/4)"),
    ([240, 0, 0, 0], 4, "reserved (240.0.0.0/4)"),
];

fn v4_refusal(ip: Ipv4Addr) -> Option<&'static str> {
    V4_REFUSED
        .iter()
        .find(|(net, len, _)| in_v4(ip, *net, *len))
        .map(|(_, _, why)| *why)
}

fn in_v6(ip: Ipv6Addr, net: [u16; 8], len: u32) -> bool {
    let mask = if len == 0 {
        0
    } else {
        u128::MAX << (128 - len)
    };
    u128::from(ip) & mask == u128::from(Ipv6Addr::from(net)) & mask
}

/// Special ranges inside 2000::/3 (global unicast) that are still refused.
const V6_GLOBAL_REFUSED: &[([u16; 8], u32, &str)] = &[
    (
        [0x2001, 0, 0, 0, 0, 0, 0, 0],
        32,
        "Teredo tunnel (2001::/32)",
    ),
    (
        [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0],
        32,
        "documentation (2001:db8::/32)",
    ),
    (
        [0x2001, 0, 0, 0, 0, 0, 0, 0],
        23,
        "IETF protocol assignments (2001::/23)",
    ),
    (
        [0x3fff, 0, 0, 0, 0, 0, 0, 0],
        20,
        "documentation (3fff::/20)",
    ),
];

/// Named ranges outside 2000::/3, for clearer messages (all of them are refused anyway).
const V6_NAMED: &[([u16; 8], u32, &str)] = &[
    ([0, 0, 0, 0, 0, 0, 0, 0], 128, "unspecified (::)"),
    ([0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback (::1)"),
    (
        [0x64, 0xff9b, 1, 0, 0, 0, 0, 0],
        48,
        "local-use NAT64 (64:ff9b:1::/48)",
    ),
    ([0x100, 0, 0, 0, 0, 0, 0, 0], 64, "discard-only (100::/64)"),
    ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, "unique-local (fc00::/7)"),
    ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, "link-local (fe80::/10)"),
    ([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, "site-local (fec0::/10)"),
    ([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, "multicast (ff00::/8)"),
];

fn v6_refusal(ip: Ipv6Addr) -> Option<String> {
    if let Some((v4, form)) = embedded_v4(ip) {
        if let Some(why) = v4_refusal(v4) {
            return Some(format!("{form} carrying {v4}: {why}"));
        }
        // Deprecated forms with no legitimate use on the web: refused whatever they carry.
        if matches!(form, "IPv4-compatible IPv6" | "SIIT-translated IPv6") {
            return Some(format!("deprecated {form} form"));
        }
        return None;
    }
    let named = |table: &[([u16; 8], u32, &'static str)]| {
        table
            .iter()
            .find(|(net, len, _)| in_v6(ip, *net, *len))
            .map(|(_, _, why)| (*why).to_owned())
    };
    if !in_v6(ip, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3) {
        return Some(named(V6_NAMED).unwrap_or_else(|| "not global unicast IPv6".to_owned()));
    }
    named(V6_GLOBAL_REFUSED)
}

/// The address to actually connect to: IPv4-mapped IPv6 becomes plain IPv4, so the socket
/// goes where the check looked.
pub fn canonical(ip: IpAddr) -> IpAddr {
    ip.to_canonical()
}
