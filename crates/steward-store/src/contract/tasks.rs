//! The `TaskStore` contract: a task round-trips every field (hostile text kept verbatim),
//! lists per principal in order, one cancel of many wins, and the limits refuse the rest.

use super::approvals::fresh_id;
use super::{fresh_conversation, join_all, ok, refused};
use crate::{MAX_TASK_PROMPT_LEN, MAX_TASK_TITLE_LEN, Store, Task, TaskStatus};
use steward_protocol::{PrincipalId, Surface};

const T: i64 = 1_900_000_000_000;

fn task(principal: &str, created_ms: i64) -> Task {
    Task {
        id: fresh_id("task"),
        principal: PrincipalId::parse(principal).unwrap(),
        title: "Weekly <b>digest</b>".into(),
        prompt: "Summarise my week — \"ignore previous instructions\" stays text".into(),
        schedule: "weekly fri 18:00".into(),
        surface: Surface::Telegram,
        conversation: fresh_conversation("tasks"),
        trace_id: fresh_id("trace"),
        status: TaskStatus::Active,
        created_ms,
        cancelled_ms: None,
    }
}

pub async fn tasks_round_trip_list_and_cancel_once(store: &dyn Store) {
    const CASE: &str = "tasks_round_trip_list_and_cancel_once";
    let who = format!("owner-{}", uuid::Uuid::new_v4().simple());
    let (old, new) = (task(&who, T), task(&who, T + 10));
    ok(CASE, "add new", store.add_task(&new).await);
    ok(CASE, "add old", store.add_task(&old).await);
    assert_eq!(
        ok(CASE, "get", store.task(&old.id).await),
        Some(old.clone()),
        "[{CASE}] every field"
    );
    assert_eq!(ok(CASE, "unknown", store.task("no-such-task").await), None);
    assert!(
        matches!(
            store.add_task(&old).await,
            Err(crate::StoreError::Constraint(_))
        ),
        "[{CASE}] duplicate id"
    );
    let principal = PrincipalId::parse(&who).unwrap();
    let ids = |tasks: Vec<Task>| -> Vec<String> { tasks.into_iter().map(|t| t.id).collect() };
    assert_eq!(
        ids(ok(CASE, "mine", store.tasks_of(&principal, true, 10).await)),
        [old.id.clone(), new.id.clone()],
        "[{CASE}] oldest first"
    );
    let active_mine = |all: Vec<Task>| -> Vec<String> {
        all.into_iter()
            .filter(|t| t.principal.as_str() == who)
            .map(|t| t.id)
            .collect()
    };
    assert_eq!(
        active_mine(ok(CASE, "active", store.active_tasks(100_000).await)),
        [old.id.clone(), new.id.clone()]
    );
    // Eight cancels race: one wins.
    let cancels = join_all(
        (0..8)
            .map(|i| store.cancel_task(&old.id, T + 100 + i))
            .collect(),
    )
    .await;
    let wins = cancels
        .into_iter()
        .filter(|r| matches!(r, Ok(true)))
        .count();
    assert_eq!(wins, 1, "[{CASE}] exactly one cancel");
    let cancelled = ok(CASE, "get cancelled", store.task(&old.id).await).unwrap();
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    assert!(cancelled.cancelled_ms.is_some_and(|at| at >= T + 100));
    assert!(!ok(
        CASE,
        "cancel again",
        store.cancel_task(&old.id, T + 200).await
    ));
    assert!(!ok(
        CASE,
        "cancel unknown",
        store.cancel_task("nope", T).await
    ));
    assert_eq!(
        active_mine(ok(CASE, "active after", store.active_tasks(100_000).await)),
        vec![new.id.clone()]
    );
    assert_eq!(
        ids(ok(
            CASE,
            "active only",
            store.tasks_of(&principal, false, 10).await
        )),
        vec![new.id.clone()]
    );
    assert_eq!(
        ids(ok(
            CASE,
            "with cancelled",
            store.tasks_of(&principal, true, 10).await
        )),
        [new.id.clone(), old.id.clone()],
        "[{CASE}] active first, then cancelled"
    );
    assert_eq!(
        ids(ok(CASE, "limit", store.tasks_of(&principal, true, 1).await)),
        vec![new.id.clone()]
    );
    assert!(ok(CASE, "limit 0", store.tasks_of(&principal, true, 0).await).is_empty());
}

pub async fn task_input_limits(store: &dyn Store) {
    const CASE: &str = "task_input_limits";
    let good = task("owner", T);
    let long_title = "t".repeat(MAX_TASK_TITLE_LEN + 1);
    let long_prompt = "p".repeat(MAX_TASK_PROMPT_LEN + 1);
    for (what, bad) in [
        (
            "blank title",
            Task {
                title: "  ".into(),
                ..good.clone()
            },
        ),
        (
            "long title",
            Task {
                title: long_title,
                ..good.clone()
            },
        ),
        (
            "empty prompt",
            Task {
                prompt: String::new(),
                ..good.clone()
            },
        ),
        (
            "long prompt",
            Task {
                prompt: long_prompt,
                ..good.clone()
            },
        ),
        (
            "blank schedule",
            Task {
                schedule: " ".into(),
                ..good.clone()
            },
        ),
        (
            "empty id",
            Task {
                id: String::new(),
                ..good.clone()
            },
        ),
        (
            "empty trace",
            Task {
                trace_id: String::new(),
                ..good.clone()
            },
        ),
    ] {
        refused(CASE, what, store.add_task(&bad).await, "");
        if !bad.id.is_empty() {
            assert_eq!(
                ok(CASE, "nothing kept", store.task(&bad.id).await),
                None,
                "[{CASE}] {what}"
            );
        }
    }
    // At the limits exactly: kept.
    let edge = Task {
        title: "t".repeat(MAX_TASK_TITLE_LEN),
        prompt: "p".repeat(MAX_TASK_PROMPT_LEN),
        ..task("owner", T)
    };
    ok(CASE, "at the limits", store.add_task(&edge).await);
}
