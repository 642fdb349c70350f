//! Pure tests of the SSRF guard: every spelling of refused hosts, the address tables, the
//! allow-list, and the all-addresses rule for resolved names.

use super::*;
use std::net::{Ipv4Addr, Ipv6Addr};

fn check(url: &str) -> Result<Target, GuardError> {
    SsrfGuard::default().check_url(&Url::parse(url).unwrap())
}

fn refused_addr(url: &str) -> IpAddr {
    match check(url) {
        Err(GuardError::BlockedAddress { addr, .. }) => addr,
        other => panic!("{url}: expected an address refusal, got {other:?}"),
    }
}

#[test]
fn loopback_in_every_spelling_is_refused() {
    let lo = IpAddr::V4(Ipv4Addr::LOCALHOST);
    for url in [
        "http://127.0.0.1/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://0x7f.1/",
        "http://0x7F000001/",
        "http://127.1/",
        "http://127.0.1/",
        "http://017700000001/",
        "http://127.0.0.1./",
        "HTTP://127.0.0.1:8080/x",
        "https://127.000.000.001/",
        "http://0x7f.0.0.1/",
        "http://%31%32%37.0.0.1/",
        "http://１２７.０.０.１/",
    ] {
        assert_eq!(refused_addr(url), lo, "{url}");
    }
    for url in ["http://127.5.6.7/", "http://0x7f.0xff.0xff.0xfe/"] {
        let addr = refused_addr(url);
        assert!(addr.is_loopback(), "{url}: {addr}");
    }
}

#[test]
fn ipv6_forms_of_refused_ipv4_are_refused() {
    for url in [
        "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[0:0:0:0:0:ffff:7f00:0001]/",
        "http://[::127.0.0.1]/",
        "http://[::ffff:0:127.0.0.1]/",
        "http://[64:ff9b::127.0.0.1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[::]/",
        "http://[fe80::1]/",
        "http://[fd00:ec2::254]/",
        "http://[fc00::1]/",
        "http://[ff02::1]/",
        "http://[fec0::1]/",
        "http://[2001:db8::1]/",
        "http://[2001::1]/",
        "http://[100::1]/",
        "http://[64:ff9b:1::1]/",
        "http://[3fff::1]/",
    ] {
        refused_addr(url);
    }
    let e = check("http://[::ffff:127.0.0.1]/").unwrap_err().to_string();
    assert!(
        e.contains("IPv4-mapped") && e.contains("127.0.0.1") && e.contains("loopback"),
        "{e}"
    );
}

#[test]
fn metadata_private_and_special_ipv4_ranges_are_refused() {
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://2852039166/",
        "http://0xa9.0xfe.0xa9.0xfe/",
        "http://0251.0376.0251.0376/",
        "http://169.254.1.1/",
        "http://100.100.100.200/",
        "http://100.64.0.1/",
        "http://10.0.0.5/",
        "http://172.16.0.1/",
        "http://172.31.255.255/",
        "http://192.168.1.1/",
        "http://0.0.0.0/",
        "http://0/",
        "http://0.1.2.3/",
        "http://255.255.255.255/",
        "http://224.0.0.1/",
        "http://239.255.255.250/",
        "http://240.0.0.1/",
        "http://192.0.0.192/",
        "http://192.0.2.1/",
        "http://198.51.100.7/",
        "http://203.0.113.9/",
        "http://198.18.0.1/",
        "http://198.19.255.255/",
        "http://192.88.99.1/",
    ] {
        refused_addr(url);
    }
}

