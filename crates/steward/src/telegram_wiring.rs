//! The Telegram surface in `steward serve`: built when `telegram.bot_token` is set — long
//! polling, or webhook mode when `telegram.webhook_url` is set (the webhook is registered with
//! its secret at start; deliveries come through steward-server's `/telegram/webhook`) — with
//! its card watcher, its deliverer registered with core, and the Mini App's credential check
//! for steward-server (`initData` verified with the bot's token, then the same allowlist); with the speech
//! endpoints (`speech.*`) voice notes are transcribed and answers to them spoken.
//!
//! Owns: putting the surface together from the app's parts, the two ports steward-server
//! asks for (`MiniAppCheck`, `WebhookSink`), and the surface's lifetime in `serve`. Does not
//! own: any of the surface's behaviour (steward-telegram).

use std::sync::Arc;

use anyhow::Context;
use steward_llm::{SpeechEndpoint, SpeechToText, TextToSpeech};
use steward_protocol::Clock;
use steward_server::{MiniAppCheck, WebhookSink};
use steward_telegram::{
    AllowedUsers, Allowlist, BotApi, BotToken, LONG_POLL_SECS, Pacing, Poller, Speech, SurfaceDeps,
    TelegramAuth, TelegramSurface, TokioPause, WebhookOutcome, WebhookReceiver, WebhookSecret,
    verify_init_data,
};
use tokio_util::sync::CancellationToken;

use crate::app::{self, App};
use crate::config::Settings;

/// The running surface; its tasks end when the token given to `start` is cancelled.
pub struct Running {
    /// None in webhook mode.
    pub poller: Option<tokio::task::JoinHandle<()>>,
    pub cards: tokio::task::JoinHandle<()>,
    /// For steward-server: the Mini App's `tma` credential.
    pub mini_app: Arc<dyn MiniAppCheck>,
    /// For steward-server's `/telegram/webhook`, in webhook mode.
    pub webhook: Option<Arc<dyn WebhookSink>>,
}

/// The Mini App's credential: Telegram's signature with this bot's token, fresh, from an
/// allowlisted user. Refusals are logged with their reason; the client gets a plain 401.
struct MiniAppAuth {
    token: BotToken,
    users: AllowedUsers,
    clock: Arc<dyn Clock>,
}

impl MiniAppCheck for MiniAppAuth {
    fn admits(&self, init_data: &str) -> bool {
        match verify_init_data(init_data, &self.token, self.clock.now_secs()) {
            Ok(v) if u64::try_from(v.user_id).is_ok_and(|id| self.users.contains(id)) => true,
            Ok(v) => {
                tracing::info!(
                    user = v.user_id,
                    "mini app user is not on telegram.allowed_users"
                );
                false
            }
            Err(reason) => {
                tracing::info!(%reason, "mini app initData refused");
                false
            }
        }
    }
}

struct Webhook(WebhookReceiver);

#[async_trait::async_trait]
impl WebhookSink for Webhook {
    fn secret_ok(&self, offered: Option<&[u8]>) -> bool {
        self.0.secret_ok(offered)
    }

    async fn accept(&self, body: &[u8]) -> bool {
        self.0.accept(body).await == WebhookOutcome::Taken
    }
}

/// The surface built from the settings, before anything of it runs.
struct Built {
    surface: TelegramSurface,
    api: BotApi,
    allowlist: Allowlist,
    mini_app: Arc<dyn MiniAppCheck>,
    webhook_secret: Option<WebhookSecret>,
}

/// The surface when a bot token is configured; `None` when it is not.
fn build(
    app: &App,
    settings: &Settings,
    memory: Arc<dyn steward_core::MemoryDesk>,
) -> anyhow::Result<Option<Built>> {
    let Some(raw) = settings.telegram.bot_token.as_deref() else {
        return Ok(None);
    };
    let token = BotToken::parse(raw).context("telegram.bot_token")?;
    let webhook_secret = match (
        &settings.telegram.webhook_url,
        &settings.telegram.webhook_secret,
    ) {
        (None, _) => None,
        (Some(_), Some(secret)) => {
            Some(WebhookSecret::parse(secret).context("telegram.webhook_secret")?)
        }
        (Some(_), None) => anyhow::bail!(
            "telegram.webhook_url is set without telegram.webhook_secret: set STEWARD_TELEGRAM_WEBHOOK_SECRET to a random string of A-Z, a-z, 0-9, _ and - (up to 256)"
        ),
    };
    let mini_app: Arc<dyn MiniAppCheck> = Arc::new(MiniAppAuth {
        token: token.clone(),
        users: settings.telegram.allowed_users.clone(),
        clock: app.clock.clone(),
    });
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
        documents: document_reader(),
    });
    Ok(Some(Built {
        surface,
        api,
        allowlist,
        mini_app,
        webhook_secret,
    }))
}

/// Register only the surface's deliverer (no polling, no webhook, no card watcher): for a
/// command that runs a job once while `steward serve` — which answers the presses of any card
/// this sends, from the same database — keeps receiving updates. False without a bot token.
pub fn register_deliverer_only(
    app: &App,
    settings: &Settings,
    memory: Arc<dyn steward_core::MemoryDesk>,
) -> anyhow::Result<bool> {
    let Some(built) = build(app, settings, memory)? else {
        return Ok(false);
    };
    app.steward.register_delivery(
        steward_protocol::Surface::Telegram,
        Arc::new(built.surface.deliverer()),
    );
    Ok(true)
}

/// Start the Telegram surface when a bot token is configured; `None` when it is not.
pub fn start(
    app: &App,
    settings: &Settings,
    memory: Arc<dyn steward_core::MemoryDesk>,
    stop: &CancellationToken,
) -> anyhow::Result<Option<Running>> {
    let Some(Built {
        surface,
        api,
        allowlist,
        mini_app,
        webhook_secret,
    }) = build(app, settings, memory)?
    else {
        return Ok(None);
    };
    app.steward.register_delivery(
        steward_protocol::Surface::Telegram,
        Arc::new(surface.deliverer()),
    );
    let cards = surface.spawn_card_watcher(stop.child_token());
    if let (Some(url), Some(secret)) = (settings.telegram.webhook_url.clone(), webhook_secret) {
        let receiver = WebhookReceiver::new(secret.clone(), allowlist, surface);
        // Registered in the background: a Bot API outage at start must not stop `serve`.
        tokio::spawn(async move {
            match api.set_webhook(&url, secret.expose()).await {
                Ok(()) => tracing::info!("telegram webhook registered"),
                Err(e) => {
                    tracing::error!(error = %e, "could not register the telegram webhook; `steward doctor` checks it")
                }
            }
        });
        eprintln!("Telegram: webhook mode (updates arrive at /telegram/webhook).");
        return Ok(Some(Running {
            poller: None,
            cards,
            mini_app,
            webhook: Some(Arc::new(Webhook(receiver))),
        }));
    }
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
    Ok(Some(Running {
        poller: Some(poller),
        cards,
        mini_app,
        webhook: None,
    }))
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

/// The PDF reader: this binary started again as `steward read-document`. Without a path to
/// the running binary (it was deleted, say), PDFs are answered as not read.
fn document_reader() -> Option<Arc<steward_sandbox::document::DocumentReader>> {
    match std::env::current_exe() {
        Ok(exe) => Some(Arc::new(steward_sandbox::document::DocumentReader::new(
            exe,
        ))),
        Err(e) => {
            tracing::warn!(error = %e, "no path to the running binary: PDFs sent to the bot are not read");
            None
        }
    }
}
