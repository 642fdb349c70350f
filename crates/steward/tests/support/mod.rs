//! Starts the real `steward` binary as a user would, against the fake model server.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub mod pty;
pub mod telegram;

pub const TOKEN: &str = "test-token-0123456789abcdef";
/// The provider key every test server gets (`with_fake_model`); no output may show it.
pub const PROVIDER_KEY: &str = "sk-e2e-secret-value";

pub fn steward_bin() -> &'static str {
    env!("CARGO_BIN_EXE_steward")
}

/// A fresh data directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = std::env::temp_dir().join(format!("steward-e2e-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A clean environment: nothing from the developer's shell leaks into the test.
pub fn base_command(data_dir: &Path) -> Command {
    let mut cmd = Command::new(steward_bin());
    clean_env(&mut cmd, data_dir);
    cmd
}

/// [`base_command`] run under `prlimit --nofile=N:N` (util-linux): the process cannot open
/// more than `nofile` file descriptors, and cannot raise the limit.
pub fn fd_limited_command(data_dir: &Path, nofile: u32) -> Command {
    let prlimit = ["/usr/bin/prlimit", "/bin/prlimit"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("prlimit (util-linux) is needed to start steward under a file-descriptor limit");
    let mut cmd = Command::new(prlimit);
    cmd.arg(format!("--nofile={nofile}:{nofile}"))
        .arg("--")
        .arg(steward_bin());
    clean_env(&mut cmd, data_dir);
    cmd
}

fn clean_env(cmd: &mut Command, data_dir: &Path) {
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", data_dir)
        .env("STEWARD_DATA_DIR", data_dir)
        .env("STEWARD_LOG", "debug")
        // Extraction is one more model call per turn; tests that script the fake model turn
        // it on explicitly.
        .env("STEWARD_MEMORY_EXTRACT", "false")
        .current_dir(data_dir);
}

pub fn with_fake_model(cmd: &mut Command, openai_base: &str, model: &str) {
    cmd.env("STEWARD_MODEL", model)
        .env("OPENAI_API_KEY", PROVIDER_KEY)
        .env("OPENAI_BASE_URL", openai_base);
}

pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    pub stderr: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn stderr_text(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }

    /// SIGTERM, then wait for the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id() as i32;
        unsafe_kill(pid);
        wait_timeout(&mut self.child, Duration::from_secs(30))
            .expect("steward did not exit after SIGTERM")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unsafe_kill(pid: i32) {
    // `kill` from the shell keeps the tests free of libc bindings.
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status();
}

pub fn wait_timeout(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// Start `steward serve` on a free port and wait until it says it is listening.
pub fn start_server(mut cmd: Command) -> Server {
    cmd.arg("serve")
        .env("STEWARD_HTTP_ADDR", "127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn steward");
    let stderr = child.stderr.take().unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    let sink = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let addr = rest.split_whitespace().next().unwrap_or("").to_owned();
                let _ = tx.send(addr);
            }
            sink.lock().unwrap().push(line);
        }
    });
    let addr = match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(a) => a.parse().expect("address"),
        Err(_) => {
            let _ = child.kill();
            panic!(
                "steward serve did not start: {}",
                lines.lock().unwrap().join("\n")
            );
        }
    };
    Server {
        child,
        addr,
        stderr: lines,
    }
}

pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().build().unwrap()
}

/// The entry script of the npm `server-everything` installed by scripts/mcp-test-servers.sh
/// (scripts/test runs it); a clear failure, never a skip, when it is missing.
pub fn everything_js() -> String {
    let dir = std::env::var_os("STEWARD_TEST_MCP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/mcp-servers")
        });
    let js = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        js.is_file(),
        "the MCP test servers are not installed in {} — run scripts/mcp-test-servers.sh (scripts/test does)",
        dir.display()
    );
    js.to_string_lossy().into_owned()
}

/// The Python of the virtual environment scripts/py-test-clients.sh made (scripts/test runs
/// it), holding the official `openai` SDK; a clear failure, never a skip, when it is missing.
pub fn sdk_python() -> PathBuf {
    let dir = std::env::var_os("STEWARD_TEST_PY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/py-clients")
        });
    let python = dir.join("bin/python");
    assert!(
        python.is_file() && dir.join(".installed").is_file(),
        "the Python test clients are not installed in {} — run scripts/py-test-clients.sh (scripts/test does)",
        dir.display()
    );
    python
}

/// `POST /api/v1/messages` with the test token, an optional `Idempotency-Key`; status and body.
pub async fn post_message_keyed(
    srv: &Server,
    key: Option<&str>,
    conv: &str,
    text: &str,
) -> (u16, serde_json::Value) {
    let mut req = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({"conversation_id": conv, "text": text}));
    if let Some(key) = key {
        req = req.header("idempotency-key", key);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap())
}

/// `steward serve` with the fake model bound and the test token; `env` on top.
pub fn serve_with_fake(dir: &TempDir, fake_base: &str, env: &[(&str, &str)]) -> Server {
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, fake_base, "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN);
    for (k, v) in env {
        cmd.env(k, v);
    }
    start_server(cmd)
}
