//! The recurring-tasks job, with a scripted agent and the injected clock: a due task runs
//! once, as the owner, on the scheduler's surface, in its own conversation, and its answer
//! (with any card) goes to the target captured when it was set; nothing due makes no turn; a
//! fire missed while asleep runs once on waking, a stale one never; a failing run is retried
//! then reported once; another principal's task never runs; two processes run a fire once;
//! the owner's time zone decides when a daily task fires; a run that hangs holds up neither
//! the tick nor another task.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use steward_core::{Assistant, DeliveryTarget, Proactive, TurnStream};
use steward_jobs::jobs::TasksJob;
use steward_jobs::jobs::tasks::{task_conversation, task_occurrence};
use steward_jobs::{Budget, Job, JobOutcome, RunContext, Voice};
use steward_protocol::{
    ActionCard, ActionKind, ConversationId, FailureKind, Inbound, JobName, ManualClock, Principal,
    PrincipalId, Surface, TurnEvent, Usage,
};
use steward_store::{JobStore, OccurrenceStatus, Store, Task, TaskStatus, TaskStore};
use tokio::sync::{mpsc, watch};

use crate::briefing_support::Recorder;

/// An agent that answers each turn with the next scripted events (the last script repeats).
#[derive(Default)]
struct ScriptedAgent {
    turns: Mutex<Vec<Inbound>>,
    scripts: Mutex<VecDeque<Vec<TurnEvent>>>,
}

impl ScriptedAgent {
    fn answering(scripts: Vec<Vec<TurnEvent>>) -> Arc<ScriptedAgent> {
        Arc::new(ScriptedAgent {
            turns: Mutex::default(),
            scripts: Mutex::new(scripts.into()),
        })
    }

    fn turns(&self) -> Vec<Inbound> {
        self.turns.lock().unwrap().clone()
    }
}

impl Assistant for ScriptedAgent {
    fn submit(&self, inbound: Inbound) -> TurnStream {
        self.turns.lock().unwrap().push(inbound);
        let events = {
            let mut scripts = self.scripts.lock().unwrap();
            if scripts.len() > 1 {
                scripts.pop_front().unwrap()
            } else {
                scripts.front().cloned().unwrap_or_default()
            }
        };
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move {
            for e in events {
                let _ = tx.send(e).await;
            }
        });
        rx
    }
}

fn answer(text: &str) -> Vec<TurnEvent> {
    vec![TurnEvent::Final {
        text: text.into(),
        usage: Usage::default(),
        model: "fake".into(),
    }]
}

fn failure() -> Vec<TurnEvent> {
    vec![TurnEvent::Failed {
        kind: FailureKind::Model,
        message: "the model is unreachable".into(),
        retryable: true,
    }]
}

/// Monday 7 December 2026, 09:00:30 UTC.
const MONDAY_0900: i64 = 1_796_634_030_000;
const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;

fn task(id: &str, principal: &str, schedule: &str, created_ms: i64) -> Task {
    Task {
        id: id.into(),
        principal: PrincipalId::parse(principal).unwrap(),
        title: "Morning news".into(),
        prompt: "Summarise the news for me".into(),
        schedule: schedule.into(),
        surface: Surface::Telegram,
        conversation: ConversationId::parse("chat-where-it-was-set").unwrap(),
        trace_id: "turn-1".into(),
        status: TaskStatus::Active,
        created_ms,
        cancelled_ms: None,
    }
}

fn ctx() -> RunContext {
    RunContext {
        job: JobName::parse("tasks").unwrap(),
        occurrence: "at-1".into(),
        scheduled: chrono::DateTime::from_timestamp_millis(MONDAY_0900).unwrap(),
        attempt: 1,
        trace_id: "tick".into(),
    }
}

fn owner() -> Principal {
    Principal::authenticated(PrincipalId::parse("owner").unwrap())
}

struct World {
    store: Arc<dyn Store>,
    clock: Arc<ManualClock>,
    speaker: Arc<Recorder>,
    budget: watch::Sender<Budget>,
}

impl World {
    fn new() -> World {
        let store: Arc<dyn Store> =
            steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
        let (budget, _) = watch::channel(Budget::default());
        World {
            store,
            clock: ManualClock::at_ms(MONDAY_0900),
            speaker: Arc::new(Recorder::default()),
            budget,
        }
    }

