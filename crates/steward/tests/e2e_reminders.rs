//! Reminders through the real binary: `steward serve` with the Telegram surface (fake Bot API)
//! and the fake model. The model calls `schedule_reminder` with the owner's words ("in 1
//! minute"); code resolves them and the tool answers with the exact time; the owner starts a
//! new conversation (`/new`), so the session that set the reminder is gone; the scheduler's
//! reminders job (every minute, by the wall clock) delivers it to the chat the reminder was
//! set in — with no model call — recorded with genre `reminder` and a trace of its own, and a
//! 👍 on it lands as a `user_feedback` score with that genre and trace.

use crate::support;

use serde_json::{Value, json};
use std::time::Duration;
use steward_testkit::telegram::{self as tg, FakeBotApi};
use steward_testkit::{FakeModel, Reply, Step};
use support::telegram::{bot_command, until};
use support::*;

const ANN: u64 = 1001;

fn rows(dir: &TempDir, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn text_of(dir: &TempDir, sql: &str) -> String {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn texts_to(bot: &FakeBotApi, chat: u64) -> Vec<String> {
    bot.calls_of("sendMessage")
        .into_iter()
        .filter(|b| b["chat_id"] == chat)
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn a_reminder_set_in_chat_arrives_in_its_minute_after_the_session_is_gone() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("reminders");
    let mut cmd = bot_command(&dir, &fake, &bot);
    cmd.env("STEWARD_TELEGRAM_ALLOWED_USERS", ANN.to_string())
        .env("STEWARD_TIMEZONE", "Europe/Berlin")
        .env("STEWARD_JOBS_REMINDERS", "every 1m");
    let _srv = start_server(cmd);
    fake.push(Step::Reply(Reply::tool_call(
        "schedule_reminder",
        &json!({"when": "in 1 minute", "text": "stretch your legs"}).to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Reminder set.")));
    bot.push_update(tg::private_text(
        1,
        ANN,
        "remind me in a minute to stretch my legs",
    ));
    until(&bot, "the answer", |b| {
        texts_to(b, ANN).iter().any(|t| t.contains("Reminder set"))
    })
    .await;

    // The tool resolved the phrase in code and said the exact time back to the model.
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "the turn's two model calls");
    let second = requests[1].body.to_string();
    assert!(
        second.contains("Reminder set for") && second.contains("Europe/Berlin"),
        "{second}"
    );
    assert_eq!(
        rows(
            &dir,
            "SELECT count(*) FROM reminders WHERE status = 'pending' AND surface = 'telegram'"
        ),
        1
    );
    let set_in = text_of(&dir, "SELECT conversation FROM reminders");

    // The session that set it goes away: the chat moves on to a new conversation.
    bot.push_update(tg::private_text(2, ANN, "/new"));
    until(&bot, "the /new reply", |b| texts_to(b, ANN).len() >= 2).await;
    let now_in = text_of(
        &dir,
        "SELECT conversation_id FROM edge_chats ORDER BY id DESC LIMIT 1",
    );
    assert_ne!(set_in, now_in, "the chat is in another conversation now");

    // Within its minute (the job looks every minute by the wall clock: at most two minutes).
    let mut delivered = None;
    for _ in 0..300 {
        if let Some(t) = texts_to(&bot, ANN).into_iter().find(|t| t.contains("⏰")) {
            delivered = Some(t);
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let delivered = delivered.expect("the reminder arrived");
    assert!(delivered.contains("stretch your legs"), "{delivered}");
    assert_eq!(
        fake.requests().len(),
        2,
        "delivering a reminder calls no model"
    );
    assert_eq!(
        rows(
            &dir,
            "SELECT count(*) FROM reminders WHERE status = 'delivered'"
        ),
        1
    );
    assert_eq!(
        rows(
            &dir,
            &format!(
                "SELECT count(*) FROM proactive_messages WHERE genre = 'reminder' AND conversation = '{set_in}' AND delivery = 'sent'"
            )
        ),
        1,
        "recorded once, as sent to the conversation that set it"
    );
    let trace = text_of(&dir, "SELECT trace_id FROM proactive_messages");
    let message: i64 = text_of(
        &dir,
        &format!(
            "SELECT message FROM edge_messages WHERE genre = 'reminder' AND trace_id = '{trace}'"
        ),
    )
    .parse()
    .unwrap();

    // 👍 on the reminder scores the reminder's own trace, with its genre.
    bot.push_update(tg::reaction_on(3, ANN, message, "👍"));
    let mut scored = 0;
    for _ in 0..100 {
        scored = rows(
            &dir,
            &format!(
                "SELECT count(*) FROM scores WHERE name = 'user_feedback' AND trace_id = '{trace}' AND genre = 'reminder' AND value = 1.0"
            ),
        );
        if scored == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(scored, 1);
    let report: Value = json!(rows(&dir, "SELECT count(*) FROM proactive_messages"));
    assert_eq!(
        report,
        json!(1),
        "still one message: the next minutes sent nothing"
    );
}
