//! The scheduler's routes (`/api/v1/jobs`, `/api/v1/jobs/{name}/run`, `/api/v1/scheduled/…`)
//! over a fake `JobsDesk` that records every call (`jobs_fake.rs`): each route's exact JSON,
//! the caller's principal reaching the desk, the 404/409/400/401/500/503 answers, and hostile
//! paths and query strings refused before the desk is asked.

use crate::jobs_fake::{Call, FakeJobs};
use crate::support::{Fake, OWNER, Server, client, config, json_of, start_with};
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_server::ServerConfig;
use steward_store::ReminderStatus;

fn with_desk(desk: &Arc<FakeJobs>) -> ServerConfig {
    let mut cfg = config();
    cfg.jobs = Some(desk.clone());
    cfg
}

async fn started(desk: &Arc<FakeJobs>) -> Server {
    start_with(Fake::standard(), with_desk(desk)).await
}

async fn call(server: &Server, method: Method, path: &str) -> (u16, Value) {
    let resp = server.send(method, path, None).await;
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {text}"))
    };
    (status, body)
}

fn briefing_run_json() -> Value {
    json!({
        "occurrence": "2026-03-10T07:30",
        "status": "done",
        "scheduled_ms": 1_773_124_200_000_i64,
        "attempts": 1,
        "finished_ms": 1_773_124_203_000_i64,
        "outcome": "sent the briefing",
    })
}

fn reminder_json(id: &str, status: &str, due_ms: i64, closed_ms: Option<i64>) -> Value {
    json!({
        "id": id,
        "text": format!("<b>{id}</b> call the plumber"),
        "due_ms": due_ms,
        "shown": "Friday 11 December 2026 at 09:00 (Europe/Berlin)",
        "surface": "telegram",
        "conversation_id": "tg-abc",
        "status": status,
        "created_ms": 1_000,
        "closed_ms": closed_ms,
    })
}

fn task_json(id: &str, status: &str) -> Value {
    let active = status == "active";
    json!({
        "id": id,
        "title": "Morning news",
        "prompt": "Summarise the news",
        "schedule": "daily 07:30",
        "next_fire_ms": active.then_some(1_773_210_600_000_i64),
        "surface": "web",
        "conversation_id": "web-1",
        "status": status,
        "created_ms": 3_000,
        "cancelled_ms": (!active).then_some(4_000),
    })
}

#[tokio::test]
async fn the_jobs_list_and_a_run_now() {
    let desk = FakeJobs::new();
    let server = started(&desk).await;
    let (status, body) = call(&server, Method::GET, "/api/v1/jobs").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"jobs": [
            {"name": "briefing", "setting": "jobs.briefing", "schedule": "daily 07:30",
             "enabled": true, "next_fire_ms": 1_773_210_600_000_i64,
             "heartbeat_ms": 1_773_166_800_000_i64, "last": briefing_run_json()},
            {"name": "retention", "setting": "jobs.retention", "schedule": "",
             "enabled": false, "next_fire_ms": null, "heartbeat_ms": null, "last": null},
        ]})
    );
    let (status, body) = call(&server, Method::POST, "/api/v1/jobs/briefing/run").await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"run": briefing_run_json()}));
    // A body is not read (as with the other bodiless POSTs): the same run.
    let resp = server
        .post("/api/v1/jobs/briefing/run", &json!({"ignored": true}))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(
        desk.calls(),
        [
            Call::Jobs,
            Call::RunNow("briefing".into()),
            Call::RunNow("briefing".into())
        ]
    );
}

#[tokio::test]
async fn an_unknown_job_is_404_and_a_running_one_409() {
    let desk = FakeJobs::new();
    let server = started(&desk).await;
    let (status, body) = call(&server, Method::POST, "/api/v1/jobs/nope/run").await;
    assert_eq!(status, 404);
    assert_eq!(
        body,
        json!({"error": {"kind": "not_found", "message": "no job named nope"}})
    );
    let resp = server
        .send(Method::POST, "/api/v1/jobs/tasks/run", None)
        .await;
    assert_eq!(resp.status(), 409);
    // Not for an SDK to retry on its own: once the run ends, a retry would run it again.
    assert_eq!(resp.headers()["x-should-retry"], "false");
    assert_eq!(
        json_of(resp).await,
        json!({"error": {"kind": "busy", "message": "tasks is running now"}})
    );
    // Only GET on the list, only POST on run.
    let (status, _) = call(&server, Method::DELETE, "/api/v1/jobs").await;
    assert_eq!(status, 405);
    let (status, _) = call(&server, Method::GET, "/api/v1/jobs/briefing/run").await;
    assert_eq!(status, 405);
    assert_eq!(
        desk.calls(),
        [Call::RunNow("nope".into()), Call::RunNow("tasks".into())]
    );
}

