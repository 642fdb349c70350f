//! Benchmark: the web app's page weight and speed in Chromium (issue #11).
//!
//! Run with `cargo bench -p steward --bench web_page`. It starts the in-process fake model
//! (instant replies: it starts answering at once, no pacing) and the real `steward serve`
//! against it, then runs `benches/web_page.mjs` with Node, which drives Debian's Chromium
//! through `playwright-core` (installed by scripts/browser-test-deps.sh, like the browser
//! tests) and reports:
//! - the first load's bytes on the wire (compressed), uncached, signed out and signed in;
//! - the time from pressing Enter to the first streamed character painted, p50/p90 over
//!   `BENCH_TURNS` turns (default 20).
//!
//! Targets: first load ≤ 150 KB compressed; first character ≤ 50 ms. This prints numbers; it
//! does not fail on a noisy machine. It fails with a clear message when node, Chromium or the
//! npm packages are missing.

// Bench helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use steward_testkit::FakeModel;

const TOKEN: &str = "bench-token-0123456789abcdef";
const TARGET_BYTES: f64 = 150.0 * 1024.0;
const TARGET_FIRST_CHAR_MS: f64 = 50.0;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn spawn_steward(data_dir: &Path, openai_base: &str, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_steward"))
        .arg("serve")
        .env_clear()
        .env("HOME", data_dir)
        .env("STEWARD_DATA_DIR", data_dir)
        .env("STEWARD_HTTP_ADDR", format!("127.0.0.1:{port}"))
        .env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_MODEL", "openai:bench")
        .env("OPENAI_API_KEY", "sk-bench")
        .env("OPENAI_BASE_URL", openai_base)
        .env("STEWARD_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn steward")
}

fn wait_ready(port: u16, child: &mut Child) {
    use std::io::{Read, Write};
    let start = Instant::now();
    loop {
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port))
            && s.write_all(b"GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
                .is_ok()
        {
            let mut buf = Vec::new();
            let _ = s.read_to_end(&mut buf);
            if buf.starts_with(b"HTTP/1.1 200") {
                return;
            }
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("steward did not become ready");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn main() {
    const FIX: &str = "run scripts/browser-test-deps.sh";
    let node = which("node").unwrap_or_else(|| panic!("node is not on PATH; {FIX}"));
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        chromium.is_file(),
        "no Chromium at {}; {FIX}",
        chromium.display()
    );
    let deps = std::env::var_os("STEWARD_TEST_BROWSER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/browser-tests")
        });
    assert!(
        deps.join("node_modules/playwright-core/index.mjs")
            .is_file(),
        "playwright-core is missing in {}; {FIX}",
        deps.display()
    );
    let turns: usize = std::env::var("BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);

    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let fake = rt.block_on(FakeModel::start()).unwrap();
    let data_dir = std::env::temp_dir().join(format!("steward-web-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data_dir);
    std::fs::create_dir_all(&data_dir).unwrap();
    let port = free_port();
    let mut child = spawn_steward(&data_dir, &fake.openai_base_url(), port);
    wait_ready(port, &mut child);

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/web_page.mjs");
    let out = Command::new(&node)
        .arg(&script)
        .env("STEWARD_URL", format!("http://127.0.0.1:{port}"))
        .env("STEWARD_TOKEN", TOKEN)
        .env("CHROMIUM", &chromium)
        .env("STEWARD_TEST_BROWSER_DIR", &deps)
        .env("BENCH_TURNS", turns.to_string())
        .stderr(Stdio::inherit())
        .output()
        .expect("run node");
    stop(child);
    let _ = std::fs::remove_dir_all(&data_dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the Node script failed:\n{stdout}");
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .expect("a JSON line");
    let report: Value = serde_json::from_str(line).unwrap();

    let load = |which: &str| {
        let l = &report["first_load"][which];
        (
            l["bytes"].as_f64().unwrap_or(0.0),
            l["requests"].as_u64().unwrap_or(0),
        )
    };
    let (out_bytes, out_reqs) = load("signed_out");
    let (in_bytes, in_reqs) = load("signed_in");
    let mut times: Vec<f64> = report["first_char_ms"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    times.sort_by(f64::total_cmp);
    let (p50, p90) = (percentile(&times, 0.5), percentile(&times, 0.9));

    println!(
        "steward web page benchmark ({} turns, instant fake model, Chromium)",
        times.len()
    );
    println!("| measure | value | target | value / target |");
    println!("|---|---|---|---|");
    for (name, bytes, reqs) in [
        ("first load, signed out (sign-in page)", out_bytes, out_reqs),
        ("first load, signed in (chat page)", in_bytes, in_reqs),
    ] {
        println!(
            "| {name}, compressed, {reqs} requests | {:.1} KB | ≤ 150 KB | {:.2} |",
            bytes / 1024.0,
            bytes / TARGET_BYTES
        );
    }
    for (name, v) in [("p50", p50), ("p90", p90)] {
        println!(
            "| Enter → first streamed character painted, {name} | {v:.1} ms | ≤ 50 ms | {:.2} |",
            v / TARGET_FIRST_CHAR_MS
        );
    }
}
