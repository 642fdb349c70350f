//! The `parts.*` limits and `providers.NAME.parts`: defaults, file and env values, the
//! mapping to the model layer, and refusals of bad values.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use config_support::{env_of, load_in, temp_dir, write};
use steward::config::provider_configs;
use steward_protocol::PartKind;

#[test]
fn part_limits_default_and_come_from_env_in_mib() {
    let dir = temp_dir();
    let cfg = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    assert_eq!(cfg.settings.parts.max_part_bytes, 20 * 1024 * 1024);
    assert_eq!(cfg.settings.parts.max_message_bytes, 32 * 1024 * 1024);
    let env = env_of(
        &dir,
        &[
            ("STEWARD_MAX_PART_MB", "5"),
            ("STEWARD_MAX_MESSAGE_PARTS_MB", "6"),
        ],
    );
    let cfg = load_in(&dir, None, &env).unwrap();
    assert_eq!(cfg.settings.parts.max_part_bytes, 5 * 1024 * 1024);
    assert_eq!(cfg.settings.parts.max_message_bytes, 6 * 1024 * 1024);
    let env = env_of(&dir, &[("STEWARD_MAX_PART_MB", "0")]);
    let msg = load_in(&dir, None, &env).unwrap_err().to_string();
    assert!(
        msg.contains("parts.max_part_mb") && msg.contains("1..=512"),
        "{msg}"
    );
}

#[test]
fn provider_parts_narrow_what_a_provider_is_sent() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "[providers.openai]\nparts = \"image, file\"\n\
         [providers.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nparts = \"none\"\n",
    );
    let cfg = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    let configs = provider_configs(&cfg.settings);
    let of = |name: &str| {
        configs
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .parts
            .clone()
    };
    assert_eq!(of("openai"), Some(vec![PartKind::Image, PartKind::File]));
    assert_eq!(of("local"), Some(vec![]));
    assert_eq!(of("gemini"), None, "unset: everything its API takes");
    let show = cfg.render_show();
    assert!(show.contains("providers.local.parts"), "{show}");

    for bad in ["video", "image,image", ""] {
        write(
            &dir,
            "steward.toml",
            &format!("[providers.gemini]\nparts = \"{bad}\"\n"),
        );
        let msg = load_in(&dir, None, &env_of(&dir, &[]))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("providers.gemini.parts") && msg.contains("part kinds"),
            "{bad}: {msg}"
        );
    }
}