#[tokio::test]
async fn the_callers_reminders_pending_first_and_closed_on_request() {
    let desk = FakeJobs::new();
    let server = started(&desk).await;
    let (status, body) = call(&server, Method::GET, "/api/v1/scheduled/reminders").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"reminders": [
            reminder_json("r1", "pending", 5_000, None),
            reminder_json("r3", "pending", 6_000, None),
        ]})
    );
    let path = "/api/v1/scheduled/reminders?include_closed=true&limit=2";
    let (status, body) = call(&server, Method::GET, path).await;
    assert_eq!(status, 200);
    // Three of the owner's, cut to the limit; mallory's never.
    assert_eq!(
        body,
        json!({"reminders": [
            reminder_json("r1", "pending", 5_000, None),
            reminder_json("r3", "pending", 6_000, None),
        ]})
    );
    let path = "/api/v1/scheduled/reminders?include_closed=true";
    let (_, body) = call(&server, Method::GET, path).await;
    assert_eq!(
        body["reminders"][2],
        reminder_json("r2", "delivered", 4_000, Some(2_000))
    );
    assert_eq!(body["reminders"].as_array().unwrap().len(), 3);
    assert_eq!(
        desk.calls(),
        [
            Call::Reminders(OWNER.into(), false),
            Call::Reminders(OWNER.into(), true),
            Call::Reminders(OWNER.into(), true),
        ]
    );
}

#[tokio::test]
async fn cancelling_a_reminder_204_then_409_and_anothers_404() {
    let desk = FakeJobs::new();
    let server = started(&desk).await;
    let (status, body) = call(&server, Method::DELETE, "/api/v1/scheduled/reminders/r1").await;
    assert_eq!((status, body), (204, Value::Null));
    for (id, state) in [("r1", "cancelled"), ("r2", "delivered")] {
        let path = format!("/api/v1/scheduled/reminders/{id}");
        let (status, body) = call(&server, Method::DELETE, &path).await;
        assert_eq!(status, 409, "{id}");
        assert_eq!(
            body,
            json!({"error": {"kind": "conflict", "message": format!("the reminder is {state} already")},
                   "status": state})
        );
    }
    // Mallory's reads as not found, and stays pending.
    for id in ["rm", "unknown"] {
        let path = format!("/api/v1/scheduled/reminders/{id}");
        let (status, body) = call(&server, Method::DELETE, &path).await;
        assert_eq!(status, 404, "{id}");
        assert_eq!(
            body,
            json!({"error": {"kind": "not_found", "message": "no such reminder"}})
        );
    }
    let cancel = |id: &str| Call::CancelReminder(OWNER.into(), id.into());
    assert_eq!(
        desk.calls(),
        [
            cancel("r1"),
            cancel("r1"),
            cancel("r2"),
            cancel("rm"),
            cancel("unknown")
        ]
    );
    let mallory = desk.reminders.lock().unwrap()[3].clone();
    assert_eq!(
        (mallory.id.as_str(), mallory.status),
        ("rm", ReminderStatus::Pending)
    );
}

