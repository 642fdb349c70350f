//! The approval gate through the real binary: a consequential tool call becomes a pending
//! card over the API, confirm (of the revision shown) runs it once, the agent's follow-up
//! arrives in the same conversation; a crash after confirm never runs the action again, and
//! one while it runs is reported as "interrupted — it may have run".

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{Value, json};
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

/// The crash tests arm failpoints in the binary; a build without them would make the tests
/// pass or fail for the wrong reason, so they refuse to run and say why.
fn require_failpoints() {
    assert!(
        steward_core::approvals::failpoints_built_in(),
        "this steward binary has no failpoints: build the tests with steward-core's feature          `failpoints` (steward's dev-dependency turns it on for `cargo test`; scripts/test runs it)"
    );
}

fn serve(dir: &TempDir, fake: &FakeModel, extra: &[(&str, &str)]) -> Server {
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("STEWARD_SQL_ALLOW_DDL", "true");
    for (k, v) in extra {
        cmd.env(k, v);
    }
    start_server(cmd)
}

async fn send(srv: &Server, conv: &str, text: &str) -> Value {
    let resp = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": conv, "text": text}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    resp.json().await.unwrap()
}

/// Confirm the card at `revision`, as a client that displayed it does.
async fn confirm(srv: &Server, id: &str, revision: u32) -> reqwest::Result<reqwest::Response> {
    client()
        .post(srv.url(&format!("/api/v1/approvals/{id}/confirm")))
        .bearer_auth(TOKEN)
        .json(&json!({ "revision": revision }))
        .send()
        .await
}

fn rows(dir: &TempDir, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A turn in which the model asks for `db_execute` with `sql` and the API returns its card.
async fn park_sql(srv: &Server, fake: &FakeModel, conv: &str, text: &str, sql: &str) -> String {
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        &json!({ "sql": sql }).to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Approve?")));
    let body = send(srv, conv, text).await;
    body["approvals"][0]["action_id"]
        .as_str()
        .expect("a card")
        .to_owned()
}

async fn get_json(srv: &Server, path: &str) -> Value {
    client()
        .get(srv.url(path))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn get_action(srv: &Server, id: &str) -> Value {
    get_json(srv, &format!("/api/v1/approvals/{id}")).await
}

/// Create the `visits` table through the gate (DDL is allowed in these tests).
async fn create_table(srv: &Server, fake: &FakeModel) {
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        r#"{"sql":"CREATE TABLE visits (place TEXT)"}"#,
    )));
    fake.push(Step::Reply(Reply::text(
        "I need your approval to create the table.",
    )));
    let body = send(srv, "setup", "make a visits table").await;
    let id = body["approvals"][0]["action_id"]
        .as_str()
        .unwrap()
        .to_owned();
    fake.push(Step::Reply(Reply::text("Table created.")));
    let resp = confirm(srv, &id, 0).await.unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn message_card_confirm_runs_once_and_the_agent_follows_up() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("approve");
    let srv = serve(&dir, &fake, &[]);
    create_table(&srv, &fake).await;

    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        r#"{"sql":"INSERT INTO visits (place) VALUES ('Lisbon')"}"#,
    )));
    fake.push(Step::Reply(Reply::text(
        "Shall I record Lisbon? Please approve.",
    )));
    let body = send(&srv, "trips", "log my visit to Lisbon").await;
    assert_eq!(body["reply"], "Shall I record Lisbon? Please approve.");
    let card = &body["approvals"][0];
    let id = card["action_id"].as_str().unwrap().to_owned();
    assert_eq!(card["tool"], "db_execute");
    assert!(
        card["text"].as_str().unwrap().contains("will affect 1 row"),
        "{card}"
    );
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits"),
        0,
        "nothing ran before approval"
    );

    let pending = get_json(&srv, "/api/v1/approvals?status=pending").await;
    assert!(
        pending["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["action"]["id"] == id.as_str())
    );

    assert_eq!(card["revision"], 0);
    // A confirm that does not say which card it approves is refused; nothing runs.
    let bare = client()
        .post(srv.url(&format!("/api/v1/approvals/{id}/confirm")))
        .bearer_auth(TOKEN)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), 400);
    assert_eq!(rows(&dir, "SELECT count(*) FROM visits"), 0);

    fake.push(Step::Reply(Reply::text("Recorded your visit to Lisbon.")));
    let resp = confirm(&srv, &id, 0).await.unwrap();
    assert_eq!(resp.status(), 200);
    let done: Value = resp.json().await.unwrap();
    assert_eq!(done["action"]["status"], "executed");
    assert_eq!(done["reply"], "Recorded your visit to Lisbon.");
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits"),
        1,
        "ran exactly once"
    );

    // The follow-up turn ran in the same conversation and saw the result.
    let last = fake.requests().last().unwrap().body["messages"].to_string();
    assert!(
        last.contains("log my visit to Lisbon"),
        "same conversation: {last}"
    );
    assert!(last.contains("action_result"));

    // A second confirm is harmless; a cancel now conflicts.
    let again: Value = confirm(&srv, &id, 0).await.unwrap().json().await.unwrap();
    assert_eq!(again["already"], true);
    assert_eq!(rows(&dir, "SELECT count(*) FROM visits"), 1);
    let cancel = client()
        .post(srv.url(&format!("/api/v1/approvals/{id}/cancel")))
        .bearer_auth(TOKEN)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(cancel.status(), 409);
}