    fn job(&self, agent: &Arc<ScriptedAgent>, lease_owner: &str) -> TasksJob {
        let jobs: Arc<dyn JobStore> = self.store.clone();
        let voice = Voice::new(
            Arc::clone(&jobs),
            self.speaker.clone(),
            self.clock.clone(),
            self.budget.subscribe(),
        );
        let tasks: Arc<dyn TaskStore> = self.store.clone();
        TasksJob::new(
            tasks,
            jobs,
            agent.clone(),
            owner(),
            voice,
            self.clock.clone(),
            lease_owner.into(),
            Duration::from_secs(30),
        )
    }

    fn said(&self) -> Vec<(DeliveryTarget, Proactive)> {
        self.speaker.messages()
    }
}

#[tokio::test]
async fn a_due_task_runs_once_as_the_owner_and_answers_where_it_was_set() {
    let w = World::new();
    let t = task("t1", "owner", "daily 09:00", MONDAY_0900 - 2 * DAY);
    w.store.add_task(&t).await.unwrap();
    let agent = ScriptedAgent::answering(vec![answer("Three headlines.")]);
    let job = w.job(&agent, "p1");
    let first = job.run(&ctx()).await.unwrap();
    assert_eq!(first, JobOutcome::Done("1 task run(s) started".into()));
    job.wait_for_runs().await;
    let turns = agent.turns();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].surface, Surface::Scheduler);
    assert_eq!(turns[0].principal, owner());
    assert_eq!(turns[0].conversation, task_conversation("t1").unwrap());
    assert_eq!(turns[0].text, "Summarise the news for me");
    assert!(turns[0].instructions.is_some());
    let said = w.said();
    assert_eq!(said.len(), 1);
    assert_eq!(said[0].0.surface, Surface::Telegram);
    assert_eq!(said[0].0.conversation.as_str(), "chat-where-it-was-set");
    assert_eq!(said[0].1.genre, "task");
    assert_eq!(said[0].1.text, "🔁 Morning news\n\nThree headlines.");
    assert!(said[0].1.cards.is_empty());
    let fire = chrono::DateTime::from_timestamp_millis(MONDAY_0900 - 30_000).unwrap();
    let record = w
        .store
        .occurrence("task-runs", &task_occurrence("t1", fire))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(record.status, OccurrenceStatus::Done);

    // The same minute again, and the next ones: the fire is done.
    for later in [0, MINUTE, 10 * MINUTE] {
        w.clock.set_ms(MONDAY_0900 + later);
        assert_eq!(
            job.run(&ctx()).await.unwrap(),
            JobOutcome::Nothing("no task due".into())
        );
    }
    assert_eq!(agent.turns().len(), 1);
    // The next day's fire runs.
    w.clock.set_ms(MONDAY_0900 + DAY);
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 2);
    assert_eq!(w.said().len(), 2);
}

#[tokio::test]
async fn a_card_raised_by_a_run_goes_with_its_message() {
    let w = World::new();
    w.store
        .add_task(&task("t1", "owner", "daily 09:00", MONDAY_0900 - DAY))
        .await
        .unwrap();
    let card = ActionCard {
        action_id: "act-42".into(),
        kind: ActionKind::Tool,
        tool: "send_mail".into(),
        text: "Send mail to the team".into(),
        expires_at_ms: MONDAY_0900 + HOUR,
        confirmable: true,
        revision: 1,
    };
    let mut events = vec![TurnEvent::ApprovalRequired { card }];
    events.extend(answer(""));
    let agent = ScriptedAgent::answering(vec![events]);
    let job = w.job(&agent, "p1");
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    let said = w.said();
    assert_eq!(said.len(), 1);
    assert_eq!(said[0].1.cards, ["act-42"]);
    assert!(said[0].1.text.contains("waiting for your approval"));
}

#[tokio::test]
async fn with_nothing_due_no_turn_is_started() {
    let w = World::new();
    // Set this morning before its 10:00 fire; another set just now for 09:00 (tomorrow's).
    w.store
        .add_task(&task("t1", "owner", "daily 10:00", MONDAY_0900 - HOUR))
        .await
        .unwrap();
    w.store
        .add_task(&task("t2", "owner", "daily 09:00", MONDAY_0900))
        .await
        .unwrap();
    let agent = ScriptedAgent::answering(vec![answer("x")]);
    assert_eq!(
        w.job(&agent, "p1").run(&ctx()).await.unwrap(),
        JobOutcome::Nothing("no task due".into())
    );
    assert!(agent.turns().is_empty());
    assert!(w.said().is_empty());
}

