//! The Telegram surface through the real binary: `steward serve` with a bot token polls a
//! fake Bot API on loopback (speaking the Bot API's JSON) and answers through the fake model.
//! Shown here: a message → typing, a live draft, the answer as HTML, recorded; a 👍 on it → a
//! `user_feedback` score on that turn's trace; a card with buttons attached after it was
//! recorded, confirmed once under 20 simultaneous presses; forged presses (unknown id, stale
//! revision, a message that is not the card, another action's id) refused with nothing run;
//! the same `update_id` twice → one turn, also across a restart; a non-allowlisted sender and
//! an empty allowlist → no turn and no reply; drafts refused → a placeholder edited instead.

use crate::support;

use serde_json::{Value, json};
use std::time::Duration;
use steward_testkit::telegram::{self as tg, FakeBotApi};
use steward_testkit::{FakeModel, Reply, Step};
use support::telegram::{bot_command, until};
use support::*;

const ANN: u64 = 1001;
const MALLORY: u64 = 6666;

fn serve_bot(dir: &TempDir, fake: &FakeModel, bot: &FakeBotApi, allowed: &str) -> Server {
    let mut cmd = bot_command(dir, fake, bot);
    cmd.env("STEWARD_SQL_ALLOW_DDL", "true");
    if !allowed.is_empty() {
        cmd.env("STEWARD_TELEGRAM_ALLOWED_USERS", allowed);
    }
    start_server(cmd)
}

fn sent_texts(bot: &FakeBotApi, chat: u64) -> Vec<Value> {
    bot.calls_of("sendMessage")
        .into_iter()
        .filter(|b| b["chat_id"] == chat)
        .collect()
}

