//! `fetch_url` over TLS against a local server with a self-signed certificate (a test-only
//! key in `fixtures/`): certificates are verified (the shared TLS config does not trust it),
//! and a pinned connection still sends the host name for SNI and offers h2 and http/1.1.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::web_support;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::{Arc, Mutex};
use tokio_rustls::LazyConfigAcceptor;
use web_support::{FixedResolver, cfg, fetch, registry};

const CERT: &[u8] = include_bytes!("fixtures/web_test_cert.pem");
const KEY: &[u8] = include_bytes!("fixtures/web_test_key.pem");

/// What the client said in its hello: SNI and ALPN.
type Hellos = Arc<Mutex<Vec<(Option<String>, Vec<Vec<u8>>)>>>;

async fn tls_server() -> (u16, Hellos) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cert = CertificateDer::from_pem_slice(CERT).unwrap();
    let key = PrivateKeyDer::from_pem_slice(KEY).unwrap();
    let config = Arc::new(
        rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hellos: Hellos = Arc::default();
    let seen = hellos.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = LazyConfigAcceptor::new(rustls::server::Acceptor::default(), stream);
            let Ok(start) = acceptor.await else { continue };
            let hello = start.client_hello();
            let alpn = hello
                .alpn()
                .map(|a| a.map(<[u8]>::to_vec).collect())
                .unwrap_or_default();
            seen.lock()
                .unwrap()
                .push((hello.server_name().map(str::to_owned), alpn));
            // The client refuses our certificate, so this handshake fails; that is the point.
            let _ = start.into_stream(config.clone()).await;
        }
    });
    (port, hellos)
}

#[tokio::test]
async fn untrusted_certificates_are_refused_and_sni_survives_pinning() {
    let (port, hellos) = tls_server().await;
    let resolver = FixedResolver::new(&[("secure.test", &["127.0.0.1"])]);
    let r = registry(cfg("secure.test"), resolver);
    let out = fetch(&r, &format!("https://secure.test:{port}/")).await;
    assert!(!out.ok, "{}", out.output);
    assert!(
        out.output
            .contains("invalid peer certificate: UnknownIssuer"),
        "{}",
        out.output
    );
    let hellos = hellos.lock().unwrap().clone();
    assert_eq!(hellos.len(), 1);
    assert_eq!(hellos[0].0.as_deref(), Some("secure.test"));
    assert_eq!(hellos[0].1, vec![b"h2".to_vec(), b"http/1.1".to_vec()]);
}

#[tokio::test]
async fn an_ip_literal_over_tls_is_verified_too() {
    let (port, hellos) = tls_server().await;
    let r = registry(cfg("127.0.0.1"), FixedResolver::new(&[]));
    let out = fetch(&r, &format!("https://127.0.0.1:{port}/")).await;
    assert!(
        !out.ok
            && out
                .output
                .contains("invalid peer certificate: UnknownIssuer"),
        "{}",
        out.output
    );
    assert_eq!(hellos.lock().unwrap().len(), 1);
}
