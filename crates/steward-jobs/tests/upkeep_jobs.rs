//! The upkeep jobs: reflection asks the model once when there were messages since the last
//! reflection (only those are shown) and never without messages or without a model;
//! retention removes old scheduler records and expired facts and nothing else; the backfill
//! gives a note saved without a vector its vector; the approval sweep reports what it
//! expired. Each says `Nothing` when there was nothing to do.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use steward_jobs::jobs::{
    ApprovalSweep, ApprovalsJob, BackfillJob, ModelChoice, ReflectionJob, RetentionJob,
};
use steward_jobs::{Job, JobOutcome, RunContext};
use steward_llm::{ModelRef, Models, ProviderConfig, ProviderKind, RetryPolicy};
use steward_memory::embed::{EmbedError, Embedder};
use steward_memory::{Memory, MemoryConfig};
use steward_protocol::{ConversationId, FactSource, JobName, ManualClock, Message, Provenance};
use steward_store::{
    ConversationStore, JobStore, MemoryStore, NewFact, NewNote, OccurrenceEnd, Store, StoreConfig,
};
use steward_testkit::{FakeModel, Reply};

const NOW: i64 = 1_796_650_000_000;
const MIN: i64 = 60_000;
const DAY: i64 = 24 * 60 * MIN;
const USER: &str = "owner";

fn ctx(job: &str, occurrence: &str) -> RunContext {
    RunContext {
        job: JobName::parse(job).unwrap(),
        occurrence: occurrence.into(),
        scheduled: chrono::DateTime::from_timestamp_millis(NOW).unwrap(),
        attempt: 1,
        trace_id: "attempt".into(),
    }
}

/// A store and a memory (no embedder) on one manual clock.
fn world() -> (Arc<ManualClock>, Arc<dyn Store>, Arc<Memory>) {
    let clock = ManualClock::at_ms(NOW);
    let store: Arc<dyn Store> =
        steward_store::open(&StoreConfig::in_memory().with_clock(clock.clone())).unwrap();
    let memory =
        Memory::new(store.clone(), None, MemoryConfig::default()).with_clock(clock.clone());
    (clock, store, Arc::new(memory))
}

/// Models over the fake model, no retries (the idle day's test uses it too).
pub fn fake_models(fake: &FakeModel) -> Arc<Models> {
    let provider = ProviderConfig {
        name: "openai".into(),
        kind: ProviderKind::OpenAi,
        base_url: fake.openai_base_url(),
        api_key: Some("sk-test-not-a-real-key".into()),
        stream: false,
        request_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        parts: None,
    };
    let retry = RetryPolicy {
        max_retries: 0,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(20),
        max_retry_after: Duration::from_millis(50),
    };
    Arc::new(Models::new(vec![provider], retry).unwrap())
}

fn model(choice: Option<&str>) -> ModelChoice {
    let choice = choice.map(|m| ModelRef::parse(m).unwrap());
    Arc::new(move || choice.clone())
}

/// A finished occurrence of `job` whose first attempt started at `started_ms`.
async fn ended(store: &Arc<dyn Store>, job: &str, key: &str, started_ms: i64, end: OccurrenceEnd) {
    let claim = store
        .claim_occurrence(job, key, started_ms, "test", started_ms, MIN)
        .await
        .unwrap();
    assert_eq!(claim, steward_store::Claim::Run { attempt: 1 });
    assert!(
        store
            .end_occurrence(job, key, "test", end, "x", started_ms + 1)
            .await
            .unwrap()
    );
}

async fn say(store: &Arc<dyn Store>, clock: &ManualClock, at_ms: i64, text: &str) {
    clock.set_ms(at_ms);
    store
        .append_messages(
            &ConversationId::parse("c1").unwrap(),
            &[Message::user(text)],
        )
        .await
        .unwrap();
    clock.set_ms(NOW);
}

