//! An idle day, with the injected clock: every job of `steward serve` (reminders and tasks
//! every minute, the briefing at 07:30, the recap, follow-ups every 15 minutes, the approval
//! sweep, reflection at 02:00, retention at 03:30, the backfill hourly) runs through a whole
//! Monday in Europe/Berlin on the real scheduler, with a home to speak to, a reminder due in three
//! weeks, an undated intention and a task that is not due until Friday. Nothing is due:
//! no model is called (the fake model's requests are counted), no turn is started, nothing is
//! said — and every job did run (each recorded its occurrences).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use steward_core::{Assistant, TurnStream};
use steward_jobs::jobs::{
    ApprovalSweep, ApprovalsJob, BackfillJob, BriefingJob, FollowUpsJob, ModelChoice, Period,
    ReflectionJob, RemindersJob, RetentionJob, TasksJob,
};
use steward_jobs::runner::{MissedPolicy, RunPolicy};
use steward_jobs::schedule::Schedule;
use steward_jobs::{Budget, Job, JobSettings, ScheduledJob, Scheduler, Voice};
use steward_llm::ModelRef;
use steward_memory::{Memory, MemoryConfig};
use steward_protocol::{
    ConversationId, Inbound, JobName, Message, Principal, PrincipalId, Surface,
};
use steward_store::{
    EdgeKey, JobStore, Reminder, ReminderStatus, Store, StoreConfig, Task, TaskStatus,
};
use steward_testkit::FakeModel;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::briefing_support::{BERLIN, Recorder};
use crate::runner_support::Driver;
use crate::upkeep_jobs::fake_models;

/// Monday 7 December 2026, 00:00 in Berlin (23:00 UTC the day before).
const MONDAY: i64 = 1_796_598_000_000;
const MIN: i64 = 60_000;
const HOUR: i64 = 60 * MIN;
const DAY: i64 = 24 * HOUR;

#[derive(Default)]
struct NoTurns(Mutex<Vec<Inbound>>);

impl Assistant for NoTurns {
    fn submit(&self, inbound: Inbound) -> TurnStream {
        self.0.lock().unwrap().push(inbound);
        let (_tx, rx) = tokio::sync::mpsc::channel(1);
        rx
    }
}

#[derive(Default)]
struct Sweeps(AtomicUsize);

#[async_trait::async_trait]
impl ApprovalSweep for Sweeps {
    async fn expire_overdue(&self) -> Result<usize, String> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(0)
    }
}

