//! Integration tests of `steward doctor` against temp dirs and 127.0.0.1 sockets only.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use std::collections::HashMap;
use std::net::TcpListener as StdListener;
use std::path::Path;

use config_support::temp_dir;
use steward::config::{LoadedConfig, load_reporting_with_cwd, load_with_cwd};
use steward::doctor;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Config from [`env_for`].
fn config(dir: &Path, vars: &[(&str, &str)]) -> LoadedConfig {
    let env = env_for(dir, vars);
    load_with_cwd(None, dir, &|k: &str| env.get(k).cloned()).unwrap()
}

/// HOME and the data dir inside `dir`, a free HTTP port, and `vars` on top (an empty value
/// counts as unset).
fn env_for(dir: &Path, vars: &[(&str, &str)]) -> HashMap<String, String> {
    let mut env: HashMap<String, String> = HashMap::from([
        ("HOME".to_string(), dir.to_string_lossy().into_owned()),
        (
            "STEWARD_DATA_DIR".to_string(),
            dir.join("data").to_string_lossy().into_owned(),
        ),
        ("STEWARD_HTTP_ADDR".to_string(), "127.0.0.1:0".to_string()),
    ]);
    for (k, v) in vars {
        env.insert(k.to_string(), v.to_string());
    }
    env
}

/// `steward doctor` as `main` runs it: loaded with every problem kept, then all checks.
async fn doctor_reporting(dir: &Path, vars: &[(&str, &str)]) -> (bool, String) {
    let env = env_for(dir, vars);
    let (cfg, problems) = load_reporting_with_cwd(None, dir, &|k: &str| env.get(k).cloned());
    let mut out = Vec::new();
    let ok = doctor::run_with_problems(&cfg, &problems, &mut out)
        .await
        .unwrap();
    (ok, String::from_utf8(out).unwrap())
}

async fn doctor(cfg: &LoadedConfig) -> (bool, String) {
    let mut out = Vec::new();
    let ok = doctor::run(cfg, &mut out).await.unwrap();
    (ok, String::from_utf8(out).unwrap())
}

/// The line following the first line that contains `needle`.
fn line_after(out: &str, needle: &str) -> String {
    let mut lines = out.lines().skip_while(|l| !l.contains(needle));
    assert!(lines.next().is_some(), "no line with {needle:?} in\n{out}");
    lines.next().unwrap_or_default().to_string()
}

/// A port on 127.0.0.1 that nothing listens on (bound, then released).
fn unused_port() -> u16 {
    let l = StdListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A one-purpose HTTP server on 127.0.0.1 answering every request with `status` and `body`.
async fn fixed_server(status: &'static str, body: &'static str) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let resp = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    port
}

