//! Recurring tasks falling due: each active task of the owner whose schedule fired is run as
//! an agent turn with its stored prompt, on `Surface::Scheduler` (it may read; a consequential
//! step parks a card for the owner — the policy never auto-approves there), in a conversation
//! of its own (`task-<id>`: its runs see each other, the owner's chat stays clean); the answer
//! and any card go to the target captured when the task was set.
//!
//! Each claimed run goes on a task of its own and the tick returns at once, so a slow run
//! holds up neither another task nor the next tick. Exactly once per fire, across restarts
//! and processes: each fire is an occurrence of the
//! job `task-runs` (`TASK_RUNS`: not this tick's own name, whose latest occurrence the
//! scheduler reads to know where its schedule stands), `task-<id>-at-<unix seconds>`, claimed with a lease longer than a run may take, before
//! the model is called; the message is said under that key too. Only the latest fire of a
//! task counts, and only while it is at most `MAX_LATE` old: a task missed for a day while the
//! machine slept runs once on waking, not once per missed fire. A failed run is retried
//! (`ATTEMPTS` in all, `RETRY_AFTER` apart), then reported to the owner once. With no task due,
//! the job makes no model call at all.
//!
//! Owns: which fires run, running one, what the owner is told. Does not own: storing tasks
//! (`TaskStore`), setting them (the `schedule_task` tool), the turn (core), the budget (`voice`).

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use steward_core::{Assistant, DeliveryTarget};
use steward_protocol::{Clock, ConversationId, Inbound, JobName, Principal, Surface, TurnEvent};
use steward_store::{Claim, JobStore, OccurrenceEnd, Task, TaskStore};
use tokio::task::JoinSet;

use crate::job::{Job, JobError, JobOutcome, RunContext};
use crate::schedule::Schedule;
use crate::voice::{Voice, genre};

/// The job name each task fire is recorded under (its occurrences, its message).
pub const TASK_RUNS: &str = "task-runs";
/// The oldest fire still run (a later one supersedes it).
pub const MAX_LATE: Duration = Duration::from_secs(6 * 3600);
/// Runs of one fire, the first included.
pub const ATTEMPTS: u32 = 3;
/// Wait before a failed run is tried again.
pub const RETRY_AFTER: Duration = Duration::from_secs(5 * 60);
/// Most active tasks looked at per tick.
const MAX_TASKS: usize = 500;
/// Fires of one task looked at per tick (only the latest counts).
const MAX_FIRES: usize = 64;

/// What the agent is told about a task run besides the owner's prompt (not stored in the
/// history; the prompt is).
const TASK_INSTRUCTIONS: &str = "This is a recurring task the owner scheduled; it runs \
     while nobody is watching. Do what it asks now and answer with the result for the owner, \
     short and complete. Anything consequential waits for the owner's approval: say what is \
     waiting.";

/// The conversation a task's runs happen in.
pub fn task_conversation(task_id: &str) -> Option<ConversationId> {
    ConversationId::parse(&format!("task-{task_id}")).ok()
}

/// The occurrence key of `task`'s fire at `fire`.
pub fn task_occurrence(task_id: &str, fire: DateTime<Utc>) -> String {
    format!("task-{task_id}-at-{}", fire.timestamp())
}

#[derive(Clone)]
pub struct TasksJob {
    tasks: Arc<dyn TaskStore>,
    jobs: Arc<dyn JobStore>,
    agent: Arc<dyn Assistant>,
    /// The owner: tasks run for them alone (another principal's task is never run as them).
    owner: Principal,
    voice: Voice,
    clock: Arc<dyn Clock>,
    /// This process's name in the per-fire leases.
    lease_owner: String,
    /// Longest run of one task (the turn is cancelled past it and the run retried).
    run_timeout: Duration,
    /// The runs started and not yet reaped (shared by every clone).
    in_flight: Arc<tokio::sync::Mutex<JoinSet<()>>>,
}

/// How one run came out.
enum Ran {
    Answered { text: String, cards: Vec<String> },
    Failed { message: String, retryable: bool },
}

