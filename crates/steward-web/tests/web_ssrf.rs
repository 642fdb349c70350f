//! The SSRF battery, end to end through the registry: loopback and metadata addresses in
//! every spelling, names that resolve to refused addresses, redirects from an allowed server
//! to a refused one. A counting listener stands in for the target and proves it was never
//! contacted. Cases whose failure would send packets off this machine (private or public
//! addresses) are checked at the guard (`vet`), which never opens a connection.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::web_support;

use steward_web::{AllowList, GuardError, SsrfGuard, vet};
use url::Url;
use web_support::{FixedResolver, Reply, Server, cfg, fetch, registry};

fn assert_refused(out: &steward_tools::ToolOutcome, what: &str) {
    assert!(
        !out.ok,
        "{what}: fetched instead of refused: {}",
        out.output
    );
    assert!(
        out.output.contains("refused"),
        "{what}: unclear error: {}",
        out.output
    );
}

#[tokio::test]
async fn loopback_and_metadata_in_every_spelling_never_reach_the_target() {
    let target = Server::fixed(Reply::html("<title>secret</title>")).await;
    let p = target.port();
    let resolver = FixedResolver::new(&[]);
    let r = registry(cfg(""), resolver.clone());
    let urls = [
        format!("http://127.0.0.1:{p}/"),
        format!("http://2130706433:{p}/"),
        format!("http://0177.0.0.1:{p}/"),
        format!("http://0x7f.1:{p}/"),
        format!("http://0x7f000001:{p}/"),
        format!("http://127.1:{p}/"),
        format!("http://127.0.0.1.:{p}/"),
        format!("http://[::ffff:127.0.0.1]:{p}/"),
        format!("http://[::ffff:7f00:1]:{p}/"),
        format!("http://[::1]:{p}/"),
        format!("http://localhost:{p}/"),
        format!("http://LocalHost.:{p}/"),
        format!("http://app.localhost:{p}/"),
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/".to_owned(),
        "http://2852039166/latest/meta-data/".to_owned(),
        "http://0xa9fea9fe/".to_owned(),
        "http://[::ffff:169.254.169.254]/".to_owned(),
        "http://[fd00:ec2::254]/latest/meta-data/".to_owned(),
        "http://metadata.google.internal/computeMetadata/v1/".to_owned(),
        "http://100.100.100.200/latest/meta-data/".to_owned(),
        format!("http://0.0.0.0:{p}/"),
        format!("http://0:{p}/"),
    ];
    for url in &urls {
        let out = fetch(&r, url).await;
        assert_refused(&out, url);
    }
    assert_eq!(target.accepted(), 0, "the target was contacted");
    // Names refused by name, and IP literals, are never even resolved.
    assert_eq!(resolver.lookups(), 0);
}