#[tokio::test]
async fn a_crash_between_confirm_and_execute_never_runs_the_action() {
    require_failpoints();
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("crash");
    let srv = serve(&dir, &fake, &[]);
    create_table(&srv, &fake).await;
    let id = park_sql(
        &srv,
        &fake,
        "crashy",
        "log Oslo",
        "INSERT INTO visits (place) VALUES ('Oslo')",
    )
    .await;
    let pending_id = park_sql(
        &srv,
        &fake,
        "crashy2",
        "log Rome",
        "INSERT INTO visits (place) VALUES ('Rome')",
    )
    .await;
    assert!(srv.terminate().success());

    // Restart with the failpoint: the process dies right after confirming.
    let srv = serve(&dir, &fake, &[("STEWARD_TEST_FAILPOINT", "after_confirm")]);
    assert!(
        confirm(&srv, &id, 0).await.is_err(),
        "the server died mid-confirm"
    );
    drop(srv);

    let srv = serve(&dir, &fake, &[]);
    assert!(
        srv.stderr_text().contains("interrupted"),
        "{}",
        srv.stderr_text()
    );
    let got = get_action(&srv, &id).await;
    assert_eq!(got["action"]["status"], "failed");
    assert_interrupted(&got);
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits WHERE place = 'Oslo'"),
        0,
        "never ran"
    );
    // The other action is still pending: a restart approves nothing.
    let other = get_action(&srv, &pending_id).await;
    assert_eq!(other["action"]["status"], "pending");
    // The owner was told in the conversation: the next turn's history carries the notice.
    fake.push(Step::Reply(Reply::text("Sorry about that.")));
    send(&srv, "crashy", "what happened?").await;
    let last = fake.requests().last().unwrap().body["messages"].to_string();
    assert!(last.contains("interrupted — it may have run"), "{last}");
}

/// The record and the owner's notice after a crash: "it may have run", never "not run".
fn assert_interrupted(got: &Value) {
    let outcome = got["action"]["outcome"].as_str().unwrap();
    assert!(
        outcome.starts_with("interrupted — it may have run"),
        "{outcome}"
    );
    assert!(!outcome.contains("not run"), "{outcome}");
}

