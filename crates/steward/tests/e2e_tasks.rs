//! Recurring tasks through the real binary: `steward serve` with the Telegram surface (fake
//! Bot API) and the fake model. The owner asks for a task; `schedule_task` is a write, so its
//! card waits in the chat, and only the owner's press stores the task. The owner moves to a
//! new conversation (`/new`). When the task falls due (the test sets its creation an hour
//! back, so its latest `every 15m` fire is due at the next minute's tick), the scheduler runs
//! the stored prompt as an agent turn on the scheduler's surface; the turn's consequential
//! step (`db_execute`) parks a card instead of running; the answer and the card arrive in the
//! chat the task was set in — recorded with genre `task` — and only the owner's press runs
//! the step. The fire runs once.

use crate::support;

use serde_json::json;
use std::time::Duration;
use steward_testkit::telegram::{self as tg, FakeBotApi};
use steward_testkit::{FakeModel, Reply, Step};
use support::telegram::{bot_command, until};
use support::*;

const ANN: u64 = 1001;

fn db(dir: &TempDir) -> rusqlite::Connection {
    rusqlite::Connection::open(dir.path().join("steward.db")).unwrap()
}

fn count(dir: &TempDir, sql: &str) -> i64 {
    db(dir).query_row(sql, [], |r| r.get(0)).unwrap()
}

