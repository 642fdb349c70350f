//! `steward chat` in a pseudo-terminal, as a person uses it: an edit of a pending action that
//! fails shows the card again with its choices and `y` then confirms it (it used to go to the
//! model as a message), and a warning logged while the prompt waits goes to the log file,
//! never onto the screen.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use steward_testkit::{FakeModel, Reply, Step};
use support::pty::Pty;
use support::*;

/// A stdio MCP server that exits at once: the supervisor retries it with backoff and logs a
/// warning each time, so warnings keep coming while a prompt waits.
const FAILING_MCP: &str = "[mcp.servers.broken]\ncommand = \"/bin/false\"\n";

fn table_exists(dir: &TempDir, name: &str) -> bool {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let n: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap();
    n == 1
}

/// How many "MCP server down" warnings the chat's log file in `dir` holds.
fn warnings_logged(dir: &std::path::Path) -> usize {
    std::fs::read_to_string(dir.join("steward.log"))
        .unwrap_or_default()
        .matches("MCP server down")
        .count()
}

#[tokio::test]
async fn a_failed_edit_shows_the_card_again_and_y_confirms_it() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("tty-edit");
    std::fs::write(dir.path().join("steward.toml"), FAILING_MCP).unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        &json!({"sql": "CREATE TABLE books (title TEXT)"}).to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Approve creating the table?")));
    // The edit: the model answers with no arguments, so the edit fails.
    fake.push(Step::Reply(Reply::text("Sorry, I cannot express that.")));
    // After the confirm, the agent goes on.
    fake.push(Step::Reply(Reply::text("The books table is ready.")));

    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_SQL_ALLOW_DDL", "true")
        .env("STEWARD_LOG", "warn")
        .arg("chat");
    let screen = tokio::task::spawn_blocking(move || {
        let mut tty = Pty::spawn(cmd);
        tty.wait_for("› ", 1);
        tty.type_line("make a books table");
        tty.wait_for("Approve? [y]es / [n]o / [e]dit / [l]ater: ", 1);
        tty.type_line("e");
        tty.wait_for("Describe the change: ", 1);
        tty.type_line("call it novels");
        tty.wait_for("still awaits your decision", 1);
        tty.wait_for("Approve? [y]es / [n]o / [e]dit / [l]ater: ", 2);
        tty.type_line("y");
        tty.wait_for("The books table is ready.", 1);
        tty.type_line("/exit");
        let status = support::wait_timeout(&mut tty.child, std::time::Duration::from_secs(30))
            .expect("chat exits on /exit");
        assert!(status.success(), "{}", tty.screen());
        tty.screen()
    })
    .await
    .unwrap();

    // The card came back after the failed edit, with its choices, and `y` confirmed it.
    let failed = screen.find("still awaits your decision").unwrap();
    let after = &screen[failed..];
    assert!(after.contains("approval needed"), "{screen}");
    assert!(after.contains("CREATE TABLE books"), "{screen}");
    assert!(after.contains("→ executed"), "{screen}");
    assert!(table_exists(&dir, "books"), "{screen}");
    // `y` was a decision, not a message: the model saw no user turn saying "y".
    let requests = fake.requests();
    assert_eq!(requests.len(), 4, "{requests:?}");
    for r in &requests {
        let messages = r.body["messages"].as_array().cloned().unwrap_or_default();
        let said_y = messages.iter().any(|m| {
            let text = m["content"].as_str().unwrap_or_default().trim();
            m["role"] == "user" && (text == "y" || text.starts_with("y\n"))
        });
        assert!(!said_y, "`y` reached the model: {}", r.body);
    }
}

#[tokio::test]
async fn a_warning_logged_during_the_prompt_does_not_appear_in_it() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("tty-log");
    std::fs::write(dir.path().join("steward.toml"), FAILING_MCP).unwrap();
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        &json!({"sql": "CREATE TABLE quiet (x)"}).to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Approve?")));

    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_SQL_ALLOW_DDL", "true")
        .env("STEWARD_LOG", "warn")
        .arg("chat");
    let log_dir = dir.path().to_path_buf();
    let (screen, before, during) = tokio::task::spawn_blocking(move || {
        let mut tty = Pty::spawn(cmd);
        tty.wait_for("› ", 1);
        tty.type_line("make a quiet table");
        let prompt = "Approve? [y]es / [n]o / [e]dit / [l]ater: ";
        tty.wait_for(prompt, 1);
        // A warning is logged while the prompt waits for an answer (counted wherever it
        // went: the log file, or the screen if it ever went there).
        let warnings =
            || warnings_logged(&log_dir) + tty.screen().matches("MCP server down").count();
        let before = warnings();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
        while warnings() <= before {
            assert!(
                std::time::Instant::now() < deadline,
                "no warning was logged while the prompt waited"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let during = warnings();
        let screen = tty.screen();
        tty.type_line("l");
        tty.wait_for("Left pending", 1);
        tty.type_line("/exit");
        support::wait_timeout(&mut tty.child, std::time::Duration::from_secs(30))
            .expect("chat exits on /exit");
        (screen, before, during)
    })
    .await
    .unwrap();

    assert!(during > before, "{before} → {during}");
    // The prompt is the last thing on the screen, untouched by the warning.
    let prompt = "Approve? [y]es / [n]o / [e]dit / [l]ater: ";
    assert!(
        screen.ends_with(prompt),
        "the prompt was written over:\n{screen:?}"
    );
    assert!(!screen.contains("MCP server down"), "{screen}");
    assert!(!screen.contains("WARN"), "{screen}");
    // The interactive chat says where its logs go.
    let log = dir.path().join("steward.log");
    assert!(
        screen.contains(&format!("Logs: {}", log.display())),
        "{screen}"
    );
}

/// A reminder set in the terminal arrives in the terminal while the chat is open, with no
/// `steward serve` running: the chat runs the reminders job itself and prints the notice at
/// the prompt, its text made safe for the terminal (an escape sequence in it is shown, not
/// obeyed); no model is called to deliver it.
#[tokio::test]
async fn a_reminder_set_in_the_terminal_arrives_at_its_prompt() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("tty-reminder");
    fake.push(Step::Reply(Reply::tool_call(
        "schedule_reminder",
        &json!({"when": "in 1 minute", "text": "stretch \u{1b}[2Jyour legs"}).to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Reminder set.")));
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_JOBS_REMINDERS", "every 1m").arg("chat");
    let screen = tokio::task::spawn_blocking(move || {
        let mut tty = Pty::spawn(cmd);
        tty.wait_for("› ", 1);
        tty.type_line("remind me in a minute to stretch my legs");
        tty.wait_for("Reminder set.", 1);
        // Due in a minute, looked for every minute: at most two.
        let screen = tty.wait_for_within("🔔 ⏰ Reminder:", 1, std::time::Duration::from_secs(150));
        tty.type_line("/exit");
        support::wait_timeout(&mut tty.child, std::time::Duration::from_secs(30))
            .expect("chat exits on /exit");
        screen
    })
    .await
    .unwrap();
    assert!(screen.contains("your legs"), "{screen}");
    assert!(
        !screen.contains("\u{1b}[2J"),
        "the escape sequence reached the terminal: {screen:?}"
    );
    assert_eq!(fake.requests().len(), 2, "delivering calls no model");
}
