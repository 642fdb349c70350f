//! `Steward`: the assistant behind every surface. Queues turns per conversation, runs
//! them, and shuts down gracefully.
//!
//! The ports surfaces use (`Assistant`, `ApprovalDesk`, `EventFeed`, delivery) are
//! implemented in `ports.rs` by handing each call to the part of core that owns it.
//!
//! Ordering: each conversation has one worker task fed by an unbounded queue; `submit`
//! pushes while holding the queue map lock, and a worker only exits after finding its
//! queue empty under that same lock, so no message is ever stranded and turns in one
//! conversation run strictly in arrival order. Different conversations have different
//! workers and never wait for each other.

mod ports;

use crate::approvals::{ApprovalSettings, Approvals};
use crate::delivery::Deliverers;
use crate::feed::Feed;
use crate::port::TurnStream;
use crate::settings::{AgentSettings, Live, MemoryWiring, ModelBinding};
use crate::taint::PrivateValues;
use crate::turn::{RequestLog, TurnContext, TurnDeps, TurnKind, run_turn};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use steward_llm::{LlmError, ModelRef, Models};
use steward_protocol::{Clock, ConversationId, FailureKind, Inbound, TurnEvent, TurnId};
use steward_store::{BlobStore, Store};
use steward_tools::ToolRegistry;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Capacity of a surface's event channel. Deltas are buffered in an unbounded channel
/// inside the turn, so a slow reader slows delivery, never the model stream.
const EVENT_CHANNEL: usize = 256;

/// Everything the assistant is built from (the composition root fills this in).
pub struct StewardDeps {
    pub store: Arc<dyn Store>,
    pub models: Arc<Models>,
    pub tools: Arc<ToolRegistry>,
    pub settings: AgentSettings,
    pub binding: ModelBinding,
    pub approvals: ApprovalSettings,
    /// None: no memory (no context block, no extraction, no read-later shortcut).
    pub memory: Option<MemoryWiring>,
    /// Secret values from the configuration (API keys, tokens, MCP credentials): an
    /// outbound call that carries one asks first (see `taint`).
    pub secrets: Vec<String>,
    /// "Now" for every time the assistant reads: approval expiry and grants, audit entries,
    /// request records, the `<context>` block, stored timestamps.
    pub clock: Arc<dyn Clock>,
    /// Where the bytes of message parts are kept; None: a message with parts is refused
    /// (`Failed{unsupported}`).
    pub blobs: Option<Arc<dyn BlobStore>>,
}

struct Job {
    inbound: Inbound,
    kind: TurnKind,
    events: mpsc::Sender<TurnEvent>,
}

pub(crate) struct Inner {
    /// What every turn runs on (and the approval desk shares).
    pub(crate) deps: TurnDeps,
    /// Each surface's way of delivering a proactive message (`delivery`).
    pub(crate) deliverers: Deliverers,
    binding: Live<ModelBinding>,
    queues: Mutex<HashMap<ConversationId, mpsc::UnboundedSender<Job>>>,
    /// The running turn of each busy conversation: cancelling its token stops that turn only.
    running: Mutex<HashMap<ConversationId, CancellationToken>>,
    accepting: AtomicBool,
}

/// Cheap to clone; all clones are the same assistant.
#[derive(Clone)]
pub struct Steward {
    pub(crate) inner: Arc<Inner>,
}

impl Steward {
    pub fn new(deps: StewardDeps) -> Self {
        let settings = Arc::new(Live::new(deps.settings));
        let approvals = Arc::new(Approvals {
            store: deps.store.clone(),
            tools: deps.tools.clone(),
            settings: deps.approvals,
            agent: settings.clone(),
            clock: deps.clock.clone(),
        });
        let private = PrivateValues {
            memory: deps.memory.as_ref().map(|w| w.memory.clone()),
            secrets: Arc::new(deps.secrets),
        };
        Self {
            inner: Arc::new(Inner {
                deps: TurnDeps {
                    store: deps.store,
                    clock: deps.clock,
                    blobs: deps.blobs,
                    models: deps.models,
                    tools: deps.tools,
                    settings,
                    approvals,
                    memory: deps.memory,
                    private,
                    requests: RequestLog::default(),
                    feed: Arc::new(Feed::new()),
                    tracker: TaskTracker::new(),
                    hard_stop: CancellationToken::new(),
                },
                deliverers: Deliverers::default(),
                binding: Live::new(deps.binding),
                queues: Mutex::new(HashMap::new()),
                running: Mutex::new(HashMap::new()),
                accepting: AtomicBool::new(true),
            }),
        }
    }

    /// The model binding used by the next turn.
    pub fn binding(&self) -> ModelBinding {
        self.inner.binding.get()
    }

    /// Rebind the model at runtime; applies from the next turn. Refuses unknown providers.
    pub fn set_binding(&self, binding: ModelBinding) -> Result<(), LlmError> {
        for m in [&binding.primary, &binding.fallback].into_iter().flatten() {
            self.inner.deps.models.check(m)?;
        }
        self.inner.binding.set(binding);
        Ok(())
    }

    /// The budgets and time zone the next turn runs with.
    pub fn agent_settings(&self) -> AgentSettings {
        self.inner.deps.settings.get()
    }

    /// Replace the budgets and time zone at runtime; applies from the next turn (a running
    /// turn keeps the ones it started with) and to approved actions run from now on.
    pub fn set_agent_settings(&self, settings: AgentSettings) {
        self.inner.deps.settings.set(settings);
    }

