//! Integration tests of `steward::config`: precedence, discovery, file and env errors,
//! empty env vars and generated docs. Env is injected; files live in fresh temp dirs.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use std::time::Duration;

use config_support::{env_of, load_in, temp_dir, write};
use steward::config::{ConfigError, Source, load, render_docs};

#[test]
fn precedence_default_then_file_then_env_with_sources() {
    let dir = temp_dir();
    let file = write(
        &dir,
        "steward.toml",
        "model = \"openai:gpt-4.1-mini\"\nlog = \"debug\"\n[agent]\nmax_rounds = 12\nhistory_messages = 7\n[http]\naddr = \"127.0.0.1:9999\"\n",
    );
    let env = env_of(
        &dir,
        &[
            ("STEWARD_MAX_ROUNDS", "20"),
            ("STEWARD_LOG", "warn,steward=trace"),
        ],
    );
    let cfg = load_in(&dir, None, &env).unwrap();
    let s = &cfg.settings;
    assert_eq!(cfg.file.as_deref(), Some(file.as_path()));
    // env beats file
    assert_eq!(s.agent.max_rounds, 20);
    assert_eq!(
        cfg.source("agent.max_rounds"),
        Some(&Source::Env("STEWARD_MAX_ROUNDS".into()))
    );
    assert_eq!(s.log, "warn,steward=trace");
    assert_eq!(cfg.source("log"), Some(&Source::Env("STEWARD_LOG".into())));
    // file beats default
    assert_eq!(s.model.as_deref(), Some("openai:gpt-4.1-mini"));
    assert_eq!(cfg.source("model"), Some(&Source::File(file.clone())));
    assert_eq!(s.agent.history_messages, 7);
    assert_eq!(s.http_addr.to_string(), "127.0.0.1:9999");
    assert_eq!(cfg.source("http.addr"), Some(&Source::File(file.clone())));
    // defaults where nothing is given
    assert_eq!(s.timezone, "UTC");
    assert_eq!(cfg.source("timezone"), Some(&Source::Default));
    assert_eq!(s.agent.max_turn_tokens, 200_000);
    assert_eq!(s.max_body_bytes, 1_048_576);
    assert_eq!(s.agent.turn_timeout, Duration::from_secs(300));
    assert_eq!(s.model_retries, 2);
    assert_eq!(s.data_dir, dir.join(".local/share/steward"));
    assert_eq!(
        s.provider("ollama").unwrap().base_url,
        "http://localhost:11434/v1"
    );
    // and the show output reports the same provenance
    let show = cfg.render_show();
    let line = |key: &str| {
        show.lines()
            .find(|l| l.starts_with(&format!("{key} ")))
            .unwrap_or_else(|| panic!("no line for {key} in\n{show}"))
            .to_string()
    };
    assert!(
        line("agent.max_rounds").contains("(env STEWARD_MAX_ROUNDS)"),
        "{show}"
    );
    assert!(
        line("model").contains(&format!("(file {})", file.display())),
        "{show}"
    );
    assert!(line("timezone").contains("(default)"), "{show}");
}

#[test]
fn discovery_order_explicit_then_steward_config_then_cwd_then_data_dir() {
    let dir = temp_dir();
    let explicit = write(&dir, "explicit.toml", "log = \"explicit\"\n");
    let via_env = write(&dir, "via-env.toml", "log = \"via-env\"\n");
    let cwd_file = write(&dir, "steward.toml", "log = \"cwd\"\n");
    let data = dir.join("data");
    let data_file = write(&data, "steward.toml", "log = \"data\"\n");
    let data_s = data.to_string_lossy().into_owned();
    let env_s = via_env.to_string_lossy().into_owned();

    let full = env_of(
        &dir,
        &[("STEWARD_CONFIG", &env_s), ("STEWARD_DATA_DIR", &data_s)],
    );
    let cfg = load_in(&dir, Some(&explicit), &full).unwrap();
    assert_eq!(
        (cfg.file.as_deref(), cfg.settings.log.as_str()),
        (Some(explicit.as_path()), "explicit")
    );

    let cfg = load_in(&dir, None, &full).unwrap();
    assert_eq!(
        (cfg.file.as_deref(), cfg.settings.log.as_str()),
        (Some(via_env.as_path()), "via-env")
    );

    let no_cfg = env_of(&dir, &[("STEWARD_DATA_DIR", &data_s)]);
    let cfg = load_in(&dir, None, &no_cfg).unwrap();
    assert_eq!(
        (cfg.file.as_deref(), cfg.settings.log.as_str()),
        (Some(cwd_file.as_path()), "cwd")
    );

    std::fs::remove_file(&cwd_file).unwrap();
    let cfg = load_in(&dir, None, &no_cfg).unwrap();
    assert_eq!(
        (cfg.file.as_deref(), cfg.settings.log.as_str()),
        (Some(data_file.as_path()), "data")
    );

    // Without STEWARD_DATA_DIR the default data dir (under HOME) is searched instead.
    let cfg = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    assert_eq!(cfg.file, None);
    assert_eq!(cfg.settings.log, "info");
    assert!(
        cfg.render_show()
            .contains("no config file: defaults + environment")
    );
}