#[tokio::test]
async fn a_crash_while_the_action_runs_is_reported_as_it_may_have_run() {
    require_failpoints();
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("crash-running");
    let srv = serve(&dir, &fake, &[]);
    create_table(&srv, &fake).await;
    let id = park_sql(
        &srv,
        &fake,
        "midway",
        "log Bergen",
        "INSERT INTO visits (place) VALUES ('Bergen')",
    )
    .await;
    assert!(srv.terminate().success());

    // The process dies after the tool ran and before its result was recorded.
    let srv = serve(&dir, &fake, &[("STEWARD_TEST_FAILPOINT", "while_running")]);
    assert!(
        confirm(&srv, &id, 0).await.is_err(),
        "the server died while the action ran"
    );
    drop(srv);
    assert_eq!(
        rows(
            &dir,
            &format!(
                "SELECT count(*) FROM pending_actions WHERE id = '{id}' AND status = 'running'"
            )
        ),
        1,
        "the crash left it running"
    );
    // It did run: exactly why "not run" would be a lie.
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits WHERE place = 'Bergen'"),
        1
    );

    let srv = serve(&dir, &fake, &[]);
    let got = get_action(&srv, &id).await;
    assert_eq!(got["action"]["status"], "failed");
    assert_interrupted(&got);
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits WHERE place = 'Bergen'"),
        1,
        "not run again"
    );
    fake.push(Step::Reply(Reply::text("It may have gone through.")));
    send(&srv, "midway", "did it work?").await;
    let last = fake.requests().last().unwrap().body["messages"].to_string();
    assert!(last.contains("interrupted — it may have run"), "{last}");
    assert!(!last.contains("was not run"), "{last}");
}

fn chat_with_stdin(
    dir: &std::path::Path,
    fake: &FakeModel,
    args: &[&str],
    stdin: &'static str,
) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut cmd = base_command(dir);
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_SQL_ALLOW_DDL", "true")
        .arg("chat")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn table_exists(dir: &TempDir, name: &str) -> bool {
    rows(
        dir,
        &format!("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '{name}'"),
    ) == 1
}

#[tokio::test]
async fn the_terminal_shows_the_card_and_takes_the_answer_in_place() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("cli-card");
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        r#"{"sql":"CREATE TABLE books (title TEXT)"}"#,
    )));
    fake.push(Step::Reply(Reply::text("Approve creating the table?")));
    fake.push(Step::Reply(Reply::text("The books table is ready.")));
    let f = fake.clone();
    let d = dir.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        chat_with_stdin(&d, &f, &[], "make a books table\ny\n/exit\n")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("approval needed"), "{stderr}");
    assert!(
        stderr.contains("CREATE TABLE books"),
        "the card shows the payload: {stderr}"
    );
    assert!(stdout.contains("The books table is ready."), "{stdout}");
    assert!(table_exists(&dir, "books"));
}

#[tokio::test]
async fn chat_m_without_an_answer_leaves_the_action_pending() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("cli-later");
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        r#"{"sql":"CREATE TABLE later (x)"}"#,
    )));
    fake.push(Step::Reply(Reply::text("Needs approval.")));
    let f = fake.clone();
    let d = dir.path().to_path_buf();
    let out =
        tokio::task::spawn_blocking(move || chat_with_stdin(&d, &f, &["-m", "make a table"], ""))
            .await
            .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Left pending"), "{stderr}");
    assert!(!table_exists(&dir, "later"));
    assert_eq!(
        rows(
            &dir,
            "SELECT count(*) FROM pending_actions WHERE status = 'pending'"
        ),
        1
    );
}

#[tokio::test]
async fn auto_approve_is_an_explicit_terminal_opt_in() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("cli-auto");
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        r#"{"sql":"CREATE TABLE auto (x)"}"#,
    )));
    fake.push(Step::Reply(Reply::text("Created.")));
    let f = fake.clone();
    let d = dir.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        chat_with_stdin(&d, &f, &["--auto-approve", "-m", "make a table"], "")
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(table_exists(&dir, "auto"));
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM pending_actions"),
        0,
        "no card when the user opted in"
    );
}

