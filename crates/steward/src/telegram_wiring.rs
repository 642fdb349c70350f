//! The Telegram surface in `steward serve`: built when `telegram.bot_token` is set, polling
//! the Bot API (long polling; the webhook mode is not built yet), with its card watcher and
//! its deliverer registered with core; with the speech endpoints (`speech.*`) voice notes are
//! transcribed and answers to them spoken.
//!
//! Owns: putting the surface together from the app's parts and its lifetime in `serve`. Does
//! not own: any of the surface's behaviour (steward-telegram).

use std::sync::Arc;

use anyhow::Context;
use steward_llm::{SpeechEndpoint, SpeechToText, TextToSpeech};
use steward_telegram::{
    Allowlist, BotApi, BotToken, LONG_POLL_SECS, Pacing, Poller, Speech, SurfaceDeps, TelegramAuth,
    TelegramSurface, TokioPause,
};
use tokio_util::sync::CancellationToken;

use crate::app::{self, App};
use crate::config::Settings;

/// The running surface's tasks; they end when the token given to `start` is cancelled.
pub struct Running {
    pub poller: tokio::task::JoinHandle<()>,
    pub cards: tokio::task::JoinHandle<()>,
}

/// Start the Telegram surface when a bot token is configured; `None` when it is not.
pub fn start(
    app: &App,
    settings: &Settings,
    memory: Arc<dyn steward_core::MemoryDesk>,
    stop: &CancellationToken,
) -> anyhow::Result<Option<Running>> {
    let Some(raw) = settings.telegram.bot_token.as_deref() else {
        return Ok(None);
    };
    let token = BotToken::parse(raw).context("telegram.bot_token")?;
    let api = BotApi::new(
        &settings.telegram.api_base_url,
        token,
        std::time::Duration::from_secs(u64::from(LONG_POLL_SECS)),
    )
    .context("the Telegram client")?;
    let users = settings.telegram.allowed_users.clone();
    if users.is_empty() {
        eprintln!(
            "Telegram: the bot answers nobody until telegram.allowed_users names you (STEWARD_TELEGRAM_ALLOWED_USERS); each dropped sender's id is logged."
        );
    }
    let allowlist = Allowlist {
        users,
        allow_groups: settings.telegram.allow_groups,
    };
    let surface = TelegramSurface::new(SurfaceDeps {
        api: api.clone(),
        auth: TelegramAuth::new(app::owner_id(settings)?),
        assistant: Arc::new(app.steward.clone()),
        approvals: Arc::new(app.steward.clone()),
        feed: Arc::new(app.steward.clone()),
        memory,
        settings: app.settings.clone(),
        feedback: Arc::new(app.steward.clone()),
        edge: app.store.clone(),
        clock: app.clock.clone(),
        pause: Arc::new(TokioPause),
        pacing: Pacing::default(),
        model_switch: settings.telegram.model_switch,
        part_limits: app.part_limits,
        speech: speech(settings)?,
    });
    app.steward.register_delivery(
        steward_protocol::Surface::Telegram,
        Arc::new(surface.deliverer()),
    );
    let cards = surface.spawn_card_watcher(stop.child_token());
    let poll_stop = stop.child_token();
    let poller = tokio::spawn(async move {
        // `getUpdates` is refused while a webhook is set (an earlier webhook-mode run).
        if let Err(e) = api.delete_webhook().await {
            tracing::warn!(error = %e, "could not clear a telegram webhook before polling");
        }
        let end = surface
            .run_polling(Poller::new(api.clone(), allowlist, TokioPause), poll_stop)
            .await;
        tracing::info!(?end, "telegram polling stopped");
    });
    eprintln!("Telegram: polling the Bot API for updates.");
    Ok(Some(Running { poller, cards }))
}

/// The speech clients `speech.*` configures (either may be absent).
fn speech(settings: &Settings) -> anyhow::Result<Speech> {
    let s = &settings.speech;
    let to_text = match &s.stt_base_url {
        Some(base) => Some(Arc::new(
            SpeechToText::new(&SpeechEndpoint {
                base_url: base.clone(),
                model: s.stt_model.clone(),
                api_key: s.stt_api_key.clone(),
            })
            .context("speech.stt_base_url")?,
        )),
        None => None,
    };
    let to_voice = match &s.tts_base_url {
        Some(base) => Some(Arc::new(
            TextToSpeech::new(
                &SpeechEndpoint {
                    base_url: base.clone(),
                    model: s.tts_model.clone(),
                    api_key: s.tts_api_key.clone(),
                },
                &s.tts_voice,
            )
            .context("speech.tts_base_url")?,
        )),
        None => None,
    };
    Ok(Speech { to_text, to_voice })
}