#[tokio::test]
async fn other_schemes_and_credentials_are_refused_with_clear_errors() {
    let target = Server::fixed(Reply::html("x")).await;
    let r = registry(cfg("127.0.0.1"), FixedResolver::new(&[]));
    for (url, expect) in [
        ("file:///etc/passwd", "only http:// and https://"),
        ("gopher://127.0.0.1:70/", "only http:// and https://"),
        ("ftp://example.com/x", "only http:// and https://"),
        (
            &format!("http://user:pw@127.0.0.1:{}/", target.port()),
            "user name or password",
        ),
        ("not a url", "not a valid absolute URL"),
        ("/relative/path", "not a valid absolute URL"),
    ] {
        let out = fetch(&r, url).await;
        assert!(
            !out.ok && out.output.contains(expect),
            "{url}: {}",
            out.output
        );
    }
    assert_eq!(target.accepted(), 0);
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_before_connecting() {
    let target = Server::fixed(Reply::html("<title>secret</title>")).await;
    let resolver = FixedResolver::new(&[
        ("evil.test", &["127.0.0.1"]),
        ("mapped.test", &["::ffff:127.0.0.1"]),
        ("twofaced.test", &["127.0.0.1", "::1"]),
    ]);
    let r = registry(cfg(""), resolver.clone());
    for host in ["evil.test", "mapped.test", "twofaced.test"] {
        let out = fetch(&r, &format!("http://{host}:{}/", target.port())).await;
        assert_refused(&out, host);
        assert!(
            out.output.contains(host) && out.output.contains("loopback"),
            "{}",
            out.output
        );
    }
    assert_eq!(resolver.lookups(), 3);
    assert_eq!(target.accepted(), 0);
    let out = fetch(&r, "http://nxdomain.test/").await;
    assert!(
        !out.ok && out.output.contains("cannot resolve `nxdomain.test`"),
        "{}",
        out.output
    );
}

#[tokio::test]
async fn private_and_mixed_dns_answers_are_refused_by_the_guard() {
    // Checked at `vet`, which decides before any socket exists: these addresses must not
    // be contacted from a test even if the guard were broken.
    let resolver = FixedResolver::new(&[
        ("evil.test", &["10.0.0.5"]),
        ("mixed.test", &["93.184.215.14", "192.168.1.20"]),
        ("mixed6.test", &["2606:4700::1111", "fd12::1"]),
        ("cgnat.test", &["100.64.3.4"]),
        ("meta.test", &["169.254.169.254"]),
        ("nat64.test", &["64:ff9b::a00:5"]),
        ("public.test", &["93.184.215.14", "2606:4700::1111"]),
    ]);
    let guard = SsrfGuard::default();
    for (host, bad) in [
        ("evil.test", "10.0.0.5"),
        ("mixed.test", "192.168.1.20"),
        ("mixed6.test", "fd12::1"),
        ("cgnat.test", "100.64.3.4"),
        ("meta.test", "169.254.169.254"),
        ("nat64.test", "64:ff9b::a00:5"),
    ] {
        let url = Url::parse(&format!("https://{host}/")).unwrap();
        match vet(&guard, resolver.as_ref(), &url).await {
            Err(GuardError::BlockedAddress { addr, .. }) => assert_eq!(addr.to_string(), bad),
            other => panic!("{host}: {other:?}"),
        }
    }
    let url = Url::parse("https://public.test/").unwrap();
    let vetted = vet(&guard, resolver.as_ref(), &url).await.unwrap();
    let (host, addrs) = vetted.pin.unwrap();
    assert_eq!(host, "public.test");
    assert_eq!(addrs.len(), 2);
    assert!(addrs.iter().all(|a| a.port() == 443));
}

#[tokio::test]
async fn redirects_from_an_allowed_server_to_refused_places_never_reach_them() {
    let target = Server::fixed(Reply::html("<title>secret</title>")).await;
    let tp = target.port();
    let hops: Vec<String> = vec![
        format!("http://127.0.0.1:{tp}/admin"),
        format!("http://2130706433:{tp}/"),
        format!("http://[::ffff:127.0.0.1]:{tp}/"),
        format!("http://localhost:{tp}/"),
        format!("http://evil.test:{tp}/"),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "file:///etc/passwd".to_owned(),
        "http://user:pw@example.com/".to_owned(),
    ];
    let table = hops.clone();
    let allowed = Server::start(move |path| {
        let i: usize = path.trim_start_matches("/r").parse().unwrap_or(0);
        Reply::redirect(302, &table[i])
    })
    .await;
    let resolver = FixedResolver::new(&[("evil.test", &["127.0.0.1"])]);
    // Only the allowed server's own port: 127.0.0.1 on another port stays refused.
    let r = registry(cfg(&format!("127.0.0.1:{}", allowed.port())), resolver);
    for (i, hop) in hops.iter().enumerate() {
        let out = fetch(&r, &allowed.url(&format!("/r{i}"))).await;
        assert!(!out.ok, "{hop}: {}", out.output);
        assert!(
            out.output.contains("a redirect from") && out.output.contains("was refused"),
            "{hop}: {}",
            out.output
        );
    }
    assert_eq!(allowed.accepted(), hops.len());
    assert_eq!(target.accepted(), 0, "a redirect reached the target");
}

#[tokio::test]
async fn the_connection_is_pinned_to_the_checked_address() {
    // `pinned.test` exists only in the injected resolver: the fetch can succeed only if
    // the client connects to the address the guard checked instead of asking DNS again.
    let page = Server::fixed(Reply::html("<title>NAS</title><p>disk ok</p>")).await;
    let resolver = FixedResolver::new(&[("pinned.test", &["127.0.0.1"])]);
    let r = registry(cfg("pinned.test"), resolver.clone());
    let out = fetch(&r, &format!("http://pinned.test:{}/status", page.port())).await;
    assert!(out.ok, "{}", out.output);
    assert!(out.output.contains("Title: NAS") && out.output.contains("disk ok"));
    assert_eq!(resolver.lookups(), 1, "resolved once, then pinned");
    let head = page.requests.lock().unwrap()[0].to_ascii_lowercase();
    assert!(
        head.contains(&format!("host: pinned.test:{}", page.port())),
        "{head}"
    );
}

#[tokio::test]
async fn allow_listed_hosts_work_and_nothing_else_on_loopback_does() {
    let page = Server::fixed(Reply::html("<p>hello</p>")).await;
    let other = Server::fixed(Reply::html("<p>other</p>")).await;
    let r = registry(
        cfg(&format!("127.0.0.1:{}", page.port())),
        FixedResolver::new(&[]),
    );
    assert!(fetch(&r, &page.url("/")).await.ok);
    assert_refused(&fetch(&r, &other.url("/")).await, "other port");
    assert_eq!(other.accepted(), 0);
    // Allow-list entries are parsed like URL hosts.
    assert!(AllowList::parse("0x7f.1:80, nas.local").is_ok());
    assert!(AllowList::parse("http://nas.local/").is_err());
}