#[tokio::test]
async fn an_edit_in_words_over_http_revises_the_card_before_it_runs() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("edit");
    let srv = serve(&dir, &fake, &[]);
    create_table(&srv, &fake).await;
    let id = park_sql(
        &srv,
        &fake,
        "edits",
        "log Paris",
        "INSERT INTO visits (place) VALUES ('Paris')",
    )
    .await;

    let resp = client()
        .post(srv.url(&format!("/api/v1/approvals/{id}/edit")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // The model turns the words into new arguments; the tool's validator re-checks them.
    fake.push(Step::Reply(Reply::text(
        r#"{"sql":"INSERT INTO visits (place) VALUES ('Rome')"}"#,
    )));
    let body = send(&srv, "edits", "make it Rome instead").await;
    let card = body["approvals"][0]["text"].as_str().unwrap();
    assert!(card.contains("Rome") && !card.contains("Paris"), "{card}");
    assert_eq!(rows(&dir, "SELECT count(*) FROM visits"), 0);

    // The owner confirms the card shown before the edit (revision 0): refused, with the
    // current card, and nothing runs.
    let stale = confirm(&srv, &id, 0).await.unwrap();
    assert_eq!(stale.status(), 409);
    let stale: Value = stale.json().await.unwrap();
    assert_eq!(stale["error"]["kind"], "stale_card");
    assert_eq!(stale["card"]["revision"], 1);
    assert!(stale["card"]["text"].as_str().unwrap().contains("Rome"));
    assert_eq!(stale["action"]["status"], "pending");
    assert_eq!(rows(&dir, "SELECT count(*) FROM visits"), 0);

    fake.push(Step::Reply(Reply::text("Logged Rome.")));
    let done: Value = confirm(&srv, &id, 1).await.unwrap().json().await.unwrap();
    assert_eq!(done["action"]["status"], "executed");
    assert_eq!(done["action"]["revision"], 1);
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits WHERE place = 'Rome'"),
        1
    );
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits WHERE place = 'Paris'"),
        0
    );
}

#[tokio::test]
async fn a_delete_whose_row_count_changed_after_the_card_is_rolled_back_and_asked_again() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("effect-changed");
    let srv = serve(&dir, &fake, &[]);
    create_table(&srv, &fake).await;
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    conn.execute("INSERT INTO visits VALUES ('Lisbon')", [])
        .unwrap();
    let id = park_sql(
        &srv,
        &fake,
        "trips",
        "forget Lisbon",
        "DELETE FROM visits WHERE place = 'Lisbon'",
    )
    .await;
    assert!(
        get_action(&srv, &id).await["action"]["preview"]
            .as_str()
            .unwrap_or_default()
            .contains("will affect 1 row")
    );
    // After the owner saw "1 row", another Lisbon row arrives.
    conn.execute("INSERT INTO visits VALUES ('Lisbon')", [])
        .unwrap();
    fake.push(Step::Reply(Reply::text("It changed; please look again.")));
    let resp = confirm(&srv, &id, 0).await.unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits"),
        2,
        "nothing was deleted"
    );
    let old = get_action(&srv, &id).await;
    assert_eq!(old["action"]["status"], "failed", "{old}");
    let pending = get_json(&srv, "/api/v1/approvals?status=pending").await;
    let fresh: Vec<&Value> = pending["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["action"]["tool"] == "db_execute")
        .collect();
    assert_eq!(fresh.len(), 1, "a new card: {pending}");
    assert!(
        fresh[0]["action"]["preview"]
            .as_str()
            .unwrap()
            .contains("will affect 2 rows"),
        "{pending}"
    );
}

/// Reads Server-Sent Events off a streaming response: (event name, JSON data).
struct SseReader {
    resp: reqwest::Response,
    buf: String,
}

