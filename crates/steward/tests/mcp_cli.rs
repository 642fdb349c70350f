//! `steward mcp list` and `steward mcp test NAME` against a configuration with a working
//! server (the real server-everything from npm), a broken one and a disabled one.

mod support;

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