#[tokio::test]
async fn no_model_warns_with_fix_and_passes() {
    let dir = temp_dir();
    let cfg = config(&dir, &[]);
    let (ok, out) = doctor(&cfg).await;
    assert!(ok, "{out}");
    assert!(
        out.contains("ok   config: no file: defaults + environment"),
        "{out}"
    );
    assert!(out.contains("ok   data dir"), "{out}");
    assert!(out.contains("ok   database: sqlite"), "{out}");
    assert!(dir.join("data/steward.db").exists());
    assert!(out.contains("warn model: none configured"), "{out}");
    let fix = line_after(&out, "warn model");
    assert!(
        fix.contains("fix: STEWARD_MODEL=openai:gpt-4.1-mini and OPENAI_API_KEY="),
        "{out}"
    );
    assert!(out.contains("STEWARD_MODEL=ollama:"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
    // No embedding model: recall still works on full text, and doctor says how to add it.
    assert!(
        out.contains("warn memory: no local embedding model"),
        "{out}"
    );
    assert!(
        line_after(&out, "warn memory").contains("scripts/fetch-model.sh"),
        "{out}"
    );
}

#[tokio::test]
async fn unreachable_provider_fails_with_fix() {
    let dir = temp_dir();
    let port = unused_port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let cfg = config(
        &dir,
        &[
            ("STEWARD_MODEL", "ollama:llama3.2"),
            ("OLLAMA_BASE_URL", &url),
        ],
    );
    let (ok, out) = doctor(&cfg).await;
    assert!(!ok, "{out}");
    let needle = format!("FAIL provider ollama: cannot reach {url}: is the server running?");
    assert!(out.contains(&needle), "{out}");
    let fix = line_after(&out, &needle);
    assert!(
        fix.contains("fix:") && fix.contains("OLLAMA_BASE_URL"),
        "{out}"
    );
}

#[tokio::test]
async fn data_dir_that_is_a_file_fails_with_fix() {
    let dir = temp_dir();
    let file = dir.join("data");
    std::fs::write(&file, b"not a dir").unwrap();
    let cfg = config(&dir, &[]);
    let (ok, out) = doctor(&cfg).await;
    assert!(!ok, "{out}");
    let needle = format!(
        "FAIL data dir {}: exists but is not a directory",
        file.display()
    );
    assert!(out.contains(&needle), "{out}");
    assert!(line_after(&out, &needle).contains("fix:"), "{out}");
    assert!(out.contains("warn database: not checked"), "{out}");
}

#[tokio::test]
async fn missing_key_fails_before_any_network_call() {
    let dir = temp_dir();
    let cfg = config(&dir, &[("STEWARD_MODEL", "openai:gpt-4.1-mini")]);
    let (ok, out) = doctor(&cfg).await;
    assert!(!ok, "{out}");
    assert!(
        out.contains("FAIL model openai:gpt-4.1-mini: provider openai has no API key"),
        "{out}"
    );
    assert!(out.contains("fix: set OPENAI_API_KEY=…"), "{out}");
    assert!(
        !out.contains("provider openai: "),
        "probed without a key:\n{out}"
    );
}

#[tokio::test]
async fn rejected_key_is_reported_without_the_key() {
    let dir = temp_dir();
    let port = fixed_server("401 Unauthorized", r#"{"error":{"message":"bad key"}}"#).await;
    let url = format!("http://127.0.0.1:{port}/v1");
    let key = "sk-test-rejected-KEY9";
    let cfg = config(
        &dir,
        &[
            ("STEWARD_MODEL", "openai:gpt-4.1-mini"),
            ("OPENAI_BASE_URL", &url),
            ("OPENAI_API_KEY", key),
        ],
    );
    let (ok, out) = doctor(&cfg).await;
    assert!(!ok, "{out}");
    assert!(out.contains("FAIL provider openai: key rejected"), "{out}");
    assert!(
        line_after(&out, "key rejected").contains("fix: check OPENAI_API_KEY"),
        "{out}"
    );
    assert!(!out.contains(key) && !out.contains("KEY9"), "{out}");
}

#[tokio::test]
async fn answering_provider_and_fallback_pass() {
    let dir = temp_dir();
    let port = fixed_server("200 OK", r#"{"object":"list","data":[]}"#).await;
    let url = format!("http://127.0.0.1:{port}/v1");
    let file = dir.join("steward.toml");
    std::fs::write(
        &file,
        format!("model = \"local:m1\"\nfallback_model = \"ollama:m2\"\n[providers.local]\nkind = \"openai\"\nbase_url = \"{url}\"\n[providers.ollama]\nbase_url = \"{url}\"\n"),
    )
    .unwrap();
    let cfg = config(&dir, &[]);
    assert_eq!(cfg.file.as_deref(), Some(file.as_path()));
    let (ok, out) = doctor(&cfg).await;
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("ok   config: loaded {}", file.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!("ok   provider local: answers at {url}")),
        "{out}"
    );
    assert!(
        out.contains(&format!("ok   provider ollama: answers at {url}")),
        "{out}"
    );
    assert!(out.contains("ok   fallback_model ollama:m2"), "{out}");
}

#[tokio::test]
async fn http_addr_in_use_is_a_warning() {
    let dir = temp_dir();
    let busy = StdListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let cfg = config(&dir, &[("STEWARD_HTTP_ADDR", &addr)]);
    let (ok, out) = doctor(&cfg).await;
    assert!(ok, "{out}");
    let needle = format!("warn http.addr {addr}: in use (is steward serve already running?)");
    assert!(out.contains(&needle), "{out}");
    assert!(line_after(&out, &needle).contains("fix:"), "{out}");
    drop(busy);
}

#[tokio::test]
async fn a_broken_config_value_and_an_unreachable_model_are_both_reported() {
    let dir = temp_dir();
    let url = format!("http://127.0.0.1:{}/v1", unused_port());
    let (ok, out) = doctor_reporting(
        &dir,
        &[
            ("STEWARD_MEMORY_BUDGET_TOKENS", "lots"),
            ("STEWARD_MODEL", "ollama:llama3.2"),
            ("OLLAMA_BASE_URL", &url),
        ],
    )
    .await;
    assert!(!ok, "{out}");
    let bad = "FAIL config: invalid value for `memory.context_budget_tokens` from env STEWARD_MEMORY_BUDGET_TOKENS";
    assert!(out.contains(bad), "{out}");
    assert!(
        line_after(&out, bad).contains("fix: correct or unset STEWARD_MEMORY_BUDGET_TOKENS"),
        "{out}"
    );
    // The config error did not stop the run: the model is still probed, with its own fix.
    let unreachable = format!("FAIL provider ollama: cannot reach {url}: is the server running?");
    assert!(out.contains(&unreachable), "{out}");
    assert!(
        line_after(&out, &unreachable).contains("OLLAMA_BASE_URL"),
        "{out}"
    );
    assert!(out.contains("ok   database: sqlite"), "{out}");
}

#[tokio::test]
async fn every_problem_in_the_file_is_reported_and_the_rest_is_checked() {
    let dir = temp_dir();
    config_support::write(
        &dir,
        "steward.toml",
        "modle = \"openai:gpt-4.1-mini\"\nmodel = \"nowhere:m1\"\n[agent]\nmax_rounds = \"many\"\n[http]\naddr = \"not an address\"\n",
    );
    // http.addr from the file, not the tests' free port.
    let (ok, out) = doctor_reporting(&dir, &[("STEWARD_HTTP_ADDR", "")]).await;
    assert!(!ok, "{out}");
    for needle in [
        "FAIL config: ",
        "unknown key `modle`; did you mean `model`?",
        "invalid value for `agent.max_rounds`",
        "invalid value for `http.addr`",
        "uses unknown provider `nowhere`",
    ] {
        assert!(out.contains(needle), "{needle:?} missing from\n{out}");
    }
    assert!(
        line_after(&out, "`modle`").contains("fix: rename it to `model`"),
        "{out}"
    );
    assert!(
        line_after(&out, "unknown provider `nowhere`").contains("[providers.nowhere]"),
        "{out}"
    );
    // The refused model is not reported again as missing, the refused address is not
    // checked at its default, and everything else still is.
    assert!(!out.contains("model: none configured"), "{out}");
    assert!(out.contains("warn http.addr: not checked"), "{out}");
    assert!(!out.contains("http.addr 127.0.0.1:8080"), "{out}");
    assert!(out.contains("ok   database: sqlite"), "{out}");
    assert!(out.contains("mcp: no servers configured"), "{out}");
}

#[tokio::test]
async fn each_bad_mcp_server_is_reported_and_the_good_ones_are_kept() {
    let dir = temp_dir();
    config_support::write(
        &dir,
        "steward.toml",
        "[mcp.servers.bad]\ncommand = \"x\"\ncomand = \"y\"\n\
         [mcp.servers.good]\ncommand = \"z\"\nenabled = false\n\
         [mcp.servers.worse]\ncommand = \"w\"\ntools.t.efect = \"read\"\n\
         [mcp.servers.slow]\ncommand = \"v\"\ntimeout_secs = 0\n",
    );
    let (ok, out) = doctor_reporting(&dir, &[]).await;
    assert!(!ok, "{out}");
    for needle in [
        "unknown key `mcp.servers.bad.comand`",
        "unknown key `mcp.servers.worse.tools.t.efect`",
        "`mcp.servers.slow.timeout_secs`",
        "mcp good: disabled (enabled = false)",
    ] {
        assert!(out.contains(needle), "{needle:?} missing from\n{out}");
    }
    assert!(!out.contains("no servers configured"), "{out}");
    for dropped in ["mcp bad:", "mcp worse:", "mcp slow:"] {
        assert!(!out.contains(dropped), "a bad table is not used: {out}");
    }
}

/// The binary: exit status 1 and both problems on stdout.
#[test]
fn the_doctor_command_exits_non_zero_after_reporting_everything() {
    let dir = temp_dir();
    let url = format!("http://127.0.0.1:{}/v1", unused_port());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_steward"))
        .env_clear()
        .envs(env_for(
            &dir,
            &[
                ("STEWARD_MAX_ROUNDS", "0"),
                ("STEWARD_MODEL", "ollama:llama3.2"),
                ("OLLAMA_BASE_URL", &url),
            ],
        ))
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .current_dir(&dir)
        .arg("doctor")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "FAIL config: invalid value for `agent.max_rounds` from env STEWARD_MAX_ROUNDS"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL provider ollama: cannot reach"),
        "{stdout}"
    );
}