fn transcript(fake: &FakeModel) -> String {
    fake.requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn reflection_asks_once_about_the_messages_since_the_last_reflection() {
    let (clock, store, memory) = world();
    let fake = FakeModel::start().await.unwrap();
    let job = ReflectionJob::new(
        memory,
        fake_models(&fake),
        model(Some("openai:small")),
        store.clone(),
        USER.into(),
    );

    // No messages at all: no model call.
    let out = job.run(&ctx("reflection", "at-1")).await.unwrap();
    assert_eq!(
        out,
        JobOutcome::Nothing("no messages since the last reflection".into())
    );
    assert_eq!(fake.request_count(), 0);

    // One message before the last reflection that did something, one after it.
    say(
        &store,
        &clock,
        NOW - 3 * 60 * MIN,
        "I keep bees on the balcony",
    )
    .await;
    ended(
        &store,
        "reflection",
        "at-prev",
        NOW - 2 * 60 * MIN,
        OccurrenceEnd::Done,
    )
    .await;
    say(
        &store,
        &clock,
        NOW - 30 * MIN,
        "I'm renovating the kitchen; please keep answers short",
    )
    .await;
    fake.push(Reply::text(
        r#"{"facts":[{"key":"project.kitchen","value":"renovating the kitchen","confidence":0.9,"evidence":"user"}],
            "learnings":["keep answers short"]}"#,
    ));
    let out = job.run(&ctx("reflection", "at-2")).await.unwrap();
    assert!(
        matches!(&out, JobOutcome::Done(s) if s.starts_with("1 message(s)")),
        "{out:?}"
    );
    assert_eq!(fake.request_count(), 1, "one model call");
    let shown = transcript(&fake);
    assert!(shown.contains("renovating the kitchen"), "{shown}");
    assert!(
        !shown.contains("bees"),
        "a message the last reflection covered is not shown again: {shown}"
    );
    let fact = store
        .get_fact(USER, "project.kitchen")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(fact.source, FactSource::Reflection);
}

#[tokio::test]
async fn reflection_without_a_model_does_nothing_and_calls_nothing() {
    let (clock, store, memory) = world();
    let fake = FakeModel::start().await.unwrap();
    say(&store, &clock, NOW - MIN, "I'm renovating the kitchen").await;
    let job = ReflectionJob::new(
        memory,
        fake_models(&fake),
        model(None),
        store.clone(),
        USER.into(),
    );
    assert_eq!(
        job.run(&ctx("reflection", "at-1")).await.unwrap(),
        JobOutcome::Nothing("no model configured".into())
    );
    assert_eq!(fake.request_count(), 0);
}

#[tokio::test]
async fn retention_removes_old_job_records_and_expired_facts_only() {
    let (_, store, memory) = world();
    let jobs: Arc<dyn JobStore> = store.clone();
    let job = RetentionJob::new(jobs, memory);
    assert_eq!(
        job.run(&ctx("retention", "at-0")).await.unwrap(),
        JobOutcome::Nothing("nothing old enough to remove".into())
    );

    ended(
        &store,
        "reminders",
        "skipped-8d",
        NOW - 8 * DAY,
        OccurrenceEnd::Skipped,
    )
    .await;
    ended(
        &store,
        "reminders",
        "skipped-6d",
        NOW - 6 * DAY,
        OccurrenceEnd::Skipped,
    )
    .await;
    ended(
        &store,
        "briefing",
        "done-91d",
        NOW - 91 * DAY,
        OccurrenceEnd::Done,
    )
    .await;
    ended(
        &store,
        "briefing",
        "failed-89d",
        NOW - 89 * DAY,
        OccurrenceEnd::Failed,
    )
    .await;
    ended(
        &store,
        "briefing",
        "done-1d",
        NOW - DAY,
        OccurrenceEnd::Done,
    )
    .await;
    let fact = |key: &str, expires_at_ms: Option<i64>| NewFact {
        key: key.into(),
        value: "v".into(),
        source: FactSource::User,
        confidence: 1.0,
        expires_at_ms,
        provenance: Provenance::User { conversation: None },
    };
    store
        .upsert_fact(USER, &fact("trip.hotel", Some(NOW - 1)), NOW - DAY)
        .await
        .unwrap();
    store
        .upsert_fact(USER, &fact("trip.flight", Some(NOW + DAY)), NOW - DAY)
        .await
        .unwrap();
    store
        .upsert_fact(USER, &fact("home.city", None), NOW - DAY)
        .await
        .unwrap();

    assert_eq!(
        job.run(&ctx("retention", "at-1")).await.unwrap(),
        JobOutcome::Done("2 job record(s) and 1 expired fact(s) removed".into())
    );
    let keys = |rows: Vec<steward_store::OccurrenceRecord>| -> Vec<String> {
        rows.into_iter().map(|r| r.occurrence).collect()
    };
    assert_eq!(
        keys(store.job_history("reminders", 10).await.unwrap()),
        ["skipped-6d"]
    );
    assert_eq!(
        keys(store.job_history("briefing", 10).await.unwrap()),
        ["done-1d", "failed-89d"]
    );
    assert!(store.get_fact(USER, "trip.hotel").await.unwrap().is_none());
    assert!(store.get_fact(USER, "trip.flight").await.unwrap().is_some());
    assert!(store.get_fact(USER, "home.city").await.unwrap().is_some());
    assert!(matches!(
        job.run(&ctx("retention", "at-2")).await.unwrap(),
        JobOutcome::Nothing(_)
    ));
}

