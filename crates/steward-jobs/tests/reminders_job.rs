//! The reminders job: a due reminder is said once, to the target captured when it was set,
//! and closed; one not due yet is left alone; with nothing due it does nothing (no message,
//! nothing recorded); two runners at once deliver each reminder once.

use std::sync::Arc;
use steward_jobs::jobs::RemindersJob;
use steward_jobs::{Budget, Job, JobOutcome, RunContext, Voice};
use steward_protocol::{ConversationId, JobName, ManualClock, PrincipalId, Surface};
use steward_store::{JobStore, Reminder, ReminderStatus};
use tokio::sync::watch;

use crate::briefing_support::Recorder;

const NOW: i64 = 1_796_650_000_000;

fn reminder(id: &str, due_ms: i64, conversation: &str) -> Reminder {
    Reminder {
        id: id.into(),
        principal: PrincipalId::parse("owner").unwrap(),
        text: "water the plants".into(),
        due_ms,
        shown: "Monday 7 December 2026 at 14:00 (UTC)".into(),
        surface: Surface::Telegram,
        conversation: ConversationId::parse(conversation).unwrap(),
        trace_id: "turn-1".into(),
        status: ReminderStatus::Pending,
        created_ms: NOW - 86_400_000,
        closed_ms: None,
    }
}

fn ctx(occurrence: &str) -> RunContext {
    RunContext {
        job: JobName::parse("reminders").unwrap(),
        occurrence: occurrence.into(),
        scheduled: chrono::DateTime::from_timestamp_millis(NOW).unwrap(),
        attempt: 1,
        trace_id: "attempt".into(),
    }
}

fn job(store: &Arc<dyn JobStore>, speaker: &Arc<Recorder>) -> RemindersJob {
    let clock = ManualClock::at_ms(NOW);
    let (_tx, rx) = watch::channel(Budget::default());
    let voice = Voice::new(Arc::clone(store), speaker.clone(), clock.clone(), rx);
    RemindersJob::new(Arc::clone(store), voice, clock)
}

#[tokio::test]
async fn a_due_reminder_is_said_once_to_its_captured_target_and_closed() {
    let store: Arc<dyn JobStore> =
        steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let speaker = Arc::new(Recorder::default());
    let job = job(&store, &speaker);
    assert_eq!(
        job.run(&ctx("at-1")).await.unwrap(),
        JobOutcome::Nothing("no reminder due".into())
    );
    assert!(speaker.messages().is_empty());
    assert!(
        store.engagement_since(0).await.unwrap().is_empty(),
        "nothing recorded"
    );

    store
        .add_reminder(&reminder("due", NOW - 1, "tg-old-session"))
        .await
        .unwrap();
    store
        .add_reminder(&reminder("later", NOW + 60_000, "tg-old-session"))
        .await
        .unwrap();
    let out = job.run(&ctx("at-2")).await.unwrap();
    assert_eq!(
        out,
        JobOutcome::Done("1 reminder(s) delivered, 0 held".into())
    );
    let said = speaker.messages();
    assert_eq!(said.len(), 1);
    assert_eq!(
        said[0].0.conversation.as_str(),
        "tg-old-session",
        "the target captured when it was set"
    );
    assert_eq!(said[0].0.surface, Surface::Telegram);
    assert_eq!(said[0].1.text, "⏰ Reminder: water the plants");
    assert_eq!(said[0].1.genre, "reminder");
    assert_eq!(
        store.reminder("due").await.unwrap().unwrap().status,
        ReminderStatus::Delivered
    );
    assert_eq!(
        store.reminder("later").await.unwrap().unwrap().status,
        ReminderStatus::Pending
    );
    // The next minute: nothing new is due.
    assert!(matches!(
        job.run(&ctx("at-3")).await.unwrap(),
        JobOutcome::Nothing(_)
    ));
    assert_eq!(speaker.messages().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runners_at_once_deliver_each_reminder_once() {
    let store: Arc<dyn JobStore> =
        steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let speaker = Arc::new(Recorder::default());
    for n in 0..10 {
        store
            .add_reminder(&reminder(&format!("r{n}"), NOW - n, "web-inbox"))
            .await
            .unwrap();
    }
    let (a, b) = (
        Arc::new(job(&store, &speaker)),
        Arc::new(job(&store, &speaker)),
    );
    let (ra, rb) = tokio::join!(
        {
            let a = a.clone();
            async move { a.run(&ctx("p-a")).await }
        },
        {
            let b = b.clone();
            async move { b.run(&ctx("p-b")).await }
        },
    );
    ra.unwrap();
    rb.unwrap();
    let said = speaker.messages();
    assert_eq!(said.len(), 10, "each reminder once: {}", said.len());
    assert!(store.due_reminders(NOW, 100).await.unwrap().is_empty());
}
