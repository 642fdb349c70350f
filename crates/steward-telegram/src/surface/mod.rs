//! The Telegram surface at work: admitted updates become turns, button presses, scores and
//! commands; answers, cards and proactive messages go back to the right chat.
//!
//! Owns: `TelegramSurface` (its dependencies, the per-update entry point that long polling and
//! the webhook share, and the card watcher), and the split of the work into `dispatch` (one
//! update in), `chats` (chat ↔ conversation), `reply` (one turn's events out, streamed),
//! `send` (sending what must arrive, and recording it), `card_view` (a card as a message),
//! `cards` (button presses, keeping cards current), `reactions`, `commands`, `deliver` (messages
//! Steward sends unasked), `media` (photos, voice notes, files in) and `turn` (a turn started
//! from a chat, with the optional voice reply). Platform ids stay here and in the `EdgeStore`: core only ever
//! sees conversations and principals. Does not own: who is admitted (`allowlist`), the
//! principal (`auth`), the Bot API calls (`calls`), the text formatting (`format`).

mod card_view;
mod cards;
mod chats;
mod commands;
mod deliver;
mod dispatch;
mod media;
mod reactions;
mod reply;
mod send;
mod turn;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use steward_core::{ApprovalDesk, Assistant, EventFeed, MemoryDesk, SettingsDesk};
use steward_llm::{SpeechToText, TextToSpeech};
use steward_protocol::{Clock, PartLimits};
use steward_sandbox::document::DocumentReader;
use steward_store::EdgeStore;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::allowlist::Admitted;
use crate::auth::TelegramAuth;
use crate::client::BotApi;
use crate::poller::{Pause, PollEnd, Poller};

pub use deliver::TelegramDeliver;
pub use reactions::FeedbackDesk;

/// Longest message text (or caption, or transcript) taken in, in bytes (Telegram's own limit
/// is 4096 characters).
pub(crate) const MAX_INBOUND_BYTES: usize = 16 * 1024;

/// The speech endpoints the surface may use; either may be missing.
#[derive(Debug, Clone, Default)]
pub struct Speech {
    /// Voice notes are transcribed through it; without it they get a reply saying how to
    /// enable them (`speech.stt_base_url`).
    pub to_text: Option<Arc<SpeechToText>>,
    /// When set, the answer to a voice note is also sent spoken (`sendVoice`).
    pub to_voice: Option<Arc<TextToSpeech>>,
}

/// How fast the surface may paint a streaming answer (Telegram allows about one message a
/// second per chat, twenty a minute in a group).
#[derive(Debug, Clone)]
pub struct Pacing {
    /// Between two drafts of one answer in a private chat.
    pub draft_every: Duration,
    /// Between two edits of a placeholder in a private chat.
    pub edit_every: Duration,
    /// Between two edits in a group.
    pub group_every: Duration,
    /// Between two "typing…" signals (Telegram shows one for about five seconds).
    pub typing_every: Duration,
}

impl Default for Pacing {
    fn default() -> Self {
        Self {
            draft_every: Duration::from_millis(1000),
            edit_every: Duration::from_millis(1500),
            group_every: Duration::from_secs(3),
            typing_every: Duration::from_secs(4),
        }
    }
}

/// Everything the surface works with.
pub struct SurfaceDeps {
    pub api: BotApi,
    pub auth: TelegramAuth,
    pub assistant: Arc<dyn Assistant>,
    pub approvals: Arc<dyn ApprovalDesk>,
    pub feed: Arc<dyn EventFeed>,
    pub memory: Arc<dyn MemoryDesk>,
    pub settings: Arc<dyn SettingsDesk>,
    pub feedback: Arc<dyn FeedbackDesk>,
    pub edge: Arc<dyn EdgeStore>,
    pub clock: Arc<dyn Clock>,
    pub pause: Arc<dyn Pause>,
    pub pacing: Pacing,
    /// `/model NAME` may switch the model (`telegram.model_switch`).
    pub model_switch: bool,
    /// The size limits a photo is checked against before its download (the app's).
    pub part_limits: PartLimits,
    pub speech: Speech,
    /// Reads a PDF sent as a file into a note's text; `None`: PDFs are answered with a
    /// reply that they are not read here.
    pub documents: Option<Arc<DocumentReader>>,
}

pub(crate) struct Shared {
    pub(crate) deps: SurfaceDeps,
    /// Set once `sendMessageDraft` was refused: placeholder edits from then on.
    pub(crate) drafts_refused: AtomicBool,
}

/// The Telegram surface; cheap to clone.
#[derive(Clone)]
pub struct TelegramSurface {
    shared: Arc<Shared>,
}

impl TelegramSurface {
    pub fn new(deps: SurfaceDeps) -> Self {
        Self {
            shared: Arc::new(Shared {
                deps,
                drafts_refused: AtomicBool::new(false),
            }),
        }
    }

    /// Handle one admitted update: long polling and the webhook both come here. Returns once
    /// the update is taken in order (a message's turn is queued); its answer streams in a
    /// task of its own.
    pub async fn handle(&self, update: Admitted) {
        dispatch::handle(&self.shared, update).await;
    }

    /// Poll and handle until `cancel` fires. Updates are taken one after another (so one
    /// chat's messages queue in the order they were sent); answers stream concurrently.
    pub async fn run_polling<P: Pause + 'static>(
        &self,
        poller: Poller<P>,
        cancel: CancellationToken,
    ) -> PollEnd {
        let (tx, mut rx) = mpsc::channel::<Admitted>(64);
        let me = self.clone();
        let worker = tokio::spawn(async move {
            while let Some(update) = rx.recv().await {
                me.handle(update).await;
            }
        });
        let end = poller.run(tx, cancel).await;
        if let Err(e) = worker.await {
            tracing::error!(error = %e, "telegram update worker ended abnormally");
        }
        end
    }

    /// Keep every approval card shown in a chat true to its action: edited on each state
    /// change (expiry included), live buttons only while pending. Runs until `cancel`.
    pub fn spawn_card_watcher(&self, cancel: CancellationToken) -> tokio::task::JoinHandle<()> {
        let shared = self.shared.clone();
        tokio::spawn(async move { cards::watch(shared, cancel).await })
    }

    /// The deliverer for messages Steward sends unasked, to register with core.
    pub fn deliverer(&self) -> TelegramDeliver {
        TelegramDeliver::new(self.shared.clone())
    }
}