#[tokio::test]
async fn an_idle_day_runs_every_job_and_calls_no_model() {
    // The home was last written to three days before the day.
    let d = Driver::at(MONDAY - 3 * DAY);
    let store: Arc<dyn Store> =
        steward_store::open(&StoreConfig::in_memory().with_clock(d.clock.clone())).unwrap();
    let jobs_store: Arc<dyn JobStore> = store.clone();
    let memory = Arc::new(
        Memory::new(store.clone(), None, MemoryConfig::default()).with_clock(d.clock.clone()),
    );
    let fake = FakeModel::start().await.unwrap();
    let owner = PrincipalId::parse("owner").unwrap();

    // A home, last written to three days ago (reflection's 24 hours hold no message); a
    // reminder three weeks away (past even the recap's week); an undated intention; a
    // weekly task for Friday.
    let home = ConversationId::parse("tg-home").unwrap();
    store
        .bind_chat(
            Surface::Telegram,
            &EdgeKey::parse("4242").unwrap(),
            &home,
            MONDAY - 3 * DAY,
        )
        .await
        .unwrap();
    store
        .append_messages(&home, &[Message::user("hi")])
        .await
        .unwrap();
    d.timer.set_ms(MONDAY);
    store
        .add_reminder(&Reminder {
            id: "later".into(),
            principal: owner.clone(),
            text: "dentist".into(),
            due_ms: MONDAY + 21 * DAY + 9 * HOUR,
            shown: "Monday 28 December 2026 at 09:00 (Europe/Berlin)".into(),
            surface: Surface::Telegram,
            conversation: home.clone(),
            trace_id: "t".into(),
            status: ReminderStatus::Pending,
            created_ms: MONDAY - DAY,
            closed_ms: None,
        })
        .await
        .unwrap();
    store
        .add_intention(owner.as_str(), "learn the cello", None, MONDAY - DAY)
        .await
        .unwrap();
    store
        .add_task(&Task {
            id: "fri".into(),
            principal: owner.clone(),
            title: "Weekly digest".into(),
            prompt: "Summarise my week".into(),
            schedule: "weekly fri 18:00".into(),
            surface: Surface::Telegram,
            conversation: home.clone(),
            trace_id: "t".into(),
            status: TaskStatus::Active,
            created_ms: MONDAY - DAY,
            cancelled_ms: None,
        })
        .await
        .unwrap();

    let speaker = Arc::new(Recorder::default());
    let (_budget, budget_rx) = watch::channel(Budget {
        tz: BERLIN,
        ..Budget::default()
    });
    let voice = Voice::new(
        jobs_store.clone(),
        speaker.clone(),
        d.clock.clone(),
        budget_rx,
    );
    let (_zone, zone) = watch::channel(BERLIN);
    let agent = Arc::new(NoTurns::default());
    let sweeps = Arc::new(Sweeps::default());
    let model: ModelChoice = {
        let m = ModelRef::parse("openai:gpt-fake").unwrap();
        Arc::new(move || Some(m.clone()))
    };
    let upkeep = RunPolicy {
        missed: MissedPolicy::RunOnce,
        ..RunPolicy::default()
    };
    let all: Vec<(&str, &str, RunPolicy, Arc<dyn Job>)> = vec![
        (
            "reminders",
            "every 1m",
            RunPolicy::default(),
            Arc::new(RemindersJob::new(
                jobs_store.clone(),
                voice.clone(),
                d.clock.clone(),
            )),
        ),
        (
            "tasks",
            "every 1m",
            RunPolicy::default(),
            Arc::new(TasksJob::new(
                store.clone(),
                jobs_store.clone(),
                agent.clone(),
                Principal::authenticated(owner.clone()),
                voice.clone(),
                d.clock.clone(),
                "p1".into(),
                Duration::from_secs(60),
            )),
        ),
        (
            "briefing",
            "daily 07:30",
            RunPolicy::default(),
            Arc::new(BriefingJob::new(
                store.clone(),
                voice.clone(),
                owner.clone(),
                zone.clone(),
                Period::Day,
            )),
        ),
        (
            "weekly_recap",
            "weekly mon 18:00",
            RunPolicy::default(),
            Arc::new(BriefingJob::new(
                store.clone(),
                voice.clone(),
                owner.clone(),
                zone.clone(),
                Period::Week,
            )),
        ),
        (
            "follow_ups",
            "every 15m",
            RunPolicy::default(),
            Arc::new(FollowUpsJob::new(
                store.clone(),
                voice.clone(),
                d.clock.clone(),
                owner.clone(),
                zone.clone(),
            )),
        ),
        (
            "approvals",
            "every 1m",
            RunPolicy::default(),
            Arc::new(ApprovalsJob::new(sweeps.clone())),
        ),
        (
            "reflection",
            "daily 02:00",
            upkeep,
            Arc::new(ReflectionJob::new(
                memory.clone(),
                fake_models(&fake),
                model,
                jobs_store.clone(),
                owner.as_str().to_owned(),
            )),
        ),
        (
            "retention",
            "daily 03:30",
            upkeep,
            Arc::new(RetentionJob::new(jobs_store.clone(), memory.clone())),
        ),
        (
            "backfill",
            "every 1h",
            upkeep,
            Arc::new(BackfillJob::new(memory.clone())),
        ),
    ];
    let scheduler = Scheduler::new(jobs_store.clone(), d.timer.clone(), "p1".into())
        .with_heartbeat_every(Duration::from_secs(3600));
    let stop = CancellationToken::new();
    let mut senders = Vec::new();
    let names: Vec<&str> = all.iter().map(|(n, ..)| *n).collect();
    for (name, schedule, policy, job) in all {
        let (tx, rx) = watch::channel(JobSettings {
            timing: Arc::new(schedule.parse::<Schedule>().unwrap()),
            tz: BERLIN,
            policy,
        });
        senders.push(tx);
        scheduler.spawn(
            ScheduledJob {
                name: JobName::parse(name).unwrap(),
                job,
                settings: rx,
            },
            stop.clone(),
        );
    }
    d.run_until(MONDAY + DAY, &[&scheduler], names.len(), &[], &[])
        .await;
    stop.cancel();

    assert_eq!(fake.requests().len(), 0, "no model call on an idle day");
    assert!(agent.0.lock().unwrap().is_empty(), "no turn started");
    assert_eq!(speaker.count(), 0, "nothing said");
    assert!(
        sweeps.0.load(Ordering::SeqCst) >= 1440,
        "the sweep ran every minute"
    );
    for name in names {
        let history = jobs_store.job_history(name, 5000).await.unwrap();
        assert!(!history.is_empty(), "{name} never ran");
        assert!(
            history
                .iter()
                .all(|r| r.status == steward_store::OccurrenceStatus::Skipped),
            "{name}: {history:?}"
        );
    }
    let minutes = jobs_store.job_history("reminders", 5000).await.unwrap();
    assert_eq!(minutes.len(), 1440, "every minute of the day, once");
}