impl SseReader {
    async fn open(srv: &Server, query: &str) -> Self {
        let resp = client()
            .get(srv.url(&format!("/api/v1/events{query}")))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        assert!(
            resp.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        Self {
            resp,
            buf: String::new(),
        }
    }

    /// The next event (keep-alive comments skipped); panics after 20 s.
    async fn next(&mut self) -> (String, Value) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut name = String::new();
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim());
                    }
                }
                if !name.is_empty() {
                    return (name, serde_json::from_str(&data).unwrap());
                }
                continue;
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let chunk = tokio::time::timeout(left, self.resp.chunk())
                .await
                .expect("no feed event within 20 s")
                .unwrap()
                .expect("the feed ended");
            self.buf.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Events until one matches `want`; all of them, that one last.
    async fn until(&mut self, want: impl Fn(&str, &Value) -> bool) -> Vec<(String, Value)> {
        let mut seen = Vec::new();
        loop {
            let (name, data) = self.next().await;
            let done = want(&name, &data);
            seen.push((name, data));
            if done {
                return seen;
            }
        }
    }
}

#[tokio::test]
async fn the_event_feed_carries_turns_and_approvals_decided_on_another_surface() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("feed");
    let srv = serve(&dir, &fake, &[]);
    // Two subscribers on their own connections: everything, and one other conversation.
    let mut all = SseReader::open(&srv, "").await;
    let mut elsewhere = SseReader::open(&srv, "?conversation=elsewhere").await;

    // A turn over HTTP raises a card.
    let id = park_sql(
        &srv,
        &fake,
        "feed-conv",
        "make a table",
        "CREATE TABLE feedt (x INTEGER)",
    )
    .await;
    let seen = all
        .until(|name, d| {
            name == "approval" && d["action_id"] == id.as_str() && d["event"] == "created"
        })
        .await;
    let turn_events: Vec<&str> = seen
        .iter()
        .filter(|(n, d)| n == "turn" && d["conversation_id"] == "feed-conv")
        .map(|(_, d)| d["event"]["type"].as_str().unwrap())
        .collect();
    for kind in ["started", "approval_required", "text_delta", "final"] {
        assert!(
            turn_events.contains(&kind),
            "{kind} missing: {turn_events:?}"
        );
    }
    assert!(
        seen.iter()
            .filter(|(n, _)| n == "turn")
            .all(|(_, d)| d["surface"] == "http")
    );
    let created = &seen.last().unwrap().1;
    assert_eq!(created["conversation_id"], "feed-conv");
    assert_eq!(created["by"], "owner");
    assert_eq!(created["surface"], "http");

    // Confirmed from the terminal: another process, on the same database.
    fake.push(Step::Reply(Reply::text("The table is made.")));
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_SQL_ALLOW_DDL", "true")
        .args(["approvals", "confirm", &id]);
    let out = tokio::process::Command::from(cmd).output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("The table is made."));
    assert_eq!(
        rows(
            &dir,
            "SELECT count(*) FROM sqlite_master WHERE name = 'feedt'"
        ),
        1
    );

    let seen = all
        .until(|name, d| {
            name == "approval" && d["action_id"] == id.as_str() && d["event"] == "executed"
        })
        .await;
    let confirm = seen
        .iter()
        .find(|(n, d)| n == "approval" && d["event"] == "confirm")
        .map(|(_, d)| d.clone())
        .expect("the confirm reached this process's subscriber");
    assert_eq!(confirm["surface"], "cli", "where it was decided");
    assert_eq!(confirm["by"], "owner", "who decided it");
    assert_eq!(confirm["conversation_id"], "feed-conv");

    // The filtered subscriber saw none of that: its first event is its own conversation's.
    fake.push(Step::Reply(Reply::text("hi there")));
    send(&srv, "elsewhere", "hello").await;
    let (name, first) = elsewhere.next().await;
    assert_eq!(name, "turn");
    assert_eq!(first["conversation_id"], "elsewhere", "{first}");

    // Bad filters are refused.
    let resp = client()
        .get(srv.url("/api/v1/events?conversation=a%20b"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
}