#[tokio::test]
async fn the_callers_tasks_and_cancelling_one() {
    let desk = FakeJobs::new();
    let server = started(&desk).await;
    let (status, body) = call(&server, Method::GET, "/api/v1/scheduled/tasks").await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"tasks": [task_json("t1", "active")]}));
    let path = "/api/v1/scheduled/tasks?include_cancelled=true&limit=5";
    let (_, body) = call(&server, Method::GET, path).await;
    assert_eq!(
        body,
        json!({"tasks": [task_json("t1", "active"), task_json("t2", "cancelled")]})
    );
    let (status, _) = call(&server, Method::DELETE, "/api/v1/scheduled/tasks/t1").await;
    assert_eq!(status, 204);
    let (status, body) = call(&server, Method::DELETE, "/api/v1/scheduled/tasks/t1").await;
    assert_eq!(status, 409);
    assert_eq!(
        body,
        json!({"error": {"kind": "conflict", "message": "the task is cancelled already"},
               "status": "cancelled"})
    );
    let (status, body) = call(&server, Method::DELETE, "/api/v1/scheduled/tasks/tm").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["message"], "no such task");
    let (_, body) = call(&server, Method::GET, "/api/v1/scheduled/tasks").await;
    assert_eq!(body, json!({"tasks": []}));
    assert_eq!(
        desk.calls(),
        [
            Call::Tasks(OWNER.into(), false),
            Call::Tasks(OWNER.into(), true),
            Call::CancelTask(OWNER.into(), "t1".into()),
            Call::CancelTask(OWNER.into(), "t1".into()),
            Call::CancelTask(OWNER.into(), "tm".into()),
            Call::Tasks(OWNER.into(), false),
        ]
    );
}

/// Every route with a sample path that the desk would answer.
const ROUTES: [(&str, &str); 6] = [
    ("GET", "/api/v1/jobs"),
    ("POST", "/api/v1/jobs/briefing/run"),
    ("GET", "/api/v1/scheduled/reminders"),
    ("DELETE", "/api/v1/scheduled/reminders/r1"),
    ("GET", "/api/v1/scheduled/tasks"),
    ("DELETE", "/api/v1/scheduled/tasks/t1"),
];

#[tokio::test]
async fn without_a_token_401_and_the_desk_is_not_asked() {
    let desk = FakeJobs::new();
    let server = started(&desk).await;
    for (method, path) in ROUTES {
        for auth in [None, Some("Bearer wrong-token")] {
            let method = Method::from_bytes(method.as_bytes()).unwrap();
            let mut req = client().request(method.clone(), server.url(path));
            if let Some(auth) = auth {
                req = req.header("authorization", auth);
            }
            let resp = req.send().await.unwrap();
            assert_eq!(resp.status(), 401, "{method} {path} {auth:?}");
        }
    }
    assert_eq!(desk.calls(), []);
}

#[tokio::test]
async fn without_a_scheduler_503_and_a_failing_one_500() {
    let server = start_with(Fake::standard(), config()).await;
    for (method, path) in ROUTES {
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let resp = server.send(method.clone(), path, None).await;
        assert_eq!(resp.status(), 503, "{method} {path}");
        assert_eq!(resp.headers()["x-should-retry"], "true");
        assert_eq!(
            json_of(resp).await,
            json!({"error": {"kind": "unavailable",
                   "message": "the scheduler is not running here (`steward serve` runs it)"}}),
            "{method} {path}"
        );
    }
    let desk = FakeJobs::failing();
    let server = started(&desk).await;
    for (method, path) in ROUTES {
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let (status, body) = call(&server, method.clone(), path).await;
        assert_eq!(status, 500, "{method} {path}");
        assert_eq!(
            body,
            json!({"error": {"kind": "internal",
                   "message": "scheduler storage failed; see the server log"}})
        );
    }
    assert_eq!(desk.calls().len(), ROUTES.len());
}