#[test]
fn data_dir_from_the_file_is_not_used_to_find_the_file() {
    let dir = temp_dir();
    let other = dir.join("other");
    write(&other, "steward.toml", "log = \"other\"\n");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let cfg_file = write(
        &sub,
        "steward.toml",
        &format!("data_dir = {:?}\nlog = \"sub\"\n", other.to_string_lossy()),
    );
    let cfg = load_in(&sub, None, &env_of(&dir, &[])).unwrap();
    assert_eq!(cfg.file.as_deref(), Some(cfg_file.as_path()));
    assert_eq!(cfg.settings.log, "sub");
    assert_eq!(cfg.settings.data_dir, other);
}

#[test]
fn missing_explicit_or_steward_config_file_is_an_error_naming_it() {
    let dir = temp_dir();
    let missing = dir.join("nope.toml");
    let err = load_in(&dir, Some(&missing), &env_of(&dir, &[])).unwrap_err();
    assert!(matches!(err, ConfigError::MissingFile { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&missing.display().to_string()),
        "{err}"
    );

    let missing_s = missing.to_string_lossy().into_owned();
    let err = load_in(&dir, None, &env_of(&dir, &[("STEWARD_CONFIG", &missing_s)])).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains(&missing_s) && msg.contains("STEWARD_CONFIG"),
        "{msg}"
    );
}

#[test]
fn unknown_key_is_an_error_with_a_suggestion() {
    let dir = temp_dir();
    let file = write(
        &dir,
        "steward.toml",
        "model = \"openai:x\"\n[agent]\nmax_round = 3\n",
    );
    let err = load_in(&dir, None, &env_of(&dir, &[])).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("unknown key `agent.max_round`"), "{msg}");
    assert!(msg.contains("did you mean `agent.max_rounds`"), "{msg}");
    assert!(msg.contains(&format!("{}:3", file.display())), "{msg}");

    write(&dir, "steward.toml", "timezon = \"UTC\"\n");
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("did you mean `timezone`"), "{msg}");
}

#[test]
fn parse_errors_name_file_and_line() {
    let dir = temp_dir();
    let file = write(&dir, "steward.toml", "log = \"info\"\nmodel = = \"x\"\n");
    let err = load_in(&dir, None, &env_of(&dir, &[])).unwrap_err();
    assert!(matches!(err, ConfigError::Parse { line: 2, .. }), "{err:?}");
    assert!(
        err.to_string().contains(&file.display().to_string()),
        "{err}"
    );
}

#[test]
fn bad_values_from_file_name_key_file_and_rule() {
    let dir = temp_dir();
    let file = write(&dir, "steward.toml", "[agent]\nmax_rounds = 100\n");
    let err = load_in(&dir, None, &env_of(&dir, &[])).unwrap_err();
    let ConfigError::Invalid {
        key,
        origin,
        reason,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(key, "agent.max_rounds");
    assert!(
        origin.contains(&file.display().to_string()) && origin.contains("line 2"),
        "{origin}"
    );
    assert!(reason.contains("1..=64"), "{reason}");

    write(&dir, "steward.toml", "[http]\nmax_body_bytes = \"big\"\n");
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("http.max_body_bytes") && msg.contains("expected an integer"),
        "{msg}"
    );

    write(&dir, "steward.toml", "timezone = \"Mars/Olympus\"\n");
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("`timezone`") && msg.contains("IANA"), "{msg}");
}

