//! The event feed: subscribe to one conversation (or to everything) and receive the events of
//! every turn running in this process, whichever surface started it, and every change to an
//! approval — from the audit trail, so a card confirmed by another process on the same
//! database (the terminal, a second replica) reaches this one's subscribers too, with who and
//! where. One path for approval events: the trail, never a second notifier beside it.
//!
//! Owns: the broadcast, the subscriber's filter, and the audit tail (started by the first
//! subscriber, polling every `TAIL_EVERY` while the process runs). Does not own the events'
//! vocabulary (`steward_protocol::FeedEvent`) or a transport (the HTTP API streams it as SSE).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use steward_protocol::{ConversationId, FeedEvent, Surface, TurnEvent};
use steward_store::Store;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// Events kept for a slow subscriber before it is told it lagged.
const CAPACITY: usize = 1024;
/// How often the audit trail is read for new entries.
const TAIL_EVERY: Duration = Duration::from_millis(200);
/// Entries read per poll.
const TAIL_BATCH: usize = 256;

pub(crate) struct Feed {
    /// Made by the first subscriber: a process nobody watches pays nothing for the feed.
    tx: OnceLock<broadcast::Sender<FeedEvent>>,
    tailing: AtomicBool,
    stop: CancellationToken,
}

impl Feed {
    pub(crate) fn new() -> Self {
        Self {
            tx: OnceLock::new(),
            tailing: AtomicBool::new(false),
            stop: CancellationToken::new(),
        }
    }

    /// Publish a turn's event; free when nobody listens.
    pub(crate) fn turn(&self, conversation: &ConversationId, surface: Surface, event: &TurnEvent) {
        if let Some(tx) = self.tx.get()
            && tx.receiver_count() > 0
        {
            let _ = tx.send(FeedEvent::Turn {
                conversation_id: conversation.clone(),
                surface,
                event: event.clone(),
            });
        }
    }

    /// Publish any event; free when nobody listens.
    pub(crate) fn publish(&self, event: FeedEvent) {
        if let Some(tx) = self.tx.get()
            && tx.receiver_count() > 0
        {
            let _ = tx.send(event);
        }
    }

    fn sender(&self) -> &broadcast::Sender<FeedEvent> {
        self.tx.get_or_init(|| broadcast::channel(CAPACITY).0)
    }

    /// A new subscriber; the first one starts the audit tail.
    pub(crate) fn subscribe(
        self: &Arc<Self>,
        store: &Arc<dyn Store>,
        conversation: Option<ConversationId>,
    ) -> Subscription {
        let rx = self.sender().subscribe();
        if !self.tailing.swap(true, Ordering::SeqCst) {
            let (feed, store) = (Arc::clone(self), Arc::clone(store));
            tokio::spawn(async move { feed.tail(store).await });
        }
        Subscription { rx, conversation }
    }

    pub(crate) fn shutdown(&self) {
        self.stop.cancel();
    }

    async fn tail(&self, store: Arc<dyn Store>) {
        let mut after = match store.audit_head().await {
            Ok(head) => head,
            Err(e) => {
                tracing::warn!(error = %e, "the event feed cannot read the audit trail");
                0
            }
        };
        loop {
            tokio::select! {
                () = self.stop.cancelled() => return,
                () = tokio::time::sleep(TAIL_EVERY) => {}
            }
            let records = match store.audit_since(after, TAIL_BATCH).await {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(error = %e, "the event feed could not read the audit trail");
                    continue;
                }
            };
            for r in records {
                after = after.max(r.seq);
                let _ = self.sender().send(FeedEvent::Approval {
                    conversation_id: r.conversation,
                    action_id: r.entry.action_id,
                    event: r.entry.event,
                    by: r.entry.principal,
                    surface: r.entry.surface,
                    at_ms: r.entry.at_ms,
                });
            }
        }
    }
}

/// The feed as the surfaces see it.
pub trait EventFeed: Send + Sync + 'static {
    /// Subscribe: every turn event of this process and every approval change on this
    /// database, for `conversation` only when one is named.
    fn subscribe(&self, conversation: Option<ConversationId>) -> Subscription;
}

/// One subscriber's stream: only its conversation's events when it named one.
pub struct Subscription {
    rx: broadcast::Receiver<FeedEvent>,
    conversation: Option<ConversationId>,
}

impl Subscription {
    /// The next event for this subscriber; None once Steward shut the feed.
    pub async fn recv(&mut self) -> Option<FeedEvent> {
        loop {
            match self.rx.recv().await {
                Ok(ev) => {
                    let wanted = match &self.conversation {
                        None => true,
                        Some(c) => ev.conversation() == Some(c),
                    };
                    if wanted {
                        return Some(ev);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    return Some(FeedEvent::Lagged { missed });
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}