#[tokio::test]
async fn a_fire_missed_while_asleep_runs_once_and_a_stale_one_never() {
    let w = World::new();
    w.store
        .add_task(&task("t1", "owner", "daily 09:00", MONDAY_0900 - 5 * DAY))
        .await
        .unwrap();
    w.store
        .add_task(&task("t2", "owner", "daily 01:00", MONDAY_0900 - 5 * DAY))
        .await
        .unwrap();
    let agent = ScriptedAgent::answering(vec![answer("done")]);
    // Asleep for days; woken at 11:00: 09:00 today is two hours late (runs, once), 01:00 is
    // ten hours late (past the six-hour limit: not run; tomorrow's runs).
    w.clock.set_ms(MONDAY_0900 + 2 * HOUR);
    let job = w.job(&agent, "p1");
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    let turns = agent.turns();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].conversation, task_conversation("t1").unwrap());
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 1);
}

#[tokio::test]
async fn a_failing_run_is_retried_then_reported_once() {
    let w = World::new();
    w.store
        .add_task(&task("t1", "owner", "daily 09:00", MONDAY_0900 - DAY))
        .await
        .unwrap();
    let agent = ScriptedAgent::answering(vec![failure()]);
    let job = w.job(&agent, "p1");
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 1);
    assert!(w.said().is_empty(), "a retry is not reported");
    // Before the retry time: nothing; at it: the second attempt; then the third.
    w.clock.set_ms(MONDAY_0900 + MINUTE);
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 1);
    w.clock.set_ms(MONDAY_0900 + 6 * MINUTE);
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 2);
    w.clock.set_ms(MONDAY_0900 + 12 * MINUTE);
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 3);
    let said = w.said();
    assert_eq!(said.len(), 1, "reported once");
    assert!(
        said[0].1.text.contains("could not run"),
        "{}",
        said[0].1.text
    );
    assert!(said[0].1.text.contains("the model is unreachable"));
    for later in [20, 40, 120] {
        w.clock.set_ms(MONDAY_0900 + later * MINUTE);
        job.run(&ctx()).await.unwrap();
        job.wait_for_runs().await;
    }
    assert_eq!(agent.turns().len(), 3, "never retried past its attempts");
    assert_eq!(w.said().len(), 1);
    let fire = chrono::DateTime::from_timestamp_millis(MONDAY_0900 - 30_000).unwrap();
    let record = w
        .store
        .occurrence("task-runs", &task_occurrence("t1", fire))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (record.status, record.attempts),
        (OccurrenceStatus::Failed, 3)
    );
    // The fires live under their own job name: the tick's history (where the scheduler reads
    // how far its schedule got) holds none of them.
    assert!(w.store.job_history("tasks", 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn another_principals_task_never_runs_as_the_owner() {
    let w = World::new();
    w.store
        .add_task(&task("t1", "mallory", "daily 09:00", MONDAY_0900 - DAY))
        .await
        .unwrap();
    let agent = ScriptedAgent::answering(vec![answer("x")]);
    let job = w.job(&agent, "p1");
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert!(agent.turns().is_empty());
}

#[tokio::test]
async fn a_cancelled_task_does_not_run() {
    let w = World::new();
    w.store
        .add_task(&task("t1", "owner", "daily 09:00", MONDAY_0900 - DAY))
        .await
        .unwrap();
    assert!(w.store.cancel_task("t1", MONDAY_0900 - HOUR).await.unwrap());
    let agent = ScriptedAgent::answering(vec![answer("x")]);
    let job = w.job(&agent, "p1");
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert!(agent.turns().is_empty());
}

#[tokio::test]
async fn two_runners_at_once_run_a_fire_once() {
    let w = World::new();
    for id in ["t1", "t2", "t3"] {
        w.store
            .add_task(&task(id, "owner", "daily 09:00", MONDAY_0900 - DAY))
            .await
            .unwrap();
    }
    let agent = ScriptedAgent::answering(vec![answer("ok")]);
    let (a, b) = (w.job(&agent, "p1"), w.job(&agent, "p2"));
    let (ca, cb) = (ctx(), ctx());
    let (ra, rb) = tokio::join!(a.run(&ca), b.run(&cb));
    ra.unwrap();
    rb.unwrap();
    a.wait_for_runs().await;
    b.wait_for_runs().await;
    let mut ran: Vec<String> = agent
        .turns()
        .iter()
        .map(|t| t.conversation.as_str().to_owned())
        .collect();
    ran.sort();
    assert_eq!(ran, ["task-t1", "task-t2", "task-t3"]);
    assert_eq!(w.said().len(), 3);
}

#[tokio::test]
async fn the_owners_time_zone_decides_when_a_daily_task_fires() {
    let w = World::new();
    // 09:00 in Berlin is 08:00 UTC in December.
    w.store
        .add_task(&task("t1", "owner", "daily 09:00", MONDAY_0900 - DAY))
        .await
        .unwrap();
    let agent = ScriptedAgent::answering(vec![answer("ok")]);
    let job = w.job(&agent, "p1");
    w.budget.send_modify(|b| b.tz = chrono_tz::Europe::Berlin);
    w.clock.set_ms(MONDAY_0900 - HOUR - 60_000);
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert!(agent.turns().is_empty(), "07:59 UTC is 08:59 in Berlin");
    w.clock.set_ms(MONDAY_0900 - HOUR + 30_000);
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 1, "08:00:30 UTC is 09:00:30 in Berlin");
    // The owner moves to New York (09:00 there is 14:00 UTC): the next fire follows.
    w.budget
        .send_modify(|b| b.tz = chrono_tz::America::New_York);
    w.clock.set_ms(MONDAY_0900 + 4 * HOUR + 59 * MINUTE);
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 1);
    w.clock.set_ms(MONDAY_0900 + 5 * HOUR + MINUTE);
    job.run(&ctx()).await.unwrap();
    job.wait_for_runs().await;
    assert_eq!(agent.turns().len(), 2);
}

