//! The scheduler through the real binary, as an owner drives it: `steward serve` with the fake
//! model and every job scheduled every minute. An idle minute runs every job and calls no
//! model at all. `/api/v1/jobs` lists each job with its schedule, next fire, last run and
//! heartbeat; a schedule changed through `/api/v1/settings` is in force at once (off: no
//! next fire); `steward jobs disable` from another process reaches the running server within
//! its follow interval; a job runs on request over the API and from the terminal; a reminder
//! set in a turn is a resource the owner lists and cancels once.

use crate::support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use steward_testkit::{FakeModel, Reply, Step};
use support::*;

const JOBS: &[&str] = &[
    "reminders",
    "tasks",
    "briefing",
    "weekly_recap",
    "follow_ups",
    "approvals",
    "reflection",
    "retention",
    "backfill",
];

fn count(dir: &TempDir, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

async fn get(srv: &Server, path: &str) -> (u16, Value) {
    let resp = client()
        .get(srv.url(path))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

async fn jobs(srv: &Server) -> Vec<Value> {
    let (status, body) = get(srv, "/api/v1/jobs").await;
    assert_eq!(status, 200, "{body}");
    body["jobs"].as_array().unwrap().clone()
}

fn job<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|j| j["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {list:?}"))
}

/// `steward` run as a command against `dir` (its `steward.toml` too), as the owner types it.
fn steward(dir: &TempDir, args: &[&str]) -> (bool, String) {
    let out = base_command(dir.path()).args(args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[tokio::test]
async fn an_owner_sees_changes_and_runs_the_jobs_and_an_idle_minute_calls_no_model() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("jobs-api");
    // In the file, not the environment: a value in the environment is locked (it wins over
    // one set in the app or by `steward jobs`).
    let mut file = String::from("timezone = \"Europe/Berlin\"\n[jobs]\n");
    for job in JOBS.iter().filter(|j| **j != "approvals") {
        file.push_str(&format!("{job} = \"every 1m\"\n"));
    }
    std::fs::write(dir.path().join("steward.toml"), file).unwrap();
    let env: Vec<(&str, &str)> = vec![];
    let srv = serve_with_fake(&dir, &fake.openai_base_url(), &env);

    // 1. An idle minute: every job runs (it records an occurrence), none calls a model.
    let deadline = Instant::now() + Duration::from_secs(150);
    loop {
        let ran = JOBS
            .iter()
            .filter(|j| {
                count(
                    &dir,
                    &format!("SELECT count(*) FROM job_occurrences WHERE job = '{j}'"),
                ) > 0
            })
            .count();
        if ran == JOBS.len() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "only {ran} of {} jobs ran in time",
            JOBS.len()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(fake.requests().len(), 0, "an idle minute calls no model");
    assert_eq!(
        count(
            &dir,
            "SELECT count(*) FROM job_occurrences WHERE status = 'failed'"
        ),
        0
    );

    // 2. The list: every job, with its schedule, next fire, last run and heartbeat.
    let listed = jobs(&srv).await;
    let names: Vec<&str> = listed.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, JOBS);
    let briefing = job(&listed, "briefing");
    assert_eq!(briefing["setting"], "jobs.briefing");
    assert_eq!(briefing["schedule"], "every 1m");
    assert_eq!(briefing["enabled"], true);
    assert!(briefing["next_fire_ms"].as_i64().is_some(), "{briefing}");
    assert!(briefing["heartbeat_ms"].as_i64().is_some(), "{briefing}");
    assert_eq!(briefing["last"]["status"], "skipped", "nothing to brief");

    // 3. A new schedule through the settings API is in force at once; off has no next fire.
    let put = |key: &'static str, value: &'static str| {
        let url = srv.url(&format!("/api/v1/settings/{key}"));
        async move {
            client()
                .put(url)
                .bearer_auth(TOKEN)
                .json(&json!({ "value": value }))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(put("jobs.weekly_recap", "weekly sun 20:00").await, 200);
    let recap = job(&jobs(&srv).await, "weekly_recap").clone();
    assert_eq!(recap["schedule"], "weekly sun 20:00");
    let next = chrono::DateTime::from_timestamp_millis(recap["next_fire_ms"].as_i64().unwrap())
        .unwrap()
        .with_timezone(&chrono_tz::Europe::Berlin);
    assert_eq!(next.format("%a %H:%M").to_string(), "Sun 20:00", "{recap}");
    assert_eq!(put("jobs.weekly_recap", "off").await, 200);
    let recap = job(&jobs(&srv).await, "weekly_recap").clone();
    assert_eq!(
        (
            recap["schedule"].as_str(),
            recap["enabled"].as_bool(),
            recap["next_fire_ms"].is_null()
        ),
        (Some(""), Some(false), true),
        "{recap}"
    );
    assert_eq!(put("jobs.weekly_recap", "every 5s").await, 422, "refused");

    // 4. From the terminal, while the server runs: disabled here, in force there within
    //    the follow interval; `steward jobs` shows the settings in force.
    let (ok, out) = steward(&dir, &["jobs", "disable", "briefing"]);
    assert!(ok, "{out}");
    assert!(out.contains("briefing: off"), "{out}");
    let deadline = Instant::now() + Duration::from_secs(40);
    while job(&jobs(&srv).await, "briefing")["enabled"] == true {
        assert!(
            Instant::now() < deadline,
            "the server never took the change"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let (ok, out) = steward(&dir, &["jobs"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("briefing  (jobs.briefing = disabled)"),
        "{out}"
    );
    let (ok, out) = steward(&dir, &["jobs", "enable", "nonsense"]);
    assert!(!ok && out.contains("no job named"), "{out}");
    let (ok, out) = steward(&dir, &["jobs", "enable", "briefing", "every", "5s"]);
    assert!(!ok, "{out}");
    let (ok, out) = steward(&dir, &["jobs", "silence", "briefing"]);
    assert!(ok && out.contains("briefing is silenced"), "{out}");
    let (ok, out) = steward(&dir, &["jobs", "silence", "gossip"]);
    assert!(!ok && out.contains("no kind of message"), "{out}");

    // 5. Run now: over the API, and from the terminal.
    let resp = client()
        .post(srv.url("/api/v1/jobs/retention/run"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert!(
        body["run"]["occurrence"]
            .as_str()
            .unwrap()
            .starts_with("manual-"),
        "{body}"
    );
    assert_eq!(body["run"]["status"], "skipped", "{body}");
    let resp = client()
        .post(srv.url("/api/v1/jobs/nope/run"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let (ok, out) = steward(&dir, &["jobs", "run", "backfill"]);
    assert!(ok, "{out}");
    assert!(out.contains("backfill: skipped"), "{out}");

    // 6. A reminder set in a turn is a resource: listed, cancelled once. (Reflection off
    //    first: with messages to reflect on it would call the model, every minute here.)
    assert_eq!(put("jobs.reflection", "off").await, 200);
    fake.push(Step::Reply(Reply::tool_call(
        "schedule_reminder",
        &json!({"when": "tomorrow at 9", "text": "call the plumber"}).to_string(),
    )));
    fake.push(Step::Reply(Reply::text("Reminder set.")));
    let resp = client()
        .post(srv.url("/api/v1/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"conversation_id": "plumbing", "text": "remind me tomorrow at 9"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let (status, body) = get(&srv, "/api/v1/scheduled/reminders").await;
    assert_eq!(status, 200);
    let reminders = body["reminders"].as_array().unwrap();
    assert_eq!(reminders.len(), 1, "{body}");
    assert_eq!(reminders[0]["text"], "call the plumber");
    assert_eq!(reminders[0]["conversation_id"], "plumbing");
    assert_eq!(reminders[0]["status"], "pending");
    let id = reminders[0]["id"].as_str().unwrap().to_owned();
    let delete = || {
        client()
            .delete(srv.url(&format!("/api/v1/scheduled/reminders/{id}")))
            .bearer_auth(TOKEN)
            .send()
    };
    assert_eq!(delete().await.unwrap().status(), 204);
    assert_eq!(delete().await.unwrap().status(), 409);
    let (_, body) = get(&srv, "/api/v1/scheduled/reminders").await;
    assert_eq!(body["reminders"].as_array().unwrap().len(), 0, "{body}");
    assert_eq!(
        fake.requests().len(),
        2,
        "only the owner's own turn called the model"
    );
}
