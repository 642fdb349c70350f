//! `schedule_task`, `list_tasks`, `cancel_task`: setting a task asks first (a write), its card
//! shows the schedule's next runs in the owner's zone and the prompt; a schedule that never
//! fires or runs more often than every 15 minutes is refused with a reason; the target is the
//! calling conversation; the owner keeps at most 20; another principal's task reads as
//! unknown; hostile and oversized arguments are refused and store nothing.

use std::sync::Arc;

use serde_json::json;
use steward_jobs::tools::{MAX_ACTIVE_TASKS, task_tools};
use steward_protocol::{ConversationId, Effect, ManualClock, Principal, PrincipalId, Surface};
use steward_store::{Store, TaskStatus, TaskStore};
use steward_tools::{Tool, ToolContext, ToolError};

/// Monday 7 December 2026, 09:00:30 UTC.
const NOW: i64 = 1_796_634_030_000;

struct Tools {
    store: Arc<dyn Store>,
    schedule: Arc<dyn Tool>,
    list: Arc<dyn Tool>,
    cancel: Arc<dyn Tool>,
}

fn tools() -> Tools {
    let store: Arc<dyn Store> =
        steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let tasks: Arc<dyn TaskStore> = store.clone();
    let mut all = task_tools(tasks, ManualClock::at_ms(NOW)).into_iter();
    let (schedule, list, cancel) = (
        all.next().unwrap(),
        all.next().unwrap(),
        all.next().unwrap(),
    );
    Tools {
        store,
        schedule,
        list,
        cancel,
    }
}

fn ctx(who: &str) -> ToolContext {
    ToolContext::new(
        ConversationId::parse("chat-7").unwrap(),
        Principal::authenticated(PrincipalId::parse(who).unwrap()),
        Some("Europe/Berlin".into()),
    )
    .from_turn(Surface::Telegram, "turn-9")
}

fn args(schedule: &str) -> serde_json::Value {
    json!({"title": "Weekly digest", "prompt": "Summarise my week", "schedule": schedule})
}

#[tokio::test]
async fn setting_a_task_asks_first_and_its_card_shows_when_and_what() {
    let t = tools();
    assert_eq!(t.schedule.name(), "schedule_task");
    assert_eq!(t.schedule.effect(), Effect::Write, "a task asks first");
    assert_eq!(t.cancel.effect(), Effect::Memory, "undo needs no card");
    assert_eq!(t.list.effect(), Effect::Read);
    let preview = t
        .schedule
        .preview(&args("daily 07:30"), &ctx("owner"))
        .await
        .unwrap()
        .unwrap();
    // Tuesday 07:30 in Berlin is the first run after Monday 10:00:30 Berlin.
    assert!(preview.contains("daily 07:30"), "{preview}");
    assert!(preview.contains("Tue 8 Dec 2026 07:30"), "{preview}");
    assert!(preview.contains("Europe/Berlin"), "{preview}");
    assert!(preview.contains("Summarise my week"), "{preview}");
}

#[tokio::test]
async fn a_task_is_kept_for_the_calling_conversation_and_listed_and_cancelled() {
    let t = tools();
    let out = t
        .schedule
        .run(args("weekly fri 18:00"), &ctx("owner"))
        .await
        .unwrap();
    assert!(out.contains("Fri 11 Dec 2026 18:00"), "{out}");
    let owner = PrincipalId::parse("owner").unwrap();
    let kept = t.store.tasks_of(&owner, false, 10).await.unwrap();
    assert_eq!(kept.len(), 1);
    let task = &kept[0];
    assert_eq!(
        (
            task.surface,
            task.conversation.as_str(),
            task.trace_id.as_str()
        ),
        (Surface::Telegram, "chat-7", "turn-9")
    );
    assert_eq!(task.schedule, "weekly fri 18:00");
    assert_eq!(task.created_ms, NOW);
    let listed = t.list.run(json!({}), &ctx("owner")).await.unwrap();
    assert!(listed.contains(&task.id) && listed.contains("Weekly digest"));
    assert_eq!(
        t.list.run(json!({}), &ctx("mallory")).await.unwrap(),
        "No recurring tasks."
    );
    // Another principal cannot cancel it, nor learn it exists.
    let probe = t
        .cancel
        .run(json!({"id": task.id}), &ctx("mallory"))
        .await
        .unwrap();
    assert_eq!(probe, format!("No task with id {}.", task.id));
    let done = t
        .cancel
        .run(json!({"id": task.id}), &ctx("owner"))
        .await
        .unwrap();
    assert!(done.starts_with("Cancelled the task"), "{done}");
    let again = t
        .cancel
        .run(json!({"id": task.id}), &ctx("owner"))
        .await
        .unwrap();
    assert_eq!(again, "That task was already cancelled.");
    let status = t.store.task(&task.id).await.unwrap().unwrap().status;
    assert_eq!(status, TaskStatus::Cancelled);
}