fn rows(dir: &TempDir, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn text_of(dir: &TempDir, sql: &str) -> String {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn a_message_streams_then_answers_in_html_and_a_thumbs_up_scores_its_turn() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-chat");
    let _srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    fake.push(Step::Reply(
        Reply::text("Here is **bold** & <b>not a tag</b>.")
            .with_chunk_chars(4)
            .with_chunk_delay_ms(60),
    ));
    let asked = std::time::Instant::now();
    bot.push_update(tg::private_text(1, ANN, "hello there"));
    until(&bot, "the answer", |b| !sent_texts(b, ANN).is_empty()).await;
    let took = asked.elapsed();

    // The polling call names every update kind the bot handles.
    let poll = &bot.polls()[0];
    let kinds: Vec<&str> = poll["allowed_updates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for k in [
        "message",
        "edited_message",
        "callback_query",
        "message_reaction",
    ] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    assert!(
        !bot.calls_of("sendChatAction").is_empty(),
        "typing while working"
    );
    let drafts = bot.calls_of("sendMessageDraft");
    assert!(!drafts.is_empty(), "the answer streamed as a draft");
    assert!(
        drafts
            .iter()
            .all(|d| d["chat_id"] == ANN && d["draft_id"].as_i64().unwrap() != 0)
    );
    // Throttled: at most one draft a second (Pacing's default), so fewer drafts than the
    // nine pieces the answer streamed in — and never more than the time allowed.
    assert!(drafts.len() < 9, "{} drafts", drafts.len());
    assert!(
        drafts.len() as f64 <= took.as_secs_f64().ceil() + 1.0,
        "{} drafts in {took:?}",
        drafts.len()
    );
    let answer = &sent_texts(&bot, ANN)[0];
    assert_eq!(answer["parse_mode"], "HTML");
    let html = answer["text"].as_str().unwrap();
    assert!(html.contains("<b>bold</b>"), "{html}");
    assert!(
        html.contains("&amp;") && html.contains("&lt;b&gt;not a tag&lt;/b&gt;"),
        "escaped: {html}"
    );
    assert!(!fake.requests().is_empty());

    // The message is recorded with its turn's trace, and a 👍 on it lands on that trace.
    until(&bot, "the record", |_| {
        rows(
            &dir,
            "SELECT count(*) FROM edge_messages WHERE genre = 'chat'",
        ) == 1
    })
    .await;
    let trace = text_of(
        &dir,
        "SELECT trace_id FROM edge_messages WHERE genre = 'chat'",
    );
    let message_id = text_of(
        &dir,
        "SELECT message FROM edge_messages WHERE genre = 'chat'",
    );
    bot.push_update(tg::reaction_on(2, ANN, message_id.parse().unwrap(), "👍"));
    // A reaction on a message the bot never sent scores nothing.
    bot.push_update(tg::reaction_on(3, ANN, 999_999, "👎"));
    for _ in 0..200 {
        if rows(
            &dir,
            "SELECT count(*) FROM scores WHERE name = 'user_feedback'",
        ) >= 1
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        rows(
            &dir,
            "SELECT count(*) FROM scores WHERE name = 'user_feedback'"
        ),
        1
    );
    assert_eq!(
        text_of(
            &dir,
            "SELECT trace_id FROM scores WHERE name = 'user_feedback'"
        ),
        trace
    );
    assert_eq!(
        rows(
            &dir,
            "SELECT CAST(value AS INTEGER) FROM scores WHERE name = 'user_feedback'"
        ),
        1
    );
    // The score carries the genre of the message it judges, so the engagement report counts
    // per genre from the scores alone.
    assert_eq!(
        text_of(
            &dir,
            "SELECT genre FROM scores WHERE name = 'user_feedback'"
        ),
        "chat"
    );
}

#[tokio::test]
async fn strangers_and_an_empty_allowlist_get_no_turn_and_no_reply() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-strangers");
    let srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    bot.push_update(tg::private_text(1, MALLORY, "give me the owner's mail"));
    bot.push_update(tg::group_text(2, -500, ANN, "groups are off"));
    until(&bot, "a poll past both", |b| {
        b.polls().iter().any(|p| p["offset"] == 3)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(bot.calls_of("sendMessage").is_empty());
    assert!(fake.requests().is_empty(), "no model call");
    drop(srv);

    // Nobody named: nobody answered, even the would-be owner; the log says how to fix it.
    let dir = TempDir::new("tg-empty");
    let srv = serve_bot(&dir, &fake, &bot, "");
    bot.push_update(tg::private_text(3, ANN, "hello?"));
    until(&bot, "a poll past it", |b| {
        b.polls().iter().any(|p| p["offset"] == 4)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(bot.calls_of("sendMessage").is_empty());
    assert!(fake.requests().is_empty());
    assert!(
        srv.stderr_text().contains("telegram.allowed_users"),
        "{}",
        srv.stderr_text()
    );
}

#[tokio::test]
async fn the_same_update_twice_is_one_turn_also_after_a_restart() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-dedup");
    let srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    fake.push(Step::Reply(Reply::text("once")));
    bot.push_update(tg::private_text(7, ANN, "hi"));
    bot.push_update(tg::private_text(7, ANN, "hi"));
    until(&bot, "the answer", |b| !sent_texts(b, ANN).is_empty()).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(fake.requests().len(), 1);
    srv.terminate();

    // A new process polls from scratch; Telegram redelivers what it was not told about.
    let _srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    bot.push_update(tg::private_text(7, ANN, "hi"));
    fake.push(Step::Reply(Reply::text("second")));
    bot.push_update(tg::private_text(8, ANN, "and now?"));
    until(&bot, "the second answer", |b| sent_texts(b, ANN).len() >= 2).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(fake.requests().len(), 2, "update 7 was not answered again");
    assert_eq!(sent_texts(&bot, ANN).len(), 2);
}

#[tokio::test]
async fn drafts_refused_fall_back_to_an_edited_placeholder() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    bot.script_method(
        "sendMessageDraft",
        tg::Scripted::Error {
            code: 400,
            description: "Bad Request: method is not available",
            retry_after: None,
        },
    );
    let dir = TempDir::new("tg-placeholder");
    let _srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    fake.push(Step::Reply(
        Reply::text("a slow answer in many pieces")
            .with_chunk_chars(3)
            .with_chunk_delay_ms(120),
    ));
    bot.push_update(tg::private_text(1, ANN, "go"));
    until(&bot, "the final edit", |b| {
        b.calls_of("editMessageText")
            .iter()
            .any(|e| e["parse_mode"] == "HTML")
    })
    .await;
    assert_eq!(
        bot.calls_of("sendMessageDraft").len(),
        1,
        "one refusal, then no more drafts"
    );
    let sent = sent_texts(&bot, ANN);
    assert_eq!(sent.len(), 1, "one placeholder, edited in place: {sent:?}");
    assert!(
        sent[0].get("parse_mode").is_none(),
        "the placeholder is plain text"
    );
    let last = bot.calls_of("editMessageText").into_iter().last().unwrap();
    assert_eq!(last["text"], "a slow answer in many pieces");
}

/// A turn in which the model asks for `db_execute`; the card's message id and the data of its
/// Confirm button, once attached.
async fn park(
    dir: &TempDir,
    bot: &FakeBotApi,
    fake: &FakeModel,
    update: u32,
    sql: &str,
) -> (i64, String) {
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        &json!({ "sql": sql }).to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Approve?")));
    let before = bot.calls_of("editMessageReplyMarkup").len();
    bot.push_update(tg::private_text(update, ANN, "do it"));
    until(bot, "the card's buttons", |b| {
        b.calls_of("editMessageReplyMarkup").len() > before
    })
    .await;
    let markup = bot
        .calls_of("editMessageReplyMarkup")
        .into_iter()
        .nth(before)
        .unwrap();
    let message = markup["message_id"].as_i64().unwrap();
    // Recorded before the buttons came.
    assert_eq!(
        rows(
            dir,
            &format!(
                "SELECT count(*) FROM edge_messages WHERE message = '{message}' AND genre = 'approval'"
            )
        ),
        1
    );
    let buttons = markup["reply_markup"]["inline_keyboard"][0]
        .as_array()
        .unwrap()
        .clone();
    let labels: Vec<&str> = buttons
        .iter()
        .map(|b| b["text"].as_str().unwrap())
        .collect();
    assert!(
        labels.iter().any(|l| l.contains("Confirm"))
            && labels.iter().any(|l| l.contains("Cancel"))
            && labels.iter().any(|l| l.contains("Edit")),
        "{labels:?}"
    );
    let confirm = buttons[0]["callback_data"].as_str().unwrap().to_owned();
    assert!(confirm.len() <= 64);
    (message, confirm)
}

#[tokio::test]
async fn a_card_confirmed_by_twenty_presses_runs_once_and_forged_presses_run_nothing() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-cards");
    let srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    // The table first, through the API's own gate.
    fake.push(Step::Reply(Reply::tool_call(
        "db_execute",
        r#"{"sql":"CREATE TABLE visits (place TEXT)"}"#,
    )));
    fake.push(Step::Reply(Reply::text("ok")));
    let body: Value = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": "setup", "text": "table"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = body["approvals"][0]["action_id"]
        .as_str()
        .unwrap()
        .to_owned();
    fake.push(Step::Reply(Reply::text("made")));
    let r = client()
        .post(srv.url(&format!("/api/v1/approvals/{id}/confirm")))
        .bearer_auth(TOKEN)
        .json(&json!({"revision": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    let (card, confirm) = park(
        &dir,
        &bot,
        &fake,
        10,
        "INSERT INTO visits (place) VALUES ('Lisbon')",
    )
    .await;
    let (_, rev, action) = {
        let mut p = confirm.splitn(3, ':');
        (
            p.next().unwrap().to_owned(),
            p.next().unwrap().to_owned(),
            p.next().unwrap().to_owned(),
        )
    };
    // Forged: an unknown id, another real action's id under this card, a stale revision, the
    // right data under a message that is not the card, garbage, and a stranger (dropped by the
    // allowlist before anything).
    bot.push_update(tg::callback_on(
        11,
        ANN,
        ANN as i64,
        card,
        &format!("c:{rev}:act-doesnotexist"),
    ));
    bot.push_update(tg::callback_on(
        16,
        ANN,
        ANN as i64,
        card,
        &format!("x:0:{id}"),
    ));
    bot.push_update(tg::callback_on(
        12,
        ANN,
        ANN as i64,
        card,
        &format!("c:{}:{action}", rev.parse::<u32>().unwrap() + 1),
    ));
    bot.push_update(tg::callback_on(13, ANN, ANN as i64, card + 1000, &confirm));
    bot.push_update(tg::callback_on(14, ANN, ANN as i64, card, "c:0:../../etc"));
    bot.push_update(tg::callback_on(15, MALLORY, MALLORY as i64, card, &confirm));
    until(&bot, "five refusals", |b| {
        b.calls_of("answerCallbackQuery").len() >= 5
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits"),
        0,
        "no forged press ran it"
    );
    assert_eq!(
        bot.calls_of("answerCallbackQuery").len(),
        5,
        "the stranger got no answer at all"
    );
    let answers: Vec<String> = bot
        .calls_of("answerCallbackQuery")
        .iter()
        .map(|a| a["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        answers
            .iter()
            .filter(|t| *t == "This button is not valid.")
            .count(),
        4,
        "{answers:?}"
    );
    assert!(
        answers.iter().any(|t| t.contains("changed")),
        "the stale one is told: {answers:?}"
    );
    assert_eq!(
        text_of(
            &dir,
            &format!("SELECT status FROM pending_actions WHERE id = '{action}'")
        ),
        "pending"
    );

    // Twenty presses at once: one execution.
    fake.push(Step::Reply(Reply::text("Recorded Lisbon.")));
    for i in 0..20 {
        bot.push_update(tg::callback_on(100 + i, ANN, ANN as i64, card, &confirm));
    }
    until(&bot, "twenty answers", |b| {
        b.calls_of("answerCallbackQuery").len() >= 25
    })
    .await;
    until(&bot, "the follow-up", |b| {
        sent_texts(b, ANN)
            .iter()
            .any(|m| m["text"].as_str().unwrap_or("").contains("Recorded Lisbon"))
    })
    .await;
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM visits"),
        1,
        "ran exactly once"
    );
    assert_eq!(
        text_of(
            &dir,
            &format!("SELECT status FROM pending_actions WHERE id = '{action}'")
        ),
        "executed"
    );
    // The card was edited to its final state, without live buttons.
    let edits = bot.calls_of("editMessageText");
    let last = edits
        .iter()
        .rfind(|e| e["message_id"] == card)
        .expect("the card was edited");
    assert!(last["text"].as_str().unwrap().contains("Done"), "{last}");
    assert_eq!(last["reply_markup"]["inline_keyboard"], json!([]));
    let decided_on = text_of(
        &dir,
        &format!(
            "SELECT surface FROM action_audit WHERE action_id = '{action}' AND event = 'confirm'"
        ),
    );
    assert_eq!(decided_on, "telegram");
}

const HOOK_SECRET: &str = "hook-secret_0123456789";

fn serve_webhook(dir: &TempDir, fake: &FakeModel, bot: &FakeBotApi) -> Server {
    let mut cmd = bot_command(dir, fake, bot);
    cmd.env("STEWARD_TELEGRAM_ALLOWED_USERS", ANN.to_string())
        .env(
            "STEWARD_TELEGRAM_WEBHOOK_URL",
            "https://steward.example/telegram/webhook",
        )
        .env("STEWARD_TELEGRAM_WEBHOOK_SECRET", HOOK_SECRET);
    start_server(cmd)
}

async fn push(srv: &Server, secret: Option<&str>, update: &Value) -> u16 {
    let mut req = client().post(srv.url("/telegram/webhook")).json(update);
    if let Some(s) = secret {
        req = req.header("x-telegram-bot-api-secret-token", s);
    }
    req.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn webhook_mode_checks_the_secret_and_answers_each_update_once_across_restarts() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-webhook");
    let srv = serve_webhook(&dir, &fake, &bot);
    until(&bot, "setWebhook", |b| !b.calls_of("setWebhook").is_empty()).await;
    let set = &bot.calls_of("setWebhook")[0];
    assert_eq!(set["url"], "https://steward.example/telegram/webhook");
    assert_eq!(set["secret_token"], HOOK_SECRET);
    assert!(
        set["allowed_updates"]
            .as_array()
            .unwrap()
            .contains(&json!("message_reaction"))
    );
    assert!(bot.polls().is_empty(), "webhook mode does not poll");

    let update = tg::private_text(40, ANN, "hello by webhook");
    assert_eq!(push(&srv, Some("wrong"), &update).await, 401);
    assert_eq!(push(&srv, None, &update).await, 401);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(fake.requests().is_empty(), "nothing was queued");
    assert_eq!(rows(&dir, "SELECT count(*) FROM edge_updates"), 0);

    fake.push(Step::Reply(Reply::text("Hi from the webhook.")));
    assert_eq!(push(&srv, Some(HOOK_SECRET), &update).await, 200);
    // Telegram redelivers when unsure: the same update is taken, answered once.
    assert_eq!(push(&srv, Some(HOOK_SECRET), &update).await, 200);
    until(&bot, "the answer", |b| !sent_texts(b, ANN).is_empty()).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(fake.requests().len(), 1);
    // A stranger's update is taken (200: Telegram must not resend it) and answered never.
    assert_eq!(
        push(
            &srv,
            Some(HOOK_SECRET),
            &tg::private_text(41, MALLORY, "hi")
        )
        .await,
        200
    );
    assert_eq!(
        push(&srv, Some(HOOK_SECRET), &json!({"not": "an update"})).await,
        400
    );
    srv.terminate();

    let srv = serve_webhook(&dir, &fake, &bot);
    assert_eq!(push(&srv, Some(HOOK_SECRET), &update).await, 200);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        fake.requests().len(),
        1,
        "not answered again after the restart"
    );
    assert_eq!(sent_texts(&bot, ANN).len(), 1);
    assert!(sent_texts(&bot, MALLORY).is_empty());
}

/// The visible text of a Telegram HTML message, and whether its tags nest.
fn visible(html: &str) -> (String, bool) {
    let mut text = String::new();
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    let mut nested = true;
    while let Some(lt) = rest.find('<') {
        text.push_str(&rest[..lt]);
        let gt = rest[lt..].find('>').map(|g| lt + g).unwrap();
        let tag = &rest[lt + 1..gt];
        if let Some(name) = tag.strip_prefix('/') {
            nested &= stack.pop().as_deref() == Some(name);
        } else {
            stack.push(tag.split(' ').next().unwrap().to_owned());
        }
        rest = &rest[gt + 1..];
    }
    text.push_str(rest);
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    (text, nested && stack.is_empty())
}

#[tokio::test]
async fn a_ten_thousand_character_answer_arrives_in_well_formed_parts() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-long");
    let _srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    let mut answer = String::new();
    for i in 0..60 {
        answer.push_str(&format!("Paragraph {i} with **bold words** & <angle> text, then more words to fill it up nicely.\n\n"));
    }
    answer.push_str("```rust\n");
    for i in 0..120 {
        answer.push_str(&format!(
            "let value_{i} = compute({i}) * 2; // a line of code\n"
        ));
    }
    answer.push_str("```\n\nThe end.");
    assert!(answer.chars().count() >= 10_000);
    fake.push(Step::Reply(Reply::text(answer.clone())));
    bot.push_update(tg::private_text(1, ANN, "write a lot"));
    until(&bot, "the last part", |b| {
        sent_texts(b, ANN)
            .iter()
            .any(|m| m["text"].as_str().unwrap_or("").contains("The end."))
    })
    .await;
    let parts = sent_texts(&bot, ANN);
    assert!(parts.len() >= 3, "{} parts", parts.len());
    let mut seen = String::new();
    for part in &parts {
        assert_eq!(part["parse_mode"], "HTML");
        let (text, nested) = visible(part["text"].as_str().unwrap());
        assert!(nested, "broken tags: {}", part["text"]);
        assert!(text.encode_utf16().count() <= 4096);
        seen.push_str(&text);
    }
    assert!(seen.contains("Paragraph 59 with bold words & <angle> text"));
    assert!(seen.contains("let value_119 = compute(119) * 2;"));
    // Every part is recorded with the turn's trace, so a 👍 on any of them lands.
    assert_eq!(
        rows(
            &dir,
            "SELECT count(DISTINCT trace_id) FROM edge_messages WHERE genre = 'chat'"
        ),
        1
    );
    assert_eq!(
        rows(
            &dir,
            "SELECT count(*) FROM edge_messages WHERE genre = 'chat'"
        ),
        parts.len() as i64
    );
}

#[tokio::test]
async fn tool_progress_is_narrated_live_and_flood_control_delays_but_never_loses_the_answer() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    // The first send of the answer meets Telegram's flood control.
    bot.script_method(
        "sendMessage",
        tg::Scripted::Error {
            code: 429,
            description: "Too Many Requests: retry after 1",
            retry_after: Some(1),
        },
    );
    let dir = TempDir::new("tg-progress");
    let _srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    fake.push(Step::Reply(Reply::tool_call(
        "db_query",
        r#"{"sql":"SELECT 1 AS one"}"#,
    )));
    fake.push(Step::Reply(
        Reply::text("The database answers one.")
            .with_chunk_chars(5)
            .with_chunk_delay_ms(50),
    ));
    bot.push_update(tg::private_text(1, ANN, "ask the database"));
    until(&bot, "the answer", |b| b.calls_of("sendMessage").len() >= 2).await;
    let drafts: Vec<String> = bot
        .calls_of("sendMessageDraft")
        .iter()
        .map(|d| d["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        drafts.iter().any(|d| d.contains("db_query")),
        "the tool was shown while it ran: {drafts:?}"
    );
    let sends = bot.calls_of("sendMessage");
    assert_eq!(sends.len(), 2, "refused once, then sent once: {sends:?}");
    assert_eq!(sends[0]["text"], sends[1]["text"]);
    assert!(
        sends[1]["text"]
            .as_str()
            .unwrap()
            .contains("The database answers one.")
    );
}

#[tokio::test]
async fn commands_are_answered_by_the_bot_without_the_model() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-commands");
    let srv = serve_bot(&dir, &fake, &bot, &ANN.to_string());
    // A fact to show, set as the owner's own word through the API.
    let put = client()
        .put(srv.url("/api/v1/facts/home_city"))
        .bearer_auth(TOKEN)
        .json(&json!({"value": "Lisbon"}))
        .send()
        .await
        .unwrap();
    assert!(put.status().is_success(), "{}", put.status());
    let commands = [
        "/start",
        "/help",
        "/status",
        "/approvals",
        "/model",
        "/model openai:gpt-other",
        "/memory",
        "/frobnicate",
    ];
    for (i, c) in commands.iter().enumerate() {
        bot.push_update(tg::private_text(i as u32 + 1, ANN, c));
    }
    until(&bot, "every answer", |b| {
        sent_texts(b, ANN).len() >= commands.len()
    })
    .await;
    let texts: Vec<String> = sent_texts(&bot, ANN)
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        texts[0].contains("/new") && texts[0].contains("👍"),
        "{}",
        texts[0]
    );
    assert!(texts[1].contains("/approvals"), "{}", texts[1]);
    assert!(
        texts[2].contains("Model: openai:gpt-fake") && texts[2].contains("nothing waits"),
        "{}",
        texts[2]
    );
    assert_eq!(texts[3], "Nothing waits for your approval.");
    assert_eq!(texts[4], "Answering with openai:gpt-fake.");
    assert!(
        texts[5].contains("telegram.model_switch"),
        "off by default: {}",
        texts[5]
    );
    assert!(texts[6].contains("home_city: Lisbon"), "{}", texts[6]);
    assert!(
        texts[7].starts_with("I don't know /frobnicate."),
        "{}",
        texts[7]
    );
    assert!(fake.requests().is_empty(), "no command reached the model");

    // No command bound a conversation; /new binds a fresh one each time.
    assert_eq!(rows(&dir, "SELECT count(*) FROM edge_chats"), 0);
    let mut seen = Vec::new();
    for (n, update) in [(1, 20), (2, 21)] {
        bot.push_update(tg::private_text(update, ANN, "/new"));
        until(&bot, "the /new answer", |b| {
            sent_texts(b, ANN).len() >= commands.len() + n
        })
        .await;
        let bound = text_of(
            &dir,
            "SELECT conversation_id FROM edge_chats ORDER BY id DESC LIMIT 1",
        );
        assert!(
            bound.starts_with("tg-") && !bound.contains(&ANN.to_string()),
            "no Telegram id in core: {bound}"
        );
        assert!(!seen.contains(&bound));
        seen.push(bound);
    }
    // Each /new is a binding of its own; the latest is the chat's conversation (earlier ones
    // stay so a conversation still finds the chat it lived in).
    assert_eq!(
        rows(&dir, "SELECT count(*) FROM edge_chats"),
        2,
        "a history of bindings"
    );
}

#[tokio::test]
async fn a_card_follows_its_action_cancelled_elsewhere_or_expired_and_edit_asks_in_words() {
    let fake = FakeModel::start().await.unwrap();
    let bot = FakeBotApi::start().await.unwrap();
    let dir = TempDir::new("tg-card-life");
    let config = dir.path().join("steward.toml");
    std::fs::write(&config, "[approvals]\nsweep_secs = 1\n").unwrap();
    let mut cmd = bot_command(&dir, &fake, &bot);
    cmd.env("STEWARD_SQL_ALLOW_DDL", "true")
        .env("STEWARD_CONFIG", &config)
        .env("STEWARD_APPROVAL_TTL_SECS", "10")
        .env("STEWARD_TELEGRAM_ALLOWED_USERS", ANN.to_string());
    let srv = start_server(cmd);

    // Cancelled from the API: the Telegram card says so and loses its buttons.
    let (first, _) = park(&dir, &bot, &fake, 1, "CREATE TABLE one (x TEXT)").await;
    let id = text_of(
        &dir,
        &format!("SELECT action_id FROM edge_messages WHERE message = '{first}'"),
    );
    let r = client()
        .post(srv.url(&format!("/api/v1/approvals/{id}/cancel")))
        .bearer_auth(TOKEN)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    until(&bot, "the cancelled card", |b| {
        b.calls_of("editMessageText")
            .iter()
            .any(|e| e["message_id"] == first && e["text"].as_str().unwrap().contains("Cancelled"))
    })
    .await;
    let edit = bot
        .calls_of("editMessageText")
        .into_iter()
        .rfind(|e| e["message_id"] == first)
        .unwrap();
    assert_eq!(edit["reply_markup"]["inline_keyboard"], json!([]));

    // Edit: the bot asks for the change in words; the action stays pending, awaiting it.
    let (second, confirm) = park(&dir, &bot, &fake, 2, "CREATE TABLE two (x TEXT)").await;
    let edit_data = confirm.replacen("c:", "e:", 1);
    bot.push_update(tg::callback_on(3, ANN, ANN as i64, second, &edit_data));
    until(&bot, "the question", |b| {
        sent_texts(b, ANN).iter().any(|m| {
            m["text"]
                .as_str()
                .unwrap_or("")
                .starts_with("What should change?")
        })
    })
    .await;
    let second_id = text_of(
        &dir,
        &format!("SELECT action_id FROM edge_messages WHERE message = '{second}'"),
    );
    assert_eq!(
        text_of(
            &dir,
            &format!("SELECT status FROM pending_actions WHERE id = '{second_id}'")
        ),
        "pending"
    );

    // Left alone past its TTL: the sweep expires it and the card says nothing ran. The sweep
    // is the scheduler's `approvals` job, every whole minute by the wall clock: at most a
    // minute after the TTL (waited for up to two).
    let expired = |b: &FakeBotApi| {
        b.calls_of("editMessageText")
            .iter()
            .any(|e| e["message_id"] == second && e["text"].as_str().unwrap().contains("Expired"))
    };
    for _ in 0..240 {
        if expired(&bot) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(expired(&bot), "the expired card");
    assert_eq!(
        rows(
            &dir,
            "SELECT count(*) FROM sqlite_master WHERE name = 'two'"
        ),
        0
    );
}
