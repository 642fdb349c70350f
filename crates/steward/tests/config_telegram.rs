//! The `telegram.*` settings: file and env values reach `TelegramSettings`, the defaults let
//! nobody in, bad values are refused naming the key (the token's never quoted), and the
//! token is masked in `config show` and `Debug`.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use config_support::{env_of, load_in, temp_dir, write};

const TOKEN: &str = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq";

#[test]
fn telegram_settings_reach_the_settings_and_the_token_is_masked() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "[telegram]\nallowed_users = \"1001, 2002\"\nallow_groups = true\n\
         api_base_url = \"http://127.0.0.1:8081/\"\n",
    );
    let env = env_of(&dir, &[("TELEGRAM_BOT_TOKEN", TOKEN)]);
    let loaded = load_in(&dir, None, &env).unwrap();
    let tg = &loaded.settings.telegram;
    assert_eq!(tg.bot_token.as_deref(), Some(TOKEN));
    assert!(tg.allowed_users.contains(1001) && tg.allowed_users.contains(2002));
    assert!(!tg.allowed_users.contains(3003));
    assert!(tg.allow_groups);
    assert_eq!(tg.api_base_url, "http://127.0.0.1:8081");
    assert!(!loaded.render_show().contains("AAHdq"));
    assert!(!format!("{:?}", loaded.settings).contains("AAHdq"));
}

#[test]
fn by_default_nobody_is_let_in_and_groups_are_off() {
    let dir = temp_dir();
    let loaded = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    let tg = &loaded.settings.telegram;
    assert!(tg.bot_token.is_none());
    assert!(tg.allowed_users.is_empty());
    assert!(!tg.allow_groups);
    assert_eq!(tg.api_base_url, "https://api.telegram.org");
}

#[test]
fn bad_telegram_values_are_refused_naming_the_key() {
    let dir = temp_dir();
    for (var, value, key) in [
        (
            "STEWARD_TELEGRAM_ALLOWED_USERS",
            "@ann",
            "telegram.allowed_users",
        ),
        (
            "STEWARD_TELEGRAM_ALLOWED_USERS",
            "0",
            "telegram.allowed_users",
        ),
        (
            "STEWARD_TELEGRAM_ALLOWED_USERS",
            "1,,2",
            "telegram.allowed_users",
        ),
        (
            "STEWARD_TELEGRAM_ALLOW_GROUPS",
            "maybe",
            "telegram.allow_groups",
        ),
        (
            "STEWARD_TELEGRAM_API_BASE_URL",
            "api.telegram.org",
            "telegram.api_base_url",
        ),
    ] {
        let msg = load_in(&dir, None, &env_of(&dir, &[(var, value)]))
            .unwrap_err()
            .to_string();
        assert!(msg.contains(key), "{var}={value}: {msg}");
    }
    let forged = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDs/../x";
    let msg = load_in(&dir, None, &env_of(&dir, &[("TELEGRAM_BOT_TOKEN", forged)]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("telegram.bot_token") && !msg.contains("AAHdq"),
        "{msg}"
    );
    write(&dir, "steward.toml", "[telegram]\nallowed_users = 1001\n");
    let msg = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("telegram.allowed_users"), "{msg}");
}

/// `steward doctor` on `env`, against whatever Bot API `telegram.api_base_url` names.
async fn doctor_on(dir: &std::path::Path, vars: &[(&str, &str)]) -> (bool, String) {
    // As `main` does before anything builds an HTTP client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let loaded = load_in(dir, None, &env_of(dir, vars)).unwrap();
    let mut out = Vec::new();
    let ok = steward::doctor::run(&loaded, &mut out).await.unwrap();
    (ok, String::from_utf8(out).unwrap())
}

#[tokio::test]
async fn doctor_asks_the_bot_api_and_says_how_to_fix_what_it_finds() {
    let bot = steward_testkit::telegram::FakeBotApi::start()
        .await
        .unwrap();
    let dir = temp_dir();
    let base = bot.base.clone();
    let good = [
        ("TELEGRAM_BOT_TOKEN", steward_testkit::telegram::TOKEN),
        ("STEWARD_TELEGRAM_API_BASE_URL", base.as_str()),
    ];
    let (_, out) = doctor_on(&dir, &good).await;
    assert!(
        out.contains("ok   telegram: the token works (bot @steward_test_bot)"),
        "{out}"
    );
    assert!(
        out.contains("warn telegram: telegram.allowed_users is empty"),
        "{out}"
    );
    assert!(out.contains("STEWARD_TELEGRAM_ALLOWED_USERS=<id>"), "{out}");
    assert!(out.contains("ok   telegram: long polling"), "{out}");
    assert!(!bot.calls_of("getMe").is_empty());

    // A token the Bot API refuses: FAIL with the fix, and the token never printed.
    let (ok, out) = doctor_on(
        &dir,
        &[
            ("TELEGRAM_BOT_TOKEN", TOKEN),
            ("STEWARD_TELEGRAM_API_BASE_URL", base.as_str()),
        ],
    )
    .await;
    assert!(!ok);
    assert!(
        out.contains("FAIL telegram: the Bot API refused the token"),
        "{out}"
    );
    assert!(out.contains("@BotFather"), "{out}");
    assert!(!out.contains("AAHdq"), "{out}");

    // Webhook mode without its secret is a FAIL.
    let mut vars = good.to_vec();
    vars.push((
        "STEWARD_TELEGRAM_WEBHOOK_URL",
        "https://steward.example/telegram/webhook",
    ));
    vars.push(("STEWARD_TELEGRAM_ALLOWED_USERS", "1001"));
    let (ok, out) = doctor_on(&dir, &vars).await;
    assert!(!ok);
    assert!(out.contains("without telegram.webhook_secret"), "{out}");
}

#[test]
fn the_webhook_secret_follows_telegrams_rule_and_is_masked() {
    let dir = temp_dir();
    let env = env_of(
        &dir,
        &[("STEWARD_TELEGRAM_WEBHOOK_SECRET", "s3cr3t_Value-xyz")],
    );
    let loaded = load_in(&dir, None, &env).unwrap();
    assert_eq!(
        loaded.settings.telegram.webhook_secret.as_deref(),
        Some("s3cr3t_Value-xyz")
    );
    assert!(!loaded.render_show().contains("s3cr3t_Value"));
    assert!(!format!("{:?}", loaded.settings).contains("s3cr3t_Value"));
    for bad in ["has space", "semi;colon", &"x".repeat(257)] {
        let env = env_of(&dir, &[("STEWARD_TELEGRAM_WEBHOOK_SECRET", bad)]);
        let err = load_in(&dir, None, &env).unwrap_err().to_string();
        assert!(err.contains("telegram.webhook_secret"), "{err}");
        assert!(!err.contains(bad), "the secret is not quoted: {err}");
    }
}