impl TasksJob {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        tasks: Arc<dyn TaskStore>,
        jobs: Arc<dyn JobStore>,
        agent: Arc<dyn Assistant>,
        owner: Principal,
        voice: Voice,
        clock: Arc<dyn Clock>,
        lease_owner: String,
        run_timeout: Duration,
    ) -> TasksJob {
        TasksJob {
            tasks,
            jobs,
            agent,
            owner,
            voice,
            clock,
            lease_owner,
            run_timeout,
            in_flight: Arc::default(),
        }
    }

    /// Wait until every run started so far has ended (tests; a command that runs the job
    /// once and exits).
    pub async fn wait_for_runs(&self) {
        let mut runs = self.in_flight.lock().await;
        while let Some(done) = runs.join_next().await {
            if let Err(e) = done {
                tracing::error!(error = %e, "a task run panicked");
            }
        }
    }

    fn now(&self) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp_millis(self.clock.now_ms()).unwrap_or_default()
    }

    /// The fire of `task` that should have run by now, if any.
    fn due_fire(&self, task: &Task, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let schedule = match task.schedule.parse::<Schedule>() {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(task = %task.id, error = %e, "a task's schedule does not parse; it does not run");
                return None;
            }
        };
        let created = DateTime::<Utc>::from_timestamp_millis(task.created_ms).unwrap_or_default();
        let late = chrono::Duration::from_std(MAX_LATE).unwrap_or_default();
        let from = created.max(now - late);
        schedule
            .fires_between(from, now, self.voice.tz(), MAX_FIRES)
            .last()
            .copied()
    }

    /// Run one turn of `task` and wait for its end (or the timeout).
    async fn run_turn(&self, task: &Task, conversation: ConversationId) -> Ran {
        let inbound = Inbound {
            instructions: Some(TASK_INSTRUCTIONS.to_owned()),
            ..Inbound::new(
                conversation.clone(),
                self.owner.clone(),
                Surface::Scheduler,
                task.prompt.clone(),
            )
        };
        let mut events = self.agent.submit(inbound);
        let mut cards = Vec::new();
        let waiting = async {
            while let Some(event) = events.recv().await {
                match event {
                    TurnEvent::ApprovalRequired { card } => cards.push(card.action_id),
                    TurnEvent::Final { text, .. } => return Some(Ok(text)),
                    TurnEvent::Failed {
                        message, retryable, ..
                    } => return Some(Err((message, retryable))),
                    _ => {}
                }
            }
            None
        };
        let ended = tokio::time::timeout(self.run_timeout, waiting).await;
        match ended {
            Ok(Some(Ok(text))) => Ran::Answered { text, cards },
            Ok(Some(Err((message, retryable)))) => Ran::Failed { message, retryable },
            Ok(None) => Ran::Failed {
                message: "the turn ended without an answer".to_owned(),
                retryable: true,
            },
            Err(_) => {
                self.agent.cancel(&conversation);
                Ran::Failed {
                    message: format!("it took longer than {} s", self.run_timeout.as_secs()),
                    retryable: true,
                }
            }
        }
    }

    /// Claim `task`'s fire at `fire` for this process: its key and the attempt to make, or
    /// None (run before, held by another process, waiting for its retry time).
    async fn claim(&self, task: &Task, fire: DateTime<Utc>) -> Option<(String, u32)> {
        let key = task_occurrence(&task.id, fire);
        let lease = self.run_timeout + Duration::from_secs(120);
        let claim = self
            .jobs
            .claim_occurrence(
                TASK_RUNS,
                &key,
                fire.timestamp_millis(),
                &self.lease_owner,
                self.clock.now_ms(),
                i64::try_from(lease.as_millis()).unwrap_or(i64::MAX),
            )
            .await;
        match claim {
            Ok(Claim::Run { attempt }) => Some((key, attempt)),
            Ok(_) => None,
            Err(e) => {
                tracing::warn!(task = %task.id, error = %e, "could not claim a task's run");
                None
            }
        }
    }

    /// Run the claimed attempt `attempt` at `task`'s fire `key`; what it came to.
    async fn run_fire(&self, ctx: &RunContext, task: &Task, key: String, attempt: u32) -> RunFire {
        let Some(conversation) = task_conversation(&task.id) else {
            self.end(
                &key,
                OccurrenceEnd::Failed,
                "the task id makes no conversation id",
            )
            .await;
            return RunFire::Failed;
        };
        let Ok(runs) = JobName::parse(TASK_RUNS) else {
            return RunFire::Failed;
        };
        let one = RunContext {
            job: runs,
            occurrence: key.clone(),
            trace_id: uuid::Uuid::new_v4().simple().to_string(),
            attempt,
            ..ctx.clone()
        };
        let target = DeliveryTarget {
            surface: task.surface,
            conversation: task.conversation.clone(),
        };
        match self.run_turn(task, conversation).await {
            Ran::Answered { text, cards } => {
                let said = self
                    .voice
                    .say_with_cards(
                        &one,
                        &target,
                        genre::TASK,
                        answer_text(task, &text, &cards),
                        cards,
                    )
                    .await;
                match said {
                    Ok(_) => {
                        self.end(&key, OccurrenceEnd::Done, "ran and answered")
                            .await;
                        RunFire::Ran
                    }
                    Err(e) => {
                        self.retry_or_fail(&one, task, &target, &e.message, !e.permanent)
                            .await
                    }
                }
            }
            Ran::Failed { message, retryable } => {
                self.retry_or_fail(&one, task, &target, &message, retryable)
                    .await
            }
        }
    }

    async fn retry_or_fail(
        &self,
        one: &RunContext,
        task: &Task,
        target: &DeliveryTarget,
        message: &str,
        retryable: bool,
    ) -> RunFire {
        if retryable && one.attempt < ATTEMPTS {
            let at = self
                .clock
                .now_ms()
                .saturating_add(i64::try_from(RETRY_AFTER.as_millis()).unwrap_or(i64::MAX));
            self.end(&one.occurrence, OccurrenceEnd::Retry { at_ms: at }, message)
                .await;
            return RunFire::Retrying;
        }
        let notice = format!(
            "🔁 Your task “{}” could not run: {message}. It will run again at its next time.",
            task.title
        );
        if let Err(e) = self.voice.say(one, target, genre::TASK, notice).await {
            tracing::warn!(task = %task.id, error = %e, "could not tell the owner a task failed");
        }
        self.end(&one.occurrence, OccurrenceEnd::Failed, message)
            .await;
        RunFire::Failed
    }

    async fn end(&self, key: &str, end: OccurrenceEnd, outcome: &str) {
        if let Err(e) = self
            .jobs
            .end_occurrence(
                TASK_RUNS,
                key,
                &self.lease_owner,
                end,
                outcome,
                self.clock.now_ms(),
            )
            .await
        {
            tracing::warn!(occurrence = key, error = %e, "could not record a task run's end");
        }
    }
}