/// Every text the same unit vector.
struct ConstEmbedder;

#[async_trait::async_trait]
impl Embedder for ConstEmbedder {
    fn model_id(&self) -> &str {
        "test:const"
    }
    fn dims(&self) -> usize {
        4
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|_| vec![1.0, 0.0, 0.0, 0.0]).collect())
    }
}

#[tokio::test]
async fn the_backfill_gives_a_note_saved_without_a_vector_its_vector() {
    let (clock, store, without_embedder) = world();
    // Saved while no embedder was there: the row, no vector.
    without_embedder
        .save_note(
            USER,
            NewNote {
                title: "Passport".into(),
                body: "renewal appointment at the town hall".into(),
                tags: vec![],
                provenance: Provenance::User { conversation: None },
            },
        )
        .await
        .unwrap();
    assert!(matches!(
        BackfillJob::new(without_embedder).run(&ctx("backfill", "at-0")).await.unwrap(),
        JobOutcome::Nothing(s) if s == "no embedding model"
    ));

    let memory = Arc::new(
        Memory::new(
            store.clone(),
            Some(Arc::new(ConstEmbedder)),
            MemoryConfig::default(),
        )
        .with_clock(clock),
    );
    assert_eq!(
        store
            .missing_embeddings("test:const", 10)
            .await
            .unwrap()
            .len(),
        1
    );
    let job = BackfillJob::new(memory);
    assert_eq!(
        job.run(&ctx("backfill", "at-1")).await.unwrap(),
        JobOutcome::Done("1 vector(s) added for test:const".into())
    );
    assert!(
        store
            .missing_embeddings("test:const", 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        job.run(&ctx("backfill", "at-2")).await.unwrap(),
        JobOutcome::Nothing("no vector missing".into())
    );
}

/// Expires what it is told to, counting the sweeps.
struct Sweep {
    answers: Mutex<Vec<Result<usize, String>>>,
    sweeps: AtomicUsize,
}

#[async_trait::async_trait]
impl ApprovalSweep for Sweep {
    async fn expire_overdue(&self) -> Result<usize, String> {
        self.sweeps.fetch_add(1, Ordering::SeqCst);
        self.answers.lock().unwrap().remove(0)
    }
}

#[tokio::test]
async fn the_approval_sweep_says_what_it_expired() {
    let sweep = Arc::new(Sweep {
        answers: Mutex::new(vec![Ok(0), Ok(2), Err("database is locked".into())]),
        sweeps: AtomicUsize::new(0),
    });
    let job = ApprovalsJob::new(sweep.clone());
    assert_eq!(
        job.run(&ctx("approvals", "at-1")).await.unwrap(),
        JobOutcome::Nothing("no approval overdue".into())
    );
    assert_eq!(
        job.run(&ctx("approvals", "at-2")).await.unwrap(),
        JobOutcome::Done("2 approval(s) expired".into())
    );
    let failed = job.run(&ctx("approvals", "at-3")).await.unwrap_err();
    assert!(!failed.permanent, "a failed sweep is tried again");
    assert!(failed.message.contains("database is locked"));
    assert_eq!(sweep.sweeps.load(Ordering::SeqCst), 3);
}