#[tokio::test]
async fn hostile_paths_and_queries_are_400_before_the_desk() {
    let desk = FakeJobs::new();
    let server = started(&desk).await;
    let long = "a".repeat(129);
    let cases: Vec<(Method, String)> = vec![
        // Job names by `JobName`'s rule: capitals, spaces, traversal, too long, non-ASCII.
        (Method::POST, "/api/v1/jobs/Briefing/run".into()),
        (Method::POST, "/api/v1/jobs/morning%20briefing/run".into()),
        (Method::POST, "/api/v1/jobs/..%2F..%2Fetc/run".into()),
        (Method::POST, "/api/v1/jobs/brief%00ing/run".into()),
        (Method::POST, format!("/api/v1/jobs/{}/run", "b".repeat(65))),
        (Method::POST, "/api/v1/jobs/caf%C3%A9/run".into()),
        (Method::POST, "/api/v1/jobs/%FF/run".into()),
        // Record ids: too long, traversal, dots, spaces, control bytes, non-ASCII.
        (
            Method::DELETE,
            format!("/api/v1/scheduled/reminders/{long}"),
        ),
        (Method::DELETE, format!("/api/v1/scheduled/tasks/{long}")),
        (Method::DELETE, "/api/v1/scheduled/reminders/..%2Fr1".into()),
        (
            Method::DELETE,
            "/api/v1/scheduled/tasks/..%2F..%2Ft1".into(),
        ),
        (Method::DELETE, "/api/v1/scheduled/tasks/t1.json".into()),
        (Method::DELETE, "/api/v1/scheduled/reminders/r%201".into()),
        (Method::DELETE, "/api/v1/scheduled/reminders/r1%0A".into()),
        (Method::DELETE, "/api/v1/scheduled/tasks/t%C3%A9".into()),
        // Limits out of range or not numbers, flags not true/false, repeated keys.
        (Method::GET, "/api/v1/scheduled/reminders?limit=1001".into()),
        (Method::GET, "/api/v1/scheduled/reminders?limit=0".into()),
        (Method::GET, "/api/v1/scheduled/tasks?limit=-1".into()),
        (
            Method::GET,
            "/api/v1/scheduled/tasks?limit=99999999999999999999999999".into(),
        ),
        (Method::GET, "/api/v1/scheduled/tasks?limit=1e3".into()),
        (
            Method::GET,
            "/api/v1/scheduled/reminders?include_closed=yes".into(),
        ),
        (
            Method::GET,
            "/api/v1/scheduled/reminders?include_closed=%FF".into(),
        ),
        (
            Method::GET,
            "/api/v1/scheduled/tasks?include_cancelled=TRUE".into(),
        ),
        (
            Method::GET,
            "/api/v1/scheduled/tasks?limit=1&limit=2".into(),
        ),
        (
            Method::GET,
            "/api/v1/scheduled/reminders?include_closed=true&include_closed=false".into(),
        ),
    ];
    for (method, path) in &cases {
        let (status, body) = call(&server, method.clone(), path).await;
        assert_eq!(status, 400, "{method} {path}: {body}");
        assert_eq!(body["error"]["kind"], "bad_request", "{method} {path}");
        let message = body["error"]["message"].as_str().unwrap();
        // The refusal names the rule, never the refused text.
        assert!(
            !message.contains("..") && !message.contains(&long),
            "{message}"
        );
    }
    let (_, body) = call(&server, Method::POST, "/api/v1/jobs/Briefing/run").await;
    assert_eq!(
        body["error"]["message"],
        "invalid job name: 1 to 64 of a-z, 0-9, _ and - (it has a character not allowed)"
    );
    let (_, body) = call(
        &server,
        Method::DELETE,
        "/api/v1/scheduled/reminders/..%2Fr1",
    )
    .await;
    assert_eq!(
        body["error"]["message"],
        "invalid reminder or task id: 1 to 128 letters, digits, _ or - (it has a character not allowed)"
    );
    let path = format!("/api/v1/scheduled/tasks/{long}");
    let (_, body) = call(&server, Method::DELETE, &path).await;
    assert_eq!(
        body["error"]["message"],
        "invalid reminder or task id: 1 to 128 letters, digits, _ or - (it is too long)"
    );
    let (_, body) = call(&server, Method::GET, "/api/v1/scheduled/tasks?limit=1001").await;
    assert_eq!(
        body["error"]["message"],
        "limit must be a whole number from 1 to 1000"
    );
    // An empty id is no route at all; the longest allowed id and an unknown query key pass.
    let (status, _) = call(&server, Method::DELETE, "/api/v1/scheduled/tasks/").await;
    assert_eq!(status, 404);
    let max = "a".repeat(128);
    let path = format!("/api/v1/scheduled/tasks/{max}");
    let (status, _) = call(&server, Method::DELETE, &path).await;
    assert_eq!(status, 404);
    let path = "/api/v1/scheduled/reminders?limit=1000&utm_source=x";
    let (status, _) = call(&server, Method::GET, path).await;
    assert_eq!(status, 200);
    assert_eq!(
        desk.calls(),
        [
            Call::CancelTask(OWNER.into(), max),
            Call::Reminders(OWNER.into(), false),
        ]
    );
}