/// What one fire came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunFire {
    Ran,
    Retrying,
    Failed,
}

/// How a task's answer reads when it arrives.
pub fn answer_text(task: &Task, answer: &str, cards: &[String]) -> String {
    let answer = answer.trim();
    let mut text = format!("🔁 {}", task.title);
    if !answer.is_empty() {
        text.push_str("\n\n");
        text.push_str(answer);
    }
    if !cards.is_empty() {
        text.push_str(if cards.len() == 1 {
            "\n\nA step is waiting for your approval."
        } else {
            "\n\nSome steps are waiting for your approval."
        });
    }
    text
}

#[async_trait::async_trait]
impl Job for TasksJob {
    async fn run(&self, ctx: &RunContext) -> Result<JobOutcome, JobError> {
        let tasks = self
            .tasks
            .active_tasks(MAX_TASKS)
            .await
            .map_err(|e| JobError::retry(format!("could not read tasks: {e}")))?;
        let now = self.now();
        let due: Vec<(Task, DateTime<Utc>)> = tasks
            .into_iter()
            .filter(|t| &t.principal == self.owner.id())
            .filter_map(|t| self.due_fire(&t, now).map(|fire| (t, fire)))
            .collect();
        if due.is_empty() {
            return Ok(JobOutcome::Nothing("no task due".to_owned()));
        }
        // Each claimed run goes on a task of its own and the tick returns: a slow run never
        // holds up another task's fire, nor the next tick (its lease keeps the fire its own).
        let mut started = 0;
        for (task, fire) in due {
            let Some((key, attempt)) = self.claim(&task, fire).await else {
                continue;
            };
            let job = self.clone();
            let ctx = ctx.clone();
            let mut runs = self.in_flight.lock().await;
            // What finished since is only looked at: each run recorded its own end.
            while let Some(done) = runs.try_join_next() {
                if let Err(e) = done {
                    tracing::error!(error = %e, "a task run panicked");
                }
            }
            runs.spawn(async move {
                let end = job.run_fire(&ctx, &task, key, attempt).await;
                tracing::debug!(task = %task.id, ?end, "a task run ended");
            });
            started += 1;
        }
        if started == 0 {
            return Ok(JobOutcome::Nothing("no task due".to_owned()));
        }
        Ok(JobOutcome::Done(format!("{started} task run(s) started")))
    }

    async fn settle(&self) {
        self.wait_for_runs().await;
    }
}