#[test]
fn public_addresses_pass() {
    for url in [
        "http://93.184.215.14/",
        "https://8.8.8.8/",
        "http://172.32.0.1/",
        "http://100.128.0.1/",
        "http://[2606:4700::1111]/",
        "http://[::ffff:8.8.8.8]/",
        "http://[64:ff9b::808:808]/",
        "http://[2002:808:808::1]/",
        "http://example.com/",
        "https://sub.example.co.uk:8443/a?b=c",
    ] {
        let t = check(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert!(!t.allow_listed);
    }
}

#[test]
fn refused_names_in_any_spelling() {
    for url in [
        "http://localhost/",
        "http://LOCALHOST/",
        "http://localhost./",
        "http://localhost:6379/",
        "http://ｌｏｃａｌｈｏｓｔ/",
        "http://foo.localhost/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://METADATA.GOOGLE.INTERNAL./",
        "http://metadata/",
        "http://metadata.goog/",
        "http://instance-data/",
        "http://printer.local/",
        "http://router.home.arpa/",
        "http://db.svc.cluster.local/",
    ] {
        assert!(
            matches!(check(url), Err(GuardError::BlockedName { .. })),
            "{url}: {:?}",
            check(url)
        );
    }
}

#[test]
fn schemes_and_credentials() {
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/",
        "gopher://127.0.0.1:6379/_x",
        "data:text/html,hi",
        "javascript:alert(1)",
    ] {
        assert!(
            matches!(check(url), Err(GuardError::Scheme(_))),
            "{url}: {:?}",
            check(url)
        );
    }
    for url in [
        "http://user@example.com/",
        "http://user:pw@example.com/",
        "http://:pw@example.com/",
    ] {
        assert_eq!(check(url), Err(GuardError::Credentials), "{url}");
    }
}

#[test]
fn allow_list_matches_exact_host_and_port() {
    let allow =
        AllowList::parse("nas.local, 127.0.0.1:8123 [::1]:9000 0x0a.1, Wiki.Home.Arpa.").unwrap();
    let guard = SsrfGuard::new(allow);
    let ok = |u: &str| guard.check_url(&Url::parse(u).unwrap());
    assert!(ok("http://nas.local:5000/").unwrap().allow_listed);
    assert!(ok("http://NAS.local./").unwrap().allow_listed);
    assert!(ok("http://127.0.0.1:8123/").unwrap().allow_listed);
    assert!(ok("http://2130706433:8123/").unwrap().allow_listed);
    assert!(ok("http://[::1]:9000/").unwrap().allow_listed);
    assert!(
        ok("http://10.0.0.1/").unwrap().allow_listed,
        "0x0a.1 = 10.0.0.1"
    );
    assert!(ok("http://wiki.home.arpa/").unwrap().allow_listed);
    // Another port, a sub-domain, another loopback address: not allowed.
    assert!(ok("http://127.0.0.1:8124/").is_err());
    assert!(ok("http://127.0.0.2:8123/").is_err());
    assert!(ok("http://x.nas.local/").is_err());
    assert!(ok("http://[::1]:9001/").is_err());
    // An explicit default port is still a port restriction.
    let guard = SsrfGuard::new(AllowList::parse("10.1.1.1:80").unwrap());
    assert!(
        guard
            .check_url(&Url::parse("http://10.1.1.1/").unwrap())
            .unwrap()
            .allow_listed
    );
    assert!(
        guard
            .check_url(&Url::parse("https://10.1.1.1/").unwrap())
            .is_err()
    );
    for bad in [
        "http://x",
        "a/b",
        "user@h",
        "h:notaport",
        "[::1",
        "h?q",
        "h#f",
    ] {
        assert!(AllowList::parse(bad).is_err(), "{bad}");
    }
    assert!(AllowList::parse("").unwrap().is_empty());
}

#[test]
fn allow_list_still_refuses_bad_schemes_and_credentials() {
    let guard = SsrfGuard::new(AllowList::parse("127.0.0.1").unwrap());
    let c = |u: &str| guard.check_url(&Url::parse(u).unwrap());
    assert!(matches!(c("ftp://127.0.0.1/"), Err(GuardError::Scheme(_))));
    assert_eq!(c("http://u:p@127.0.0.1/"), Err(GuardError::Credentials));
}

