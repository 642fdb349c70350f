//! `run_code` wiring in the binary: the app registers it only when `code.enabled` and the
//! sandbox probe pass, with the configured limits; `steward doctor` says whether code
//! execution is available and why not.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use std::collections::HashMap;
use std::path::Path;

use config_support::temp_dir;
use serde_json::json;
use steward::config::{LoadedConfig, load_with_cwd};
use steward::doctor;

fn config(dir: &Path, vars: &[(&str, &str)]) -> LoadedConfig {
    let mut env: HashMap<String, String> = HashMap::from([
        ("HOME".to_string(), dir.to_string_lossy().into_owned()),
        (
            "STEWARD_DATA_DIR".to_string(),
            dir.join("data").to_string_lossy().into_owned(),
        ),
        ("STEWARD_HTTP_ADDR".to_string(), "127.0.0.1:0".to_string()),
        ("STEWARD_EMBEDDER".to_string(), "none".to_string()),
    ]);
    for (k, v) in vars {
        env.insert(k.to_string(), v.to_string());
    }
    load_with_cwd(None, dir, &|k: &str| env.get(k).cloned()).unwrap()
}

async fn doctor_output(cfg: &LoadedConfig) -> String {
    let mut out = Vec::new();
    doctor::run(cfg, &mut out).await.unwrap();
    String::from_utf8(out).unwrap()
}

fn registry(cfg: &LoadedConfig) -> steward_tools::ToolRegistry {
    let settings = &cfg.settings;
    std::fs::create_dir_all(&settings.data_dir).unwrap();
    let clock = steward::app::clock();
    let store = steward::app::open_store(settings, clock.clone()).unwrap();
    let memory = steward::memory_wiring::build_memory(settings, store, clock.clone()).unwrap();
    steward::app::tools(settings, &memory, clock).unwrap()
}

#[tokio::test]
async fn doctor_reports_code_execution() {
    let dir = temp_dir();
    let out = doctor_output(&config(&dir, &[])).await;
    assert!(
        out.contains("ok   code execution: sandbox ready (Landlock ABI "),
        "{out}"
    );
    let out = doctor_output(&config(&dir, &[("STEWARD_CODE_ENABLED", "false")])).await;
    assert!(
        out.contains("ok   code execution: off (code.enabled = false)"),
        "{out}"
    );
    let out = doctor_output(&config(
        &dir,
        &[("STEWARD_CODE_PYTHON", "/nonexistent/python3")],
    ))
    .await;
    assert!(
        out.contains("warn code execution: python unavailable: /nonexistent/python3 not found"),
        "{out}"
    );
}

#[test]
fn the_app_offers_run_code_only_when_enabled_and_with_its_limits() {
    let dir = temp_dir();
    let reg = registry(&config(&dir, &[("STEWARD_CODE_ENABLED", "false")]));
    assert!(reg.get("run_code").is_none());

    let file = dir.join("steward.toml");
    std::fs::write(&file, "[code]\ntimeout_secs = 7\n").unwrap();
    let env: HashMap<String, String> = HashMap::from([(
        "STEWARD_DATA_DIR".to_string(),
        dir.join("data2").to_string_lossy().into_owned(),
    )]);
    let loaded = load_with_cwd(Some(&file), &dir, &|k: &str| env.get(k).cloned()).unwrap();
    assert_eq!(loaded.settings.code.timeout.as_secs(), 7);
    let reg = registry(&loaded);
    // The sandbox probe runs in the background (start-up does not wait for it).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let tool = loop {
        if let Some(tool) = reg.get("run_code") {
            break tool;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "run_code not offered on a machine that can sandbox"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(
        tool.parameters()["properties"]["timeout_secs"]["maximum"],
        json!(7)
    );
    assert_eq!(tool.effect(), steward_protocol::Effect::External);
    assert!(
        !tool.grantable(),
        "each run gets its own card: no grant skips it"
    );
}
