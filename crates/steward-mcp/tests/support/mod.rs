//! Shared by the MCP tests: where the npm test servers are (installed by
//! scripts/mcp-test-servers.sh; a missing install fails loudly, never skips), specs for them,
//! and waiting helpers.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use steward_mcp::{McpManager, ServerSpec, ServerStatus, Transport};
use steward_protocol::ConversationId;
use steward_tools::{Tool, ToolContext};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The directory holding node_modules with the pinned MCP servers.
pub fn servers_dir() -> PathBuf {
    let dir = std::env::var_os("STEWARD_TEST_MCP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/mcp-servers"));
    let marker = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        marker.is_file(),
        "the MCP test servers are not installed in {} — run scripts/mcp-test-servers.sh (scripts/test does)",
        dir.display()
    );
    dir
}

pub fn node() -> String {
    let ok = std::process::Command::new("node")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "node is not installed; the MCP tests need Node.js >= 18"
    );
    "node".to_owned()
}

pub fn everything_js() -> String {
    servers_dir()
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .to_string_lossy()
        .into_owned()
}

/// The deliberately misbehaving server (tests/fixtures/hostile-server.mjs).
pub fn hostile_js() -> String {
    repo_root()
        .join("crates/steward-mcp/tests/fixtures/hostile-server.mjs")
        .to_string_lossy()
        .into_owned()
}

pub fn stdio_spec(name: &str, args: Vec<String>) -> ServerSpec {
    let mut spec = ServerSpec::new(
        name,
        Transport::Stdio {
            command: node(),
            args,
            env: BTreeMap::new(),
        },
    );
    spec.timeout = Duration::from_secs(20);
    spec
}

pub fn everything_stdio() -> ServerSpec {
    stdio_spec("everything", vec![everything_js(), "stdio".to_owned()])
}

pub fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    )
}

/// Poll until `pred` holds for the server's status, or panic after `limit`.
pub async fn wait_for(
    mgr: &McpManager,
    name: &str,
    limit: Duration,
    what: &str,
    pred: impl Fn(&ServerStatus) -> bool,
) -> ServerStatus {
    let started = Instant::now();
    loop {
        let st = mgr.server(name).unwrap().status();
        if pred(&st) {
            return st;
        }
        assert!(
            started.elapsed() < limit,
            "timed out waiting for {what}; last status: {:?}",
            st.status
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn connected(mgr: &McpManager, name: &str) -> ServerStatus {
    wait_for(mgr, name, Duration::from_secs(30), "a connection", |s| {
        s.is_connected() && !s.tools.is_empty()
    })
    .await
}

/// The named tool from the server's source, as the registry would get it.
pub fn tool(mgr: &McpManager, server: &str, name: &str) -> Arc<dyn Tool> {
    let h = mgr.server(server).unwrap();
    let source = mgr
        .sources()
        .into_iter()
        .find(|s| s.label() == format!("mcp:{}", h.name()))
        .unwrap();
    source
        .tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| {
            let names: Vec<String> = source.tools().iter().map(|t| t.name().to_owned()).collect();
            panic!("no tool {name}; have {names:?}")
        })
}

pub fn args(v: Value) -> Value {
    v
}

pub fn empty() -> Value {
    json!({})
}

pub fn kill(pid: u32) {
    let st = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success(), "kill -9 {pid} failed");
}

/// A free TCP port on 127.0.0.1 (bound then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// server-everything over streamable HTTP on `port`, killed on drop.
pub struct HttpEverything {
    pub child: std::process::Child,
    pub port: u16,
}

impl HttpEverything {
    pub fn start(port: u16) -> HttpEverything {
        let child = std::process::Command::new(node())
            .arg(everything_js())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "server-everything did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        HttpEverything { child, port }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        self.kill();
    }
}
