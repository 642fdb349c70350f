//! The web sign-in end to end with the real binary: `steward user set-password` with the
//! password piped in (and at a terminal, where it is asked twice and never shown), then
//! `steward serve` accepts it; the cookie works on `/api/`, not `/v1/`; a fact written by
//! cookie without the CSRF token does not land; a new password signs every session out at
//! once, even of a running server; a refused password stores nothing. Neither the password
//! nor the cookie reaches the output or the log.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use reqwest::header::{CONTENT_TYPE, COOKIE, SET_COOKIE};
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Output, Stdio};
use support::pty::Pty;
use support::*;

const FIRST: &str = "correct horse battery staple";
const SECOND: &str = "a second, longer pass phrase";

/// `steward user set-password` on `dir` with `input` piped to its standard input.
fn set_password(dir: &TempDir, input: &str) -> Output {
    let mut cmd = base_command(dir.path());
    cmd.args(["user", "set-password"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn serve(dir: &TempDir) -> Server {
    let mut cmd = base_command(dir.path());
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_EMBEDDER", "none");
    start_server(cmd)
}

/// Signs in with `password`: the status, and the cookie value and CSRF token on success.
async fn sign_in(srv: &Server, password: &str) -> (u16, Option<(String, String)>) {
    let resp = client()
        .post(srv.url("/api/v1/session"))
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let cookie = resp
        .headers()
        .get(SET_COOKIE)
        .map(|v| v.to_str().unwrap().to_owned());
    let body: Value = resp.json().await.unwrap();
    let signed_in = cookie.map(|c| {
        assert!(
            c.ends_with("; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000"),
            "{c}"
        );
        let value = c["steward_session=".len()..].split(';').next().unwrap();
        (
            value.to_owned(),
            body["csrf_token"].as_str().unwrap().to_owned(),
        )
    });
    (status, signed_in)
}

async fn with_cookie(
    srv: &Server,
    method: reqwest::Method,
    path: &str,
    cookie: &str,
    csrf: Option<&str>,
    body: Option<Value>,
) -> reqwest::Response {
    let mut req = client()
        .request(method, srv.url(path))
        .header(COOKIE, format!("steward_session={cookie}"));
    if let Some(csrf) = csrf {
        req = req.header("x-csrf-token", csrf);
    }
    if let Some(body) = body {
        req = req
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
    }
    req.send().await.unwrap()
}

async fn fact_keys(srv: &Server) -> Vec<String> {
    let body: Value = client()
        .get(srv.url("/api/v1/facts"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_piped_password_signs_in_to_the_served_app_and_a_new_one_signs_everyone_out() {
    let dir = TempDir::new("web-sign-in");
    let out = set_password(&dir, &format!("{FIRST}\n"));
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Password set"), "{}", text(&out));
    assert!(!text(&out).contains(FIRST), "the password is never echoed");

    let srv = serve(&dir);
    let (status, _) = sign_in(&srv, "not the password at all").await;
    assert_eq!(status, 401);
    let (status, session) = sign_in(&srv, FIRST).await;
    assert_eq!(status, 200);
    let (cookie, csrf) = session.unwrap();

    let resp = with_cookie(
        &srv,
        reqwest::Method::GET,
        "/api/v1/conversations",
        &cookie,
        None,
        None,
    )
    .await;
    assert_eq!(resp.status(), 200);
    let resp = with_cookie(
        &srv,
        reqwest::Method::GET,
        "/v1/models",
        &cookie,
        None,
        None,
    )
    .await;
    assert_eq!(resp.status(), 401, "the OpenAI API stays bearer-only");

    // A fact written by cookie: without the CSRF token it does not land.
    let fact = Some(json!({"value": "Lisbon"}));
    let path = "/api/v1/facts/home.city";
    let resp = with_cookie(
        &srv,
        reqwest::Method::PUT,
        path,
        &cookie,
        None,
        fact.clone(),
    )
    .await;
    assert_eq!(resp.status(), 403);
    let err: Value = resp.json().await.unwrap();
    assert_eq!(err["error"]["kind"], "csrf");
    assert!(
        fact_keys(&srv).await.is_empty(),
        "the refused write did not land"
    );
    let resp = with_cookie(&srv, reqwest::Method::PUT, path, &cookie, Some(&csrf), fact).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(fact_keys(&srv).await, ["home.city"]);

    // A new password while the server runs: the old session and password stop working.
    let out = set_password(&dir, &format!("{SECOND}\r\n"));
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Signed out 1 web session"),
        "{}",
        text(&out)
    );
    let resp = with_cookie(
        &srv,
        reqwest::Method::GET,
        "/api/v1/conversations",
        &cookie,
        None,
        None,
    )
    .await;
    assert_eq!(resp.status(), 401, "signed out by the new password");
    assert_eq!(sign_in(&srv, FIRST).await.0, 401);
    let (status, again) = sign_in(&srv, SECOND).await;
    assert_eq!(status, 200);
    let logs = srv.stderr_text();
    for secret in [
        FIRST,
        SECOND,
        cookie.as_str(),
        csrf.as_str(),
        again.unwrap().0.as_str(),
    ] {
        assert!(!logs.contains(secret), "{secret} in the log:\n{logs}");
    }
    assert!(logs.contains("signed in"), "{logs}");
}

fn stored_password(dir: &TempDir) -> Option<String> {
    let path = dir.path().join("steward.db");
    if !path.exists() {
        return None;
    }
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(
        "SELECT value FROM kv WHERE key = 'auth.password'",
        [],
        |r| r.get(0),
    )
    .ok()
}

#[test]
fn a_password_against_the_rule_is_refused_clearly_and_nothing_is_stored() {
    let dir = TempDir::new("web-short-password");
    for (input, says) in [
        ("short one\n", "at least 12 characters"),
        (
            " leading space password\n",
            "must not start or end with a space",
        ),
        ("", "no password on standard input"),
        ("\n", "no password on standard input"),
    ] {
        let out = set_password(&dir, input);
        assert!(!out.status.success(), "{input:?} was accepted");
        let shown = text(&out);
        assert!(shown.contains(says), "{input:?}: {shown}");
        assert!(shown.contains("error:"), "{shown}");
        assert_eq!(stored_password(&dir), None, "{input:?} stored something");
    }
    let long = format!("{}\n", "a".repeat(2000));
    let out = set_password(&dir, &long);
    assert!(text(&out).contains("at most 1024 bytes"), "{}", text(&out));
    assert_eq!(stored_password(&dir), None);
}

#[test]
fn at_a_terminal_the_password_is_asked_twice_and_never_shown() {
    let dir = TempDir::new("web-tty-password");
    let mut cmd = base_command(dir.path());
    cmd.args(["user", "set-password"]);
    let mut pty = Pty::spawn(cmd);
    pty.wait_for("New web sign-in password:", 1);
    pty.type_line("typed at the terminal");
    pty.wait_for("Type it again:", 1);
    pty.type_line("typed at the terminal, but not the same");
    let status = wait_timeout(&mut pty.child, std::time::Duration::from_secs(30)).unwrap();
    assert!(!status.success());
    let screen = pty.wait_for("differ", 1);
    assert!(
        !screen.contains("typed at the terminal"),
        "echoed:\n{screen}"
    );
    assert_eq!(stored_password(&dir), None, "a mismatch stores nothing");

    let mut cmd = base_command(dir.path());
    cmd.args(["user", "set-password"]);
    let mut pty = Pty::spawn(cmd);
    pty.wait_for("New web sign-in password:", 1);
    pty.type_line(FIRST);
    pty.wait_for("Type it again:", 1);
    pty.type_line(FIRST);
    let screen = pty.wait_for("Password set", 1);
    let status = wait_timeout(&mut pty.child, std::time::Duration::from_secs(30)).unwrap();
    assert!(status.success(), "{screen}");
    assert!(!screen.contains(FIRST), "echoed:\n{screen}");
    let phc = stored_password(&dir).unwrap();
    assert!(phc.starts_with("$argon2id$"), "only the hash is kept");
    assert!(!phc.contains(FIRST));
}
