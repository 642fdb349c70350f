//! What a turn runs on, stated once: the dependencies struct every phase of a turn gets
//! (`TurnDeps`), the per-run context (`TurnContext`) and the turn's kind. A leaf of the turn:
//! it names what the turn may touch and nothing else.
//!
//! Owns: those types, the time a turn reads, and when the request records were last pruned. Does not own: the queues, the running-turn
//! registry or shutdown (`steward`), or what a phase does with these (the other `turn` files).

use crate::approvals::Approvals;
use crate::feed::Feed;
use crate::settings::{AgentSettings, Live, MemoryWiring, ModelBinding};
use crate::taint::PrivateValues;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use steward_llm::Models;
use steward_protocol::{Clock, TurnId};
use steward_store::{BlobStore, Store};
use steward_tools::ToolRegistry;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Everything a turn may use. Built once by `Steward::new`; the queues and the registry of
/// running turns are not here, so a turn cannot reach into another conversation's work.
pub(crate) struct TurnDeps {
    pub(crate) store: Arc<dyn Store>,
    /// "Now" for everything the turn stamps or shows (request records, the context block).
    pub(crate) clock: Arc<dyn Clock>,
    /// Where the bytes of message parts are kept; None: a message with parts is refused.
    pub(crate) blobs: Option<Arc<dyn BlobStore>>,
    pub(crate) models: Arc<Models>,
    pub(crate) tools: Arc<ToolRegistry>,
    /// The current budgets and time zone; a turn takes a copy at its start (`TurnContext`).
    pub(crate) settings: Arc<Live<AgentSettings>>,
    /// The approval gate's state and the one resolve path (shared with the desk).
    pub(crate) approvals: Arc<Approvals>,
    pub(crate) memory: Option<MemoryWiring>,
    /// Where the taint rule looks for private values in outbound calls.
    pub(crate) private: PrivateValues,
    /// Keyed client requests (retries are the same turn).
    pub(crate) requests: RequestLog,
    /// The event feed every surface may subscribe to.
    pub(crate) feed: Arc<Feed>,
    /// Background work a turn starts (extraction) is tracked so shutdown waits for it.
    pub(crate) tracker: TaskTracker,
    /// Cancelled when the shutdown grace period runs out: running turns stop.
    pub(crate) hard_stop: CancellationToken,
}

impl TurnDeps {
    pub(crate) fn now_unix(&self) -> i64 {
        self.clock.now_secs()
    }

    pub(crate) fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}

/// One run of a turn.
pub(crate) struct TurnContext<'a> {
    pub(crate) deps: &'a TurnDeps,
    pub(crate) binding: ModelBinding,
    /// This turn's budgets and time zone, read once when it started.
    pub(crate) settings: AgentSettings,
    /// Cancels this turn only (`Steward::cancel`); a child of the hard stop.
    pub(crate) cancel: CancellationToken,
    /// Also the trace id: approvals and scores created in this turn refer to it.
    pub(crate) turn_id: TurnId,
}

/// Whether a turn answers the user or continues after an approved action ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnKind {
    User,
    /// The "user" message is Steward's own note with the action's result (fenced).
    FollowUp,
}

/// When the keyed-request records were last pruned (`request.rs` prunes them).
#[derive(Default)]
pub(crate) struct RequestLog {
    last_prune_ms: AtomicI64,
}

impl RequestLog {
    /// Whether a prune is due at `now` (none in the last `every_ms`); claims it, so of
    /// turns ending together only one prunes.
    pub(crate) fn claim_prune(&self, now: i64, every_ms: i64) -> bool {
        let last = self.last_prune_ms.load(Ordering::SeqCst);
        now.saturating_sub(last) >= every_ms
            && self
                .last_prune_ms
                .compare_exchange(last, now, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
    }
}
