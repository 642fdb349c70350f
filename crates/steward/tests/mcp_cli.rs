//! `steward mcp list` and `steward mcp test NAME` against a configuration with a working
//! server (the real server-everything from npm), a broken one and a disabled one.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::path::PathBuf;
use support::{TempDir, base_command, everything_js};

const SECRET: &str = "everything-env-secret-0123";

fn config(dir: &TempDir) -> PathBuf {
    let path = dir.path().join("steward.toml");
    let text = format!(
        "[mcp.servers.everything]\ncommand = \"node\"\nargs = [{js:?}, \"stdio\"]\n\
         env = {{ EVERYTHING_TOKEN = \"${{EVERY_SECRET}}\" }}\ntools.echo.effect = \"external\"\n\
         trust_annotations = true\n\n\
         [mcp.servers.broken]\ncommand = \"/nonexistent/mcp-server\"\ntimeout_secs = 5\n\n\
         [mcp.servers.off]\nurl = \"http://127.0.0.1:9/mcp\"\nenabled = false\n",
        js = everything_js()
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn run(dir: &TempDir, args: &[&str]) -> (i32, String, String) {
    let out = base_command(dir.path())
        .env("EVERY_SECRET", SECRET)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !stdout.contains(SECRET) && !stderr.contains(SECRET),
        "secret leaked"
    );
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

#[test]
fn list_shows_every_server_with_its_status_and_tools() {
    let dir = TempDir::new("mcp-list");
    config(&dir);
    let (code, out, err) = run(&dir, &["mcp", "list"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("everything  stdio  node "), "{out}");
    assert!(out.contains("status: ok (connected in"), "{out}");
    assert!(
        out.contains(
            "everything__get_sum  [read]  [mcp:everything] Returns the sum of two numbers"
        ),
        "{out}"
    );
    assert!(
        out.contains("everything__echo  [external]"),
        "override shown: {out}"
    );
    assert!(
        out.contains("broken  stdio  /nonexistent/mcp-server"),
        "{out}"
    );
    assert!(out.contains("status: failed after"), "{out}");
    assert!(
        out.contains("cannot start `/nonexistent/mcp-server`"),
        "{out}"
    );
    assert!(
        out.contains("off  http  http://127.0.0.1:9/mcp\n  status: disabled"),
        "{out}"
    );
}

#[test]
fn test_reports_success_failure_and_unknown_names() {
    let dir = TempDir::new("mcp-test");
    config(&dir);
    let (code, out, err) = run(&dir, &["mcp", "test", "everything"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("status: ok (connected in"), "{out}");
    assert!(out.contains("tools ("), "{out}");

    let (code, out, _) = run(&dir, &["mcp", "test", "broken"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("status: failed after"), "{out}");
    assert!(out.contains("steward mcp test broken"), "{out}");

    let (code, _, err) = run(&dir, &["mcp", "test", "nope"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no MCP server named `nope`; configured: broken, everything, off"),
        "{err}"
    );
}

#[test]
fn no_servers_configured_says_how_to_add_one() {
    let dir = TempDir::new("mcp-none");
    let (code, out, _) = run(&dir, &["mcp", "list"]);
    assert_eq!(code, 0);
    assert!(out.contains("No MCP servers configured"), "{out}");
}

/// server-everything over streamable HTTP on a free port, killed on drop.
struct HttpServer(std::process::Child, u16);

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http_server() -> HttpServer {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new("node")
        .arg(everything_js())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no listener"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    HttpServer(child, port)
}

#[test]
fn http_server_headers_stay_secret_even_in_debug_logs() {
    let server = http_server();
    let dir = TempDir::new("mcp-http-cli");
    std::fs::write(
        dir.path().join("steward.toml"),
        format!(
            "[mcp.servers.remote]\nurl = \"http://127.0.0.1:{}/mcp?key=${{EVERY_SECRET}}\"\n\
             headers = {{ Authorization = \"Bearer ${{EVERY_SECRET}}\" }}\n",
            server.1
        ),
    )
    .unwrap();
    // base_command logs at debug level; `run` asserts the secret is in neither stream.
    let (code, out, err) = run(&dir, &["mcp", "test", "remote"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains(&format!(
            "remote  http  http://127.0.0.1:{}/mcp?key=…",
            server.1
        )),
        "{out}"
    );
    assert!(out.contains("remote__echo"), "{out}");
    let (code, out, _) = run(&dir, &["config", "show"]);
    assert_eq!(code, 0);
    assert!(out.contains("mcp.servers.remote"), "{out}");
}

#[test]
fn doctor_reports_each_mcp_server() {
    let dir = TempDir::new("mcp-doctor");
    config(&dir);
    let (_code, out, err) = run(&dir, &["doctor"]);
    let all = format!("{out}{err}");
    assert!(all.contains("mcp everything: ok, "), "{all}");
    assert!(all.contains("mcp broken: not working: "), "{all}");
    assert!(all.contains("steward mcp test broken"), "{all}");
    assert!(all.contains("mcp off: disabled (enabled = false)"), "{all}");
}

const URL_KEY: &str = "url-api-key-canary-5a9e31";

/// Every file under `dir` (logs a command may write), as text.
fn files_text(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.push_str(&String::from_utf8_lossy(&bytes));
            }
        }
    }
    out
}

/// A server URL holding a key (`?api_key=${KEY}`) while nothing listens there: the key is in
/// no output of `mcp list`, `mcp test`, `doctor` or `serve` (stdout, stderr, files in the
/// data directory), even with dependencies logging at debug level and rmcp's own error log
/// quoting the failing request's URL on every reconnect; each says plainly what is wrong.
#[test]
fn a_key_in_a_server_url_appears_in_no_output_while_the_server_refuses() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = TempDir::new("mcp-url-key");
    std::fs::write(
        dir.path().join("steward.toml"),
        format!(
            "[mcp.servers.leaky]\nurl = \"http://127.0.0.1:{port}/mcp?api_key=${{LEAK_KEY}}\"\ntimeout_secs = 5\n"
        ),
    )
    .unwrap();
    let refused = format!(
        "could not connect to 127.0.0.1:{port} (connection refused) — is the server running?"
    );
    let command = || {
        let mut cmd = base_command(dir.path());
        cmd.env("LEAK_KEY", URL_KEY).env(
            "STEWARD_LOG",
            "debug,rmcp=trace,reqwest=debug,hyper_util=debug",
        );
        cmd
    };
    for args in [&["mcp", "list"][..], &["mcp", "test", "leaky"], &["doctor"]] {
        let out = command().args(args).output().unwrap();
        let all = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!all.contains(URL_KEY), "{args:?} leaked the key:\n{all}");
        assert!(all.contains(&refused), "{args:?}:\n{all}");
        if args[0] == "mcp" {
            assert!(
                all.contains(&format!(
                    "leaky  http  http://127.0.0.1:{port}/mcp?api_key=…"
                )),
                "{args:?}:\n{all}"
            );
        }
    }

    // serve: long enough for a few reconnect attempts (0.5 s, 1 s, 2 s backoff).
    let srv = support::start_server(command());
    let started = std::time::Instant::now();
    while srv.stderr_text().matches(&refused).count() < 3 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "no reconnects seen:\n{}",
            srv.stderr_text()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let stderr = srv.stderr_text();
    let status = srv.terminate();
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains(URL_KEY), "serve leaked the key:\n{stderr}");
    assert!(
        !files_text(dir.path()).contains(URL_KEY),
        "a file in the data directory holds the key"
    );
}

/// `doctor` names an override for a tool the server does not have.
#[test]
fn doctor_reports_an_override_naming_no_tool() {
    let dir = TempDir::new("mcp-doctor-override");
    std::fs::write(
        dir.path().join("steward.toml"),
        format!(
            "[mcp.servers.everything]\ncommand = \"node\"\nargs = [{js:?}, \"stdio\"]\n\
             tools.echo.effect = \"external\"\ntools.ecko.effect = \"read\"\n",
            js = everything_js()
        ),
    )
    .unwrap();
    let (_code, out, _err) = run(&dir, &["doctor"]);
    assert!(
        out.contains(
            "warn mcp everything: [mcp.servers.everything] tools.ecko.effect names no tool of this server"
        ),
        "{out}"
    );
    assert!(
        !out.contains("tools.echo.effect names no tool"),
        "echo exists: {out}"
    );
    assert!(out.contains("ok   mcp everything: ok, "), "{out}");
}