#[test]
fn any_refused_resolved_address_refuses_the_name() {
    let guard = SsrfGuard::default();
    let target = check("https://evil.test/").unwrap();
    let public = IpAddr::V4(Ipv4Addr::new(93, 184, 215, 14));
    let private = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 5));
    let pinned = guard.check_resolved(&target, &[public]).unwrap();
    assert_eq!(pinned, vec![SocketAddr::new(public, 443)]);
    let e = guard
        .check_resolved(&target, &[public, private])
        .unwrap_err();
    assert!(matches!(e, GuardError::BlockedAddress { addr, .. } if addr == private));
    let e = guard
        .check_resolved(&target, &[private, public])
        .unwrap_err();
    assert!(
        e.to_string().contains("10.0.0.5") && e.to_string().contains("private"),
        "{e}"
    );
    let mapped = IpAddr::V6(Ipv4Addr::new(127, 0, 0, 1).to_ipv6_mapped());
    assert!(guard.check_resolved(&target, &[mapped]).is_err());
    assert!(matches!(
        guard.check_resolved(&target, &[]),
        Err(GuardError::Resolve { .. })
    ));
    // A mapped public address is pinned as plain IPv4: the socket goes where we looked.
    let mapped_public = IpAddr::V6(Ipv4Addr::new(8, 8, 8, 8).to_ipv6_mapped());
    assert_eq!(
        guard.check_resolved(&target, &[mapped_public]).unwrap(),
        vec![SocketAddr::new(IpAddr::V4(Ipv4Addr::new(8, 8, 8, 8)), 443)]
    );
}

#[test]
fn every_ipv4_in_a_refused_block_is_refused_and_neighbours_pass() {
    // Exhaustive over the /8s, sampled inside: the table, not a few examples, is tested.
    let refused_first_octets = [0u8, 10, 127];
    for a in 0..=255u8 {
        let ip = IpAddr::V4(Ipv4Addr::new(a, 1, 2, 3));
        let expect = refused_first_octets.contains(&a) || a >= 224;
        assert_eq!(ranges::refusal(ip).is_some(), expect, "{ip}");
    }
    let edges = [
        ("100.63.255.255", false),
        ("100.64.0.0", true),
        ("100.127.255.255", true),
        ("100.128.0.0", false),
        ("172.15.255.255", false),
        ("172.16.0.0", true),
        ("172.31.255.255", true),
        ("172.32.0.0", false),
        ("169.253.255.255", false),
        ("169.254.0.0", true),
        ("169.255.0.0", false),
        ("198.17.255.255", false),
        ("198.18.0.0", true),
        ("198.20.0.0", false),
        ("223.255.255.255", false),
    ];
    for (ip, refused) in edges {
        let ip: IpAddr = ip.parse().unwrap();
        assert_eq!(ranges::refusal(ip).is_some(), refused, "{ip}");
    }
}

#[test]
fn ipv6_outside_global_unicast_is_refused() {
    for seg0 in [
        0u16, 0x100, 0x1fff, 0x4000, 0x8000, 0xe000, 0xfc00, 0xfe80, 0xff00,
    ] {
        let ip = IpAddr::V6(Ipv6Addr::new(seg0, 1, 2, 3, 4, 5, 6, 7));
        assert!(ranges::refusal(ip).is_some(), "{ip}");
    }
    for seg0 in [0x2400u16, 0x2a00, 0x2606, 0x3ffe] {
        let ip = IpAddr::V6(Ipv6Addr::new(seg0, 1, 2, 3, 4, 5, 6, 7));
        assert!(ranges::refusal(ip).is_none(), "{ip}");
    }
}

#[test]
fn long_hosts_are_bounded_in_messages() {
    let host = format!(
        "{}.local",
        "a".repeat(60)
            .repeat(3)
            .chars()
            .collect::<Vec<_>>()
            .chunks(60)
            .map(|c| c.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join(".")
    );
    let e = check(&format!("http://{host}/")).unwrap_err().to_string();
    assert!(e.len() < 300, "{e}");
}
