//! The web app in a real browser: starts the fake model (in process, scripted by the Node tests
//! over its `/_fake/*` control routes) and the real `steward serve` against it, then runs every
//! `tests/browser/*.test.mjs` with Node's test runner, which drives Debian's Chromium through
//! `playwright-core` and checks each page with `axe-core`. Fails with Node's output when any
//! browser test fails — and fails, never skips, when node, Chromium or the npm packages are
//! missing (scripts/browser-test-deps.sh installs them; scripts/test runs it).
//!
//! Screenshots (each page at desktop and phone width, light and dark), the page weight of the
//! first load (`page-weight.json`) and Node's output (`node-output.txt`) are written to
//! `<target>/tmp/browser-screenshots/`.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;
use steward_protocol::ConversationId;
use steward_testkit::FakeModel;
use steward_testkit::pinning::{PINNED_CARD, PINNED_TEXT, PINNED_TOOLS, pinning_turn};
use support::*;
use tokio::process::Command;

/// The Telegram user the Mini App's tests act as (on the allowlist).
const MINI_APP_USER: &str = "1001";

/// Longest the whole Node run may take (Chromium starts once per file).
const NODE_DEADLINE: Duration = Duration::from_secs(600);

/// What the Node tests need, each checked: a clear failure naming the fix, never a skip.
struct BrowserDeps {
    node: PathBuf,
    chromium: PathBuf,
    dir: PathBuf,
}

fn browser_deps() -> BrowserDeps {
    const FIX: &str = "run scripts/browser-test-deps.sh (scripts/test does)";
    let node = which("node").unwrap_or_else(|| panic!("node is not on PATH; {FIX}"));
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        chromium.is_file(),
        "Chromium is missing at {}; {FIX}",
        chromium.display()
    );
    let dir = std::env::var_os("STEWARD_TEST_BROWSER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/browser-tests")
        });
    for file in [
        "node_modules/playwright-core/index.mjs",
        "node_modules/axe-core/axe.min.js",
        "node_modules/@telegram-apps/init-data-node/package.json",
    ] {
        assert!(
            dir.join(file).is_file(),
            "{file} is missing in {}; {FIX}",
            dir.display()
        );
    }
    BrowserDeps {
        node,
        chromium,
        dir,
    }
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// The test files, in name order.
fn test_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "browser tests missing in {}",
        dir.display()
    );
    files
}

/// steward-testkit's pinning turn as the server serialises it, with what it must fold to.
fn write_pinning(dir: &Path) -> PathBuf {
    let conversation = ConversationId::parse("pinned").unwrap();
    let tools: Vec<_> = PINNED_TOOLS
        .iter()
        .map(|(name, ok, touched)| json!([name, ok, touched]))
        .collect();
    let doc = json!({
        "events": pinning_turn(&conversation),
        "text": PINNED_TEXT,
        "tools": tools,
        "card": PINNED_CARD,
    });
    let path = dir.join("pinning.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-screenshots");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn the_web_app_works_in_chromium() {
    let deps = browser_deps();
    let files = test_files();
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("browser");
    // The Telegram surface is on too, against the fake Bot API: the Mini App's tests sign
    // initData with the bot's token for the allowlisted user.
    let bot = steward_testkit::telegram::FakeBotApi::start()
        .await
        .unwrap();
    let srv = serve_with_fake(
        &dir,
        &fake.openai_base_url(),
        &[
            ("STEWARD_SQL_ALLOW_DDL", "true"),
            ("TELEGRAM_BOT_TOKEN", steward_testkit::telegram::TOKEN),
            ("STEWARD_TELEGRAM_API_BASE_URL", &bot.base),
            ("STEWARD_TELEGRAM_ALLOWED_USERS", MINI_APP_USER),
        ],
    );
    let shots = screenshot_dir();
    let pinning = write_pinning(dir.path());

    let mut cmd = Command::new(&deps.node);
    cmd.arg("--experimental-detect-module")
        .arg("--test")
        .arg("--test-concurrency=1")
        .arg("--test-reporter=spec")
        .args(&files)
        .env("STEWARD_URL", format!("http://{}", srv.addr))
        .env("STEWARD_TOKEN", TOKEN)
        .env("PROVIDER_KEY", PROVIDER_KEY)
        .env("FAKE_URL", fake.base_url())
        .env("CHROMIUM", &deps.chromium)
        .env("STEWARD_TEST_BROWSER_DIR", &deps.dir)
        .env("SCREENSHOT_DIR", &shots)
        .env("PINNING_JSON", &pinning)
        .env("TG_BOT_TOKEN", steward_testkit::telegram::TOKEN)
        .env("TG_USER", MINI_APP_USER)
        .kill_on_drop(true);
    let out = tokio::time::timeout(NODE_DEADLINE, cmd.output())
        .await
        .expect("the browser tests did not finish within 10 minutes")
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let _ = std::fs::write(shots.join("node-output.txt"), format!("{stdout}\n{stderr}"));
    println!("{stdout}");
    assert!(
        out.status.success(),
        "browser tests failed ({}):\n{stdout}\n{stderr}\n--- steward serve (last lines) ---\n{}",
        out.status,
        tail(&srv.stderr_text(), 60)
    );
    // The run did test something: every file reported, none skipped or left to do.
    for marker in ["ℹ fail 0", "ℹ cancelled 0", "ℹ skipped 0", "ℹ todo 0"] {
        assert!(stdout.contains(marker), "{marker} missing:\n{stdout}");
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