#[test]
fn bad_values_from_env_name_key_env_var_and_rule() {
    let dir = temp_dir();
    let err = load_in(
        &dir,
        None,
        &env_of(&dir, &[("STEWARD_HTTP_ADDR", "localhost")]),
    )
    .unwrap_err();
    let ConfigError::Invalid {
        key,
        origin,
        reason,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(key, "http.addr");
    assert_eq!(origin, "env STEWARD_HTTP_ADDR");
    assert!(reason.contains("IP:port"), "{reason}");

    let msg = load_in(
        &dir,
        None,
        &env_of(&dir, &[("STEWARD_HTTP_MAX_BODY_BYTES", "100")]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("http.max_body_bytes") && msg.contains("1024..=67108864"),
        "{msg}"
    );

    let msg = load_in(
        &dir,
        None,
        &env_of(&dir, &[("OPENAI_BASE_URL", "api.openai.com")]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("providers.openai.base_url") && msg.contains("env OPENAI_BASE_URL"),
        "{msg}"
    );
}

#[test]
fn http_connection_limits_have_defaults_overrides_and_ranges() {
    let dir = temp_dir();
    let cfg = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    let http = &cfg.settings.http;
    assert_eq!(http.header_timeout, Duration::from_secs(10));
    assert_eq!(http.idle_timeout, Duration::from_secs(60));
    assert_eq!(
        (http.max_connections, http.max_connections_per_ip),
        (256, 64)
    );
    let file = write(
        &dir,
        "steward.toml",
        "[http]\nheader_timeout_secs = 3\nmax_connections_per_ip = 8\n",
    );
    let env = env_of(
        &dir,
        &[
            ("STEWARD_HTTP_IDLE_TIMEOUT_SECS", "5"),
            ("STEWARD_HTTP_MAX_CONNECTIONS", "32"),
        ],
    );
    let http = load_in(&dir, Some(&file), &env).unwrap().settings.http;
    assert_eq!(http.header_timeout, Duration::from_secs(3));
    assert_eq!(http.idle_timeout, Duration::from_secs(5));
    assert_eq!((http.max_connections, http.max_connections_per_ip), (32, 8));
    for (var, bad, key) in [
        (
            "STEWARD_HTTP_HEADER_TIMEOUT_SECS",
            "0",
            "http.header_timeout_secs",
        ),
        (
            "STEWARD_HTTP_IDLE_TIMEOUT_SECS",
            "3601",
            "http.idle_timeout_secs",
        ),
        ("STEWARD_HTTP_MAX_CONNECTIONS", "0", "http.max_connections"),
        (
            "STEWARD_HTTP_MAX_CONNECTIONS_PER_IP",
            "many",
            "http.max_connections_per_ip",
        ),
    ] {
        let msg = load_in(&dir, None, &env_of(&dir, &[(var, bad)]))
            .unwrap_err()
            .to_string();
        assert!(msg.contains(key) && msg.contains(var), "{msg}");
    }
}

#[test]
fn invalid_secret_is_never_echoed() {
    let dir = temp_dir();
    let secret = "short secret";
    let err = load_in(&dir, None, &env_of(&dir, &[("STEWARD_API_TOKEN", secret)])).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("api_token") && msg.contains("at least 16"),
        "{msg}"
    );
    assert!(
        !msg.contains(secret) && !format!("{err:?}").contains(secret),
        "{msg}"
    );
}

#[test]
fn empty_env_var_counts_as_unset() {
    let dir = temp_dir();
    write(&dir, "steward.toml", "model = \"anthropic:claude\"\n");
    let env = env_of(
        &dir,
        &[
            ("STEWARD_MODEL", ""),
            ("STEWARD_MAX_ROUNDS", ""),
            ("STEWARD_CONFIG", ""),
            ("OPENAI_API_KEY", ""),
        ],
    );
    let cfg = load_in(&dir, None, &env).unwrap();
    assert_eq!(cfg.settings.model.as_deref(), Some("anthropic:claude"));
    assert!(matches!(cfg.source("model"), Some(Source::File(_))));
    assert_eq!(cfg.settings.agent.max_rounds, 8);
    assert_eq!(cfg.source("agent.max_rounds"), Some(&Source::Default));
    assert_eq!(cfg.settings.provider("openai").unwrap().api_key, None);
}

#[test]
fn docs_are_generated_from_the_registry() {
    let docs = render_docs();
    for needle in [
        "`agent.max_rounds`",
        "`STEWARD_MAX_ROUNDS`",
        "`OPENAI_API_KEY`",
        "`1048576`",
        "api_key_env",
    ] {
        assert!(docs.contains(needle), "{needle} missing from docs");
    }
}

#[test]
fn load_uses_the_process_environment_shape() {
    // `load` is `load_with_cwd` with the real cwd; an explicit missing path fails the same way.
    let dir = temp_dir();
    let missing = dir.join("absent.toml");
    let err = load(Some(&missing), &|_| None).unwrap_err();
    assert!(matches!(err, ConfigError::MissingFile { .. }), "{err:?}");
}

/// As the README says: `$XDG_DATA_HOME/steward` (an absolute one), else
/// `$HOME/.local/share/steward`, else `./.steward`.
#[test]
fn the_default_data_dir_follows_xdg_then_home_then_the_working_directory() {
    let dir = temp_dir();
    let xdg = dir.join("xdg");
    let data_dir = |env: &[(&str, &str)]| {
        let env: std::collections::HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        load_in(&dir, None, &env).unwrap().settings.data_dir
    };
    let home = dir.to_string_lossy().into_owned();
    let xdg_text = xdg.to_string_lossy().into_owned();
    assert_eq!(
        data_dir(&[("XDG_DATA_HOME", &xdg_text), ("HOME", &home)]),
        xdg.join("steward")
    );
    assert_eq!(
        data_dir(&[("XDG_DATA_HOME", "relative/xdg"), ("HOME", &home)]),
        dir.join(".local/share/steward"),
        "a relative XDG_DATA_HOME is ignored"
    );
    assert_eq!(data_dir(&[]), std::path::PathBuf::from("./.steward"));
}

/// The API token may come from steward.toml as well as STEWARD_API_TOKEN; it is never shown.
#[test]
fn the_api_token_can_be_set_in_the_file() {
    let dir = temp_dir();
    let file = write(
        &dir,
        "steward.toml",
        "api_token = \"file-token-0123456789\"\n",
    );
    let cfg = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    assert_eq!(
        cfg.settings.api_token.as_deref(),
        Some("file-token-0123456789")
    );
    assert_eq!(cfg.source("api_token"), Some(&Source::File(file)));
    assert!(!cfg.render_show().contains("file-token-0123456789"));
}