#[tokio::test]
async fn schedules_that_never_fire_or_fire_too_often_are_refused_with_a_reason() {
    let t = tools();
    for (schedule, reason) in [
        ("off", "never fires"),
        ("", "never fires"),
        ("every 5m", "more often than every 15 minutes"),
        ("cron */5 * * * *", "more often than every 15 minutes"),
        ("cron 0,10 9 * * *", "more often than every 15 minutes"),
        ("hourly", "schedule"),
        ("cron 0 9 * * * *", "schedule"),
    ] {
        let err = t
            .schedule
            .run(args(schedule), &ctx("owner"))
            .await
            .unwrap_err();
        match err {
            ToolError::InvalidArguments(msg) => {
                assert!(msg.contains(reason), "{schedule:?}: {msg}")
            }
            other => panic!("{schedule:?}: {other:?}"),
        }
        assert!(
            t.schedule.validate(&args(schedule)).is_err(),
            "{schedule:?}"
        );
    }
    for good in [
        "every 15m",
        "every 2h",
        "cron 0 9 * * 1-5",
        "cron 0 12 L * *",
    ] {
        t.schedule.validate(&args(good)).unwrap();
    }
    let owner = PrincipalId::parse("owner").unwrap();
    assert!(t.store.tasks_of(&owner, true, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn hostile_and_oversized_arguments_store_nothing() {
    let t = tools();
    for bad in [
        json!({"title": " ", "prompt": "x", "schedule": "daily 07:30"}),
        json!({"title": "x", "prompt": "", "schedule": "daily 07:30"}),
        json!({"title": "t".repeat(101), "prompt": "x", "schedule": "daily 07:30"}),
        json!({"title": "x", "prompt": "p".repeat(2001), "schedule": "daily 07:30"}),
        json!({"title": "x", "prompt": "x", "schedule": "daily 07:30 ".repeat(40)}),
        json!({"title": "x", "prompt": "x"}),
        json!({"title": 7, "prompt": "x", "schedule": "daily 07:30"}),
    ] {
        assert!(
            t.schedule.run(bad.clone(), &ctx("owner")).await.is_err(),
            "{bad}"
        );
    }
    let owner = PrincipalId::parse("owner").unwrap();
    assert!(t.store.tasks_of(&owner, true, 10).await.unwrap().is_empty());
    for bad in [
        "i".repeat(500),
        "../etc".to_owned(),
        "a b".to_owned(),
        String::new(),
    ] {
        assert!(
            matches!(
                t.cancel.run(json!({"id": bad}), &ctx("owner")).await,
                Err(ToolError::InvalidArguments(_))
            ),
            "{bad:?}"
        );
    }
}

#[tokio::test]
async fn the_owner_keeps_at_most_twenty_tasks() {
    let t = tools();
    for _ in 0..MAX_ACTIVE_TASKS {
        t.schedule
            .run(args("daily 07:30"), &ctx("owner"))
            .await
            .unwrap();
    }
    let err = t
        .schedule
        .run(args("daily 07:30"), &ctx("owner"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidArguments(m) if m.contains("cancel one first")),
        "{err:?}"
    );
    // Another person's count is their own.
    t.schedule
        .run(args("daily 07:30"), &ctx("someone"))
        .await
        .unwrap();
}