fn texts_to(bot: &FakeBotApi, chat: u64) -> Vec<String> {
    bot.calls_of("sendMessage")
        .into_iter()
        .filter(|b| b["chat_id"] == chat)
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

/// The newest card's message id and its Confirm button's data, once more than `before`
/// cards have their buttons.
async fn newest_card(bot: &FakeBotApi, before: usize, what: &str) -> (i64, String) {
    for _ in 0..600 {
        let marks = bot.calls_of("editMessageReplyMarkup");
        if marks.len() > before {
            let markup = marks.last().unwrap().clone();
            let confirm = markup["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
                .as_str()
                .unwrap()
                .to_owned();
            return (markup["message_id"].as_i64().unwrap(), confirm);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("timed out waiting for {what}");
}

fn model_texts(fake: &FakeModel) -> Vec<String> {
    fake.requests()
        .into_iter()
        .map(|r| r.body.to_string())
        .collect()
}

#[tokio::test]
async fn a_task_set_in_chat_runs_on_time_and_its_consequential_step_waits_for_the_owner() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tasks");
    let mut cmd = bot_command(&dir, &fake, &bot);
    cmd.env("STEWARD_TELEGRAM_ALLOWED_USERS", ANN.to_string())
        .env("STEWARD_TIMEZONE", "Europe/Berlin")
        .env("STEWARD_SQL_ALLOW_DDL", "true")
        .env("STEWARD_JOBS_TASKS", "every 1m");
    let _srv = start_server(cmd);

    // 1. The owner asks; the task's card waits for them.
    fake.push(Step::Reply(Reply::tool_call(
        "schedule_task",
        &json!({
            "title": "Visit log",
            "prompt": "Make the visit log table.",
            "schedule": "every 15m"
        })
        .to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Confirm the task, please.")));
    bot.push_update(tg::private_text(
        1,
        ANN,
        "every 15 minutes, make the visit log",
    ));
    let (card, confirm) = newest_card(&bot, 0, "the schedule_task card").await;
    assert_eq!(
        count(&dir, "SELECT count(*) FROM scheduled_tasks"),
        0,
        "nothing is scheduled before the owner confirms"
    );
    fake.push(Step::Reply(Reply::text("Task set.")));
    // The task's own run, whenever it comes: a consequential step, then the answer.
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        r#"{"sql":"CREATE TABLE visit_log (place TEXT)"}"#,
    )));
    fake.push(Step::Reply(Reply::text(
        "The visit log table is ready to be made once you approve.",
    )));
    bot.push_update(tg::callback_on(2, ANN, ANN as i64, card, &confirm));
    until(&bot, "the follow-up", |b| {
        texts_to(b, ANN).iter().any(|t| t.contains("Task set"))
    })
    .await;
    assert_eq!(
        count(
            &dir,
            "SELECT count(*) FROM scheduled_tasks WHERE status = 'active' AND surface = 'telegram' AND schedule = 'every 15m'"
        ),
        1
    );
    let calls_before_run = fake.requests().len();
    let set_in: String = db(&dir)
        .query_row("SELECT conversation FROM scheduled_tasks", [], |r| r.get(0))
        .unwrap();

    // 2. The session goes away; the task was set an hour ago, so a fire is due now.
    bot.push_update(tg::private_text(3, ANN, "/new"));
    until(&bot, "the /new reply", |b| texts_to(b, ANN).len() >= 3).await;
    db(&dir)
        .execute(
            "UPDATE scheduled_tasks SET created_ms = created_ms - 3600000",
            [],
        )
        .unwrap();
    let cards_before = bot.calls_of("editMessageReplyMarkup").len();

    // 3. Within a tick (every minute by the wall clock: at most two), the answer and the card.
    let mut answer = None;
    for _ in 0..300 {
        if let Some(t) = texts_to(&bot, ANN).into_iter().find(|t| t.contains("🔁")) {
            answer = Some(t);
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let answer = answer.expect("the task's answer arrived");
    assert!(answer.contains("Visit log"), "{answer}");
    assert!(answer.contains("ready to be made"), "{answer}");
    assert!(answer.contains("waiting for your approval"), "{answer}");
    let (step_card, step_confirm) = newest_card(&bot, cards_before, "the task's card").await;
    // The step did not run: a task's consequential step waits for the owner.
    assert_eq!(
        count(
            &dir,
            "SELECT count(*) FROM sqlite_master WHERE name = 'visit_log'"
        ),
        0
    );
    assert_eq!(
        count(
            &dir,
            "SELECT count(*) FROM pending_actions WHERE status = 'pending' AND surface = 'scheduler' AND tool = 'db_execute'"
        ),
        1
    );
    // The turn was the stored prompt, with the task's instructions.
    let run_request = &model_texts(&fake)[calls_before_run];
    assert!(
        run_request.contains("Make the visit log table."),
        "{run_request}"
    );
    assert!(run_request.contains("recurring task"), "{run_request}");
    assert_eq!(
        count(
            &dir,
            &format!(
                "SELECT count(*) FROM proactive_messages WHERE genre = 'task' AND job = 'task-runs' AND conversation = '{set_in}' AND delivery = 'sent'"
            )
        ),
        1,
        "recorded once, as sent to the conversation that set it"
    );
    assert!(
        count(
            &dir,
            "SELECT count(*) FROM edge_messages WHERE genre = 'task'"
        ) >= 1
    );

    // The step belongs to the task's conversation, not the chat's: Edit says so and leaves
    // it pending, not awaiting words the chat's conversation would never apply.
    let answers_before = bot.calls_of("answerCallbackQuery").len();
    let edit_data = step_confirm.replacen("c:", "e:", 1);
    bot.push_update(tg::callback_on(4, ANN, ANN as i64, step_card, &edit_data));
    until(&bot, "the edit press's answer", |b| {
        b.calls_of("answerCallbackQuery").len() > answers_before
    })
    .await;
    let answer_text = bot.calls_of("answerCallbackQuery")[answers_before]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(answer_text.contains("scheduled task"), "{answer_text}");
    assert_eq!(
        count(
            &dir,
            "SELECT count(*) FROM pending_actions WHERE status = 'pending' AND surface = 'scheduler' AND awaiting_edit = 0"
        ),
        1
    );

    // 4. The owner's press runs the step; the follow-up answers in the chat.
    fake.push(Step::Reply(Reply::text("Made the visit log.")));
    bot.push_update(tg::callback_on(
        5,
        ANN,
        ANN as i64,
        step_card,
        &step_confirm,
    ));
    until(&bot, "the step's follow-up", |b| {
        texts_to(b, ANN)
            .iter()
            .any(|t| t.contains("Made the visit log"))
    })
    .await;
    assert_eq!(
        count(
            &dir,
            "SELECT count(*) FROM sqlite_master WHERE name = 'visit_log'"
        ),
        1
    );

    // 5. The fire ran once.
    assert_eq!(
        count(
            &dir,
            "SELECT count(*) FROM job_occurrences WHERE job = 'task-runs' AND occurrence LIKE 'task-%'"
        ),
        1
    );
}