    /// The usage of the last `days` days up to now, per day in the owner's time zone and per
    /// model (`crate::usage`), from this assistant's store and clock.
    pub async fn usage_report(
        &self,
        days: crate::usage::UsageDays,
    ) -> Result<crate::usage::UsageReport, steward_store::StoreError> {
        let deps = &self.inner.deps;
        let tz = deps.settings.get().timezone;
        crate::usage::usage_report(&*deps.store, deps.now_unix(), tz.as_deref(), days).await
    }

    /// Convenience: the label of the primary model, if any.
    pub fn model_label(&self) -> Option<String> {
        self.binding().primary.as_ref().map(ModelRef::to_string)
    }

    /// Conversations with a turn queued or running.
    pub fn busy_conversations(&self) -> usize {
        self.inner.deps.tracker.len()
    }

    /// Stop accepting turns, let running and queued ones finish for up to `grace`, then
    /// cancel what is left and wait (briefly) for those to record their failure.
    pub async fn shutdown(&self, grace: Duration) {
        self.inner.accepting.store(false, Ordering::SeqCst);
        self.inner.deps.feed.shutdown();
        self.inner.deps.tracker.close();
        if tokio::time::timeout(grace, self.inner.deps.tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                in_flight = self.inner.deps.tracker.len(),
                "shutdown grace period over; cancelling running turns"
            );
            self.inner.deps.hard_stop.cancel();
            let _ =
                tokio::time::timeout(Duration::from_secs(5), self.inner.deps.tracker.wait()).await;
        }
    }

    fn refuse(inbound: &Inbound, events: &mpsc::Sender<TurnEvent>) {
        let _ = events.try_send(TurnEvent::Started {
            conversation_id: inbound.conversation.clone(),
            turn_id: new_turn_id(),
        });
        let _ = events.try_send(TurnEvent::Failed {
            kind: FailureKind::Shutdown,
            message: "Steward is shutting down; send the message again once it is back.".into(),
            retryable: true,
        });
    }

    fn spawn_worker(&self, conversation: ConversationId, mut rx: mpsc::UnboundedReceiver<Job>) {
        let inner = Arc::clone(&self.inner);
        self.inner.deps.tracker.spawn(async move {
            loop {
                let job = match rx.try_recv() {
                    Ok(job) => job,
                    Err(_) => {
                        // Decide to exit only under the map lock: `submit` sends under it too.
                        let mut queues = match inner.queues.lock() {
                            Ok(q) => q,
                            Err(poisoned) => poisoned.into_inner(),
                        };
                        match rx.try_recv() {
                            Ok(job) => job,
                            Err(_) => {
                                queues.remove(&conversation);
                                return;
                            }
                        }
                    }
                };
                let binding = inner.binding.get();
                let settings = inner.deps.settings.get();
                // A child of the hard stop: shutdown stops it too; `cancel` stops only it.
                let cancel = inner.deps.hard_stop.child_token();
                lock(&inner.running).insert(conversation.clone(), cancel.clone());
                let ctx = TurnContext {
                    deps: &inner.deps,
                    binding,
                    settings,
                    cancel,
                    turn_id: new_turn_id(),
                };
                run_turn(ctx, job.inbound, job.kind, job.events).await;
                lock(&inner.running).remove(&conversation);
            }
        });
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl Steward {
    /// A turn is queued or running in the conversation.
    pub fn is_busy(&self, conversation: &ConversationId) -> bool {
        lock(&self.inner.queues).contains_key(conversation)
    }

    /// Stop the conversation's running turn: its model call and tool round end, it finishes
    /// with one `Failed{cancelled}`, nothing half-done is stored, and the turns queued behind
    /// it run as usual. Returns whether a turn was running; an idle conversation is a no-op.
    pub fn cancel(&self, conversation: &ConversationId) -> bool {
        match lock(&self.inner.running).get(conversation) {
            Some(token) => {
                tracing::info!(%conversation, "turn cancelled by the owner");
                token.cancel();
                true
            }
            None => false,
        }
    }
}

pub(crate) fn new_turn_id() -> TurnId {
    TurnId::from_u128(uuid::Uuid::new_v4().as_u128())
}

impl Steward {
    pub(crate) fn enqueue(&self, inbound: Inbound, kind: TurnKind) -> TurnStream {
        let (tx, rx) = mpsc::channel(EVENT_CHANNEL);
        if !self.inner.accepting.load(Ordering::SeqCst) {
            Self::refuse(&inbound, &tx);
            return rx;
        }
        let mut queues = match self.inner.queues.lock() {
            Ok(q) => q,
            Err(poisoned) => poisoned.into_inner(),
        };
        let conversation = inbound.conversation.clone();
        let job = Job {
            inbound,
            kind,
            events: tx,
        };
        let job = match queues.get(&conversation) {
            Some(queue) => match queue.send(job) {
                Ok(()) => return rx,
                // The worker is gone (it only leaves via the lock we hold, so this is
                // defensive): start a new one.
                Err(mpsc::error::SendError(job)) => job,
            },
            None => job,
        };
        let (qtx, qrx) = mpsc::unbounded_channel();
        // A fresh channel's receiver is alive, so this cannot fail.
        let _ = qtx.send(job);
        queues.insert(conversation.clone(), qtx);
        drop(queues);
        self.spawn_worker(conversation, qrx);
        rx
    }
}
