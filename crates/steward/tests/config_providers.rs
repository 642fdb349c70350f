//! Integration tests of `steward::config` providers and secrets: unknown providers,
//! user-defined `[providers.NAME]` tables, `provider_configs`, and masking in
//! `render_show` and `Debug`. Env is injected; files live in fresh temp dirs.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use std::time::Duration;

use config_support::{env_of, load_in, temp_dir, write};
use steward::config::{ConfigError, ProviderKindSetting, Shown, Source, provider_configs};

#[test]
fn unknown_provider_lists_known_ones() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "[providers.groq]\nkind = \"openai\"\nbase_url = \"https://api.groq.com/openai/v1\"\n",
    );
    let err = load_in(
        &dir,
        None,
        &env_of(&dir, &[("STEWARD_MODEL", "mistral:large")]),
    )
    .unwrap_err();
    let ConfigError::UnknownProvider {
        provider,
        known,
        origin,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(provider, "mistral");
    assert_eq!(origin, "env STEWARD_MODEL");
    assert_eq!(known, &["openai", "anthropic", "gemini", "ollama", "groq"]);
    let msg = err.to_string();
    assert!(
        msg.contains("openai, anthropic, gemini, ollama, groq"),
        "{msg}"
    );

    let msg = load_in(
        &dir,
        None,
        &env_of(&dir, &[("STEWARD_FALLBACK_MODEL", "nope:x")]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("fallback_model") && msg.contains("`nope`"),
        "{msg}"
    );
}

#[test]
fn user_defined_provider_with_api_key_env() {
    let dir = temp_dir();
    let file = write(
        &dir,
        "steward.toml",
        "model = \"groq:llama-3.3-70b\"\n[providers.groq]\nkind = \"openai\"\nbase_url = \"https://api.groq.com/openai/v1/\"\napi_key_env = \"GROQ_API_KEY\"\nstream = false\n",
    );
    let key = "gsk-groq-secret-0123456789";
    let cfg = load_in(&dir, None, &env_of(&dir, &[("GROQ_API_KEY", key)])).unwrap();
    let groq = cfg.settings.provider("groq").unwrap();
    assert_eq!(groq.kind, ProviderKindSetting::OpenAi);
    assert_eq!(groq.base_url, "https://api.groq.com/openai/v1");
    assert_eq!(groq.api_key.as_deref(), Some(key));
    assert_eq!(groq.api_key_env.as_deref(), Some("GROQ_API_KEY"));
    assert!(!groq.stream);
    assert_eq!(groq.key_hint(), "set GROQ_API_KEY");
    assert!(groq.requires_key());
    assert_eq!(
        cfg.source("providers.groq.api_key"),
        Some(&Source::Env("GROQ_API_KEY".into()))
    );
    assert_eq!(cfg.source("providers.groq.kind"), Some(&Source::File(file)));

    // Without the variable the key is simply missing, and the hint says where it goes.
    let cfg = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    let groq = cfg.settings.provider("groq").unwrap();
    assert_eq!(groq.api_key, None);
    assert_eq!(groq.key_hint(), "set GROQ_API_KEY");
    let entry = cfg
        .entries()
        .iter()
        .find(|e| e.key == "providers.groq.api_key")
        .unwrap();
    assert_eq!(entry.value, Shown::Unset);
}

#[test]
fn user_defined_provider_errors() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "[providers.opneai]\napi_key = \"sk-abcdefgh\"\n",
    );
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("missing `kind`") && msg.contains("[providers.openai]"),
        "{msg}"
    );
    assert!(!msg.contains("sk-abcdefgh"), "{msg}");

    write(
        &dir,
        "steward.toml",
        "[providers.Bad_Name]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:1\"\n",
    );
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("[a-z0-9_-]{1,32}"), "{msg}");

    write(
        &dir,
        "steward.toml",
        "[providers.local]\nkind = \"mistral\"\nbase_url = \"http://127.0.0.1:1\"\n",
    );
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("providers.local.kind") && msg.contains("\"anthropic\""),
        "{msg}"
    );

    write(
        &dir,
        "steward.toml",
        "[providers.local]\nkind = \"openai\"\nbase_ur = \"http://127.0.0.1:1\"\n",
    );
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("did you mean `providers.local.base_url`"),
        "{msg}"
    );
}

#[test]
fn show_and_debug_never_contain_any_part_of_a_secret() {
    let dir = temp_dir();
    let file_key = "fk-filekey-AAAA1111";
    write(
        &dir,
        "steward.toml",
        &format!(
            "[providers.local]\nkind = \"anthropic\"\nbase_url = \"http://127.0.0.1:1\"\napi_key = \"{file_key}\"\n"
        ),
    );
    let token = "tok-0123456789-WXYZ";
    let openai = "sk-openai-secret-QRST";
    let cfg = load_in(
        &dir,
        None,
        &env_of(
            &dir,
            &[("STEWARD_API_TOKEN", token), ("OPENAI_API_KEY", openai)],
        ),
    )
    .unwrap();
    assert_eq!(cfg.settings.api_token.as_deref(), Some(token));
    assert_eq!(
        cfg.settings.provider("local").unwrap().api_key.as_deref(),
        Some(file_key)
    );
    let show = cfg.render_show();
    let debug = format!("{cfg:?} {:?} {:?}", cfg.settings, cfg.settings.providers);
    for text in [&show, &debug] {
        for secret in [token, openai, file_key] {
            assert!(!text.contains(secret), "secret leaked:\n{text}");
            assert!(
                !text.contains(&secret[secret.len() - 4..]),
                "secret tail leaked:\n{text}"
            );
        }
    }
    let line = |key: &str| {
        show.lines()
            .find(|l| l.starts_with(&format!("{key} ")))
            .unwrap()
            .to_string()
    };
    assert!(line("api_token").contains("******** (set)"), "{show}");
    assert!(
        line("providers.openai.api_key").contains("******** (set)"),
        "{show}"
    );
    assert!(
        line("providers.local.api_key").contains("******** (set)"),
        "{show}"
    );
    assert!(
        line("providers.anthropic.api_key").contains("(not set)"),
        "{show}"
    );
    assert!(
        !line("providers.anthropic.api_key").contains("********"),
        "{show}"
    );
}

#[test]
fn provider_configs_map_every_provider_with_timeouts() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "model_timeout_secs = 33\n[providers.ollama]\nstream = false\n[providers.lm]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:1234/v1\"\n",
    );
    let cfg = load_in(
        &dir,
        None,
        &env_of(&dir, &[("GEMINI_API_KEY", "gm-key-1234567")]),
    )
    .unwrap();
    let pcs = provider_configs(&cfg.settings);
    let names: Vec<_> = pcs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["openai", "anthropic", "gemini", "ollama", "lm"]);
    for p in &pcs {
        assert_eq!(p.request_timeout, Duration::from_secs(33));
        assert_eq!(p.connect_timeout, Duration::from_secs(10));
    }
    assert!(!pcs[3].stream && pcs[0].stream);
    assert_eq!(pcs[2].api_key.as_deref(), Some("gm-key-1234567"));
    assert_eq!(pcs[4].base_url, "http://127.0.0.1:1234/v1");
    assert!(!cfg.settings.provider("lm").unwrap().requires_key());
    assert!(!cfg.settings.provider("ollama").unwrap().requires_key());
}
