//! The `web.*` settings: file and env values reach `WebConfig`, bad allow-list entries and
//! backends are refused naming the key, and the search API key is masked everywhere.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use config_support::{env_of, load_in, temp_dir, write};
use std::time::Duration;
use steward_web::SearchBackend;

const KEY: &str = "BSA-web-search-secret-123";

#[test]
fn web_settings_reach_the_tools_config() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "[web]\nallow_hosts = \"nas.local, 192.168.1.10:5000\"\nfetch_timeout_secs = 7\n\
         max_redirects = 2\nsearch_backend = \"brave\"\n",
    );
    let env = env_of(&dir, &[("STEWARD_WEB_SEARCH_API_KEY", KEY)]);
    let loaded = load_in(&dir, None, &env).unwrap();
    let cfg = steward::app::web_config(&loaded.settings).unwrap();
    assert_eq!(cfg.fetch_timeout, Duration::from_secs(7));
    assert_eq!(cfg.max_redirects, 2);
    assert_eq!(cfg.fetch_max_bytes, 4 * 1024 * 1024);
    assert_eq!(cfg.search.backend, SearchBackend::Brave);
    assert_eq!(cfg.search.api_key.as_deref(), Some(KEY));
    assert_eq!(cfg.search.max_results, 5);
    let guard = steward_web::SsrfGuard::new(cfg.allow_hosts.clone());
    let t = guard
        .check_url(&reqwest::Url::parse("http://192.168.1.10:5000/").unwrap())
        .unwrap();
    assert!(t.allow_listed);
    assert!(
        guard
            .check_url(&reqwest::Url::parse("http://192.168.1.10/").unwrap())
            .is_err()
    );
    // The key is masked in `config show` and in Debug output.
    assert!(!loaded.render_show().contains(KEY));
    assert!(!format!("{:?}", loaded.settings).contains(KEY));
    assert!(!format!("{cfg:?}").contains(KEY));
}

#[test]
fn defaults_leave_search_off_and_nothing_allowed() {
    let dir = temp_dir();
    let loaded = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    let cfg = steward::app::web_config(&loaded.settings).unwrap();
    assert_eq!(cfg.search.backend, SearchBackend::None);
    assert!(cfg.allow_hosts.is_empty());
    assert_eq!(cfg.fetch_timeout, Duration::from_secs(15));
}

#[test]
fn bad_web_values_are_refused_naming_the_key() {
    let dir = temp_dir();
    for (var, value, key) in [
        (
            "STEWARD_WEB_ALLOW_HOSTS",
            "http://nas.local/",
            "web.allow_hosts",
        ),
        (
            "STEWARD_WEB_ALLOW_HOSTS",
            "nas.local:99999",
            "web.allow_hosts",
        ),
        ("STEWARD_WEB_SEARCH_BACKEND", "google", "web.search_backend"),
        ("STEWARD_WEB_SEARCH_URL", "localhost:8888", "web.search_url"),
    ] {
        let msg = load_in(&dir, None, &env_of(&dir, &[(var, value)]))
            .unwrap_err()
            .to_string();
        assert!(msg.contains(key), "{var}={value}: {msg}");
    }
    let msg = load_in(
        &dir,
        None,
        &env_of(&dir, &[("STEWARD_WEB_SEARCH_API_KEY", "has space")]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("web.search_api_key") && !msg.contains("has space"),
        "{msg}"
    );
    write(&dir, "steward.toml", "[web]\nfetch_timeout_secs = 60\n");
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("web.fetch_timeout_secs") && msg.contains("1..=25"),
        "{msg}"
    );
}