/// An agent whose turns never end (a model that hangs).
#[derive(Default)]
struct HangingAgent {
    turns: Mutex<Vec<Inbound>>,
    open: Mutex<Vec<mpsc::Sender<TurnEvent>>>,
}

impl Assistant for HangingAgent {
    fn submit(&self, inbound: Inbound) -> TurnStream {
        self.turns.lock().unwrap().push(inbound);
        let (tx, rx) = mpsc::channel(1);
        self.open.lock().unwrap().push(tx);
        rx
    }
}

#[tokio::test]
async fn a_run_that_hangs_holds_up_neither_the_tick_nor_another_task() {
    let w = World::new();
    w.store
        .add_task(&task("slow", "owner", "daily 09:00", MONDAY_0900 - DAY))
        .await
        .unwrap();
    w.store
        .add_task(&task("next", "owner", "daily 09:01", MONDAY_0900 - DAY))
        .await
        .unwrap();
    let agent = Arc::new(HangingAgent::default());
    let jobs: Arc<dyn JobStore> = w.store.clone();
    let voice = Voice::new(
        Arc::clone(&jobs),
        w.speaker.clone(),
        w.clock.clone(),
        w.budget.subscribe(),
    );
    let tasks: Arc<dyn TaskStore> = w.store.clone();
    let job = TasksJob::new(
        tasks,
        jobs,
        agent.clone(),
        owner(),
        voice,
        w.clock.clone(),
        "p1".into(),
        Duration::from_secs(600),
    );
    // The guard only keeps a broken build from hanging the suite.
    let tick_ctx = ctx();
    let tick = tokio::time::timeout(Duration::from_secs(30), job.run(&tick_ctx));
    assert_eq!(
        tick.await.unwrap().unwrap(),
        JobOutcome::Done("1 task run(s) started".into())
    );
    for _ in 0..5_000 {
        if !agent.turns.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    w.clock.set_ms(MONDAY_0900 + MINUTE);
    let tick = tokio::time::timeout(Duration::from_secs(30), job.run(&tick_ctx));
    assert_eq!(
        tick.await.unwrap().unwrap(),
        JobOutcome::Done("1 task run(s) started".into()),
        "the next task starts while the slow one still runs"
    );
    // The runs are on tasks of their own: each reaches the agent soon after its tick.
    let ran = || -> Vec<String> {
        agent
            .turns
            .lock()
            .unwrap()
            .iter()
            .map(|t| t.conversation.as_str().to_owned())
            .collect()
    };
    for _ in 0..5_000 {
        if ran().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert_eq!(ran(), ["task-slow", "task-next"]);
    // The slow one is held by its lease: a tick meanwhile does not start it again.
    w.clock.set_ms(MONDAY_0900 + 2 * MINUTE);
    assert_eq!(
        job.run(&ctx()).await.unwrap(),
        JobOutcome::Nothing("no task due".into())
    );
    assert_eq!(agent.turns.lock().unwrap().len(), 2);
}
