//! The delivery port: how Steward puts a message in front of the owner unasked (a reminder,
//! a briefing, a follow-up) on a `DeliveryTarget` — a surface and a conversation on it. The
//! message is stored in the conversation first (never lost, in every surface's history), then
//! published on the event feed (`FeedEvent::Delivered`: the web app and any subscriber show
//! it), then handed to the target surface's `Deliver` when one is registered (Telegram sends
//! it; a surface without one shows it when next opened).
//!
//! Owns: the target, the port, the order of those three steps and the text's limits. Does not
//! own: when to speak (the scheduler) or how a surface words it.

use crate::feed::Feed;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use steward_protocol::{ConversationId, FeedEvent, Message, Surface};
use steward_store::Store;

/// Longest delivered text, in bytes.
pub const MAX_DELIVERY_BYTES: usize = 64 * 1024;

/// Where a proactive message goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DeliveryTarget {
    pub surface: Surface,
    pub conversation: ConversationId,
}

/// A message Steward sends unasked: its text, what kind it is and the trace a reaction on it
/// scores (a 👍 on a briefing lands on the job run that wrote it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proactive {
    pub text: String,
    /// "reminder", "briefing", "task", … (the store's genre rule).
    pub genre: String,
    /// Unique per message.
    pub trace_id: String,
    /// Approval cards (action ids) the message is about — a scheduled task's step waiting for
    /// the owner: a surface that can show a card with its buttons shows each under the text;
    /// the others leave them to their approvals page.
    pub cards: Vec<String>,
}

/// A surface able to put a message in front of the owner unasked.
#[async_trait::async_trait]
pub trait Deliver: Send + Sync + 'static {
    /// Send `message` to `target`, recording what the surface needs to tie a reaction to
    /// `message.trace_id` and its genre; the error is shown to whoever asked for the delivery.
    async fn deliver(&self, target: &DeliveryTarget, message: &Proactive) -> Result<(), String>;
}

/// How a delivery went; in every case the message is stored and on the feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The target surface took it.
    Sent,
    /// No deliverer for that surface: it shows when the conversation is next opened.
    Stored,
    /// The surface refused or failed; the message is stored (do not deliver it again).
    SurfaceFailed(String),
}

#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    #[error("the message is empty")]
    Empty,
    #[error("the message is longer than {MAX_DELIVERY_BYTES} bytes")]
    TooLong,
    #[error("storage failed; see the log")]
    Store,
}

/// Each surface's deliverer (the composition root registers them), and the one delivery path.
#[derive(Default)]
pub(crate) struct Deliverers {
    by_surface: RwLock<HashMap<Surface, Arc<dyn Deliver>>>,
}

impl Deliverers {
    pub(crate) fn register(&self, surface: Surface, deliver: Arc<dyn Deliver>) {
        match self.by_surface.write() {
            Ok(mut d) => d.insert(surface, deliver),
            Err(poisoned) => poisoned.into_inner().insert(surface, deliver),
        };
    }

    /// Put `text` in front of the owner on `target`: stored, published, sent.
    pub(crate) async fn deliver(
        &self,
        store: &dyn Store,
        feed: &Feed,
        target: &DeliveryTarget,
        message: &Proactive,
    ) -> Result<Delivery, DeliveryError> {
        let text = message.text.as_str();
        if text.trim().is_empty() {
            return Err(DeliveryError::Empty);
        }
        if text.len() > MAX_DELIVERY_BYTES {
            return Err(DeliveryError::TooLong);
        }
        store
            .append_messages(
                &target.conversation,
                &[Message::assistant(text.to_owned(), vec![])],
            )
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "could not store a delivered message");
                DeliveryError::Store
            })?;
        feed.publish(FeedEvent::Delivered {
            conversation_id: target.conversation.clone(),
            surface: target.surface,
            text: text.to_owned(),
        });
        let deliverer = match self.by_surface.read() {
            Ok(d) => d.get(&target.surface).cloned(),
            Err(poisoned) => poisoned.into_inner().get(&target.surface).cloned(),
        };
        let Some(deliverer) = deliverer else {
            return Ok(Delivery::Stored);
        };
        match deliverer.deliver(target, message).await {
            Ok(()) => Ok(Delivery::Sent),
            Err(reason) => {
                tracing::warn!(surface = target.surface.as_str(), %reason, "delivery failed");
                Ok(Delivery::SurfaceFailed(reason))
            }
        }
    }
}
