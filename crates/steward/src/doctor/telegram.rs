//! `steward doctor`'s Telegram check: off without a token; with one, the token asked
//! (`getMe`), the allowlist looked at (empty = the bot answers nobody), and the webhook state
//! compared with the mode configured — each problem with its fix.
//!
//! Owns: that check's words. Does not own: the Bot API calls (steward-telegram).

use std::io;
use std::time::Duration;

use steward_telegram::{BotApi, BotToken, TelegramError};

use super::Report;
use crate::config::Settings;

pub(super) async fn check(r: &mut Report<'_>, s: &Settings) -> io::Result<()> {
    let t = &s.telegram;
    let Some(raw) = t.bot_token.as_deref() else {
        return r.ok("telegram: off (set TELEGRAM_BOT_TOKEN to answer on Telegram)");
    };
    let api = match BotToken::parse(raw)
        .map_err(|e| e.to_string())
        .and_then(|token| {
            BotApi::new(&t.api_base_url, token, Duration::from_secs(5)).map_err(|e| e.to_string())
        }) {
        Ok(api) => api,
        Err(e) => {
            return r.fail(
                &format!("telegram: {e}"),
                &["set TELEGRAM_BOT_TOKEN to the token @BotFather gave you"],
            );
        }
    };
    match api.bot_username().await {
        Ok(name) => r.ok(&format!("telegram: the token works (bot @{name})"))?,
        Err(TelegramError::Api {
            code: 401 | 404, ..
        }) => {
            return r.fail(
                "telegram: the Bot API refused the token",
                &["get the bot's current token from @BotFather (/token) and set TELEGRAM_BOT_TOKEN"],
            );
        }
        Err(e) => {
            return r.fail(
                &format!("telegram: cannot reach the Bot API: {e}"),
                &[format!(
                    "check the network, or telegram.api_base_url ({})",
                    steward_protocol::secret_url::mask_url(&t.api_base_url)
                )],
            );
        }
    }
    if t.allowed_users.is_empty() {
        r.warn(
            "telegram: telegram.allowed_users is empty, so the bot answers nobody",
            &["message the bot, read your numeric id in the log line `telegram update dropped … sender=…`, then set STEWARD_TELEGRAM_ALLOWED_USERS=<id>"],
        )?;
    } else {
        r.ok("telegram: allowlist set")?;
    }
    let info = match api.webhook_info().await {
        Ok(info) => info,
        Err(e) => {
            return r.warn(
                &format!("telegram: webhook state unknown: {e}"),
                &["run `steward doctor` again"],
            );
        }
    };
    match (&t.webhook_url, info.url.is_empty()) {
        (None, true) => r.ok("telegram: long polling (no webhook set)"),
        (None, false) => r.warn(
            "telegram: a webhook is set at Telegram but Steward polls",
            &["nothing to do: `steward serve` deletes the webhook when it starts polling; or set telegram.webhook_url to use it"],
        ),
        (Some(_), _) if t.webhook_secret.is_none() => r.fail(
            "telegram: telegram.webhook_url is set without telegram.webhook_secret",
            &["set STEWARD_TELEGRAM_WEBHOOK_SECRET to a random string of A-Z, a-z, 0-9, _ and - (up to 256)"],
        ),
        (Some(url), _) if &info.url != url => r.warn(
            "telegram: the webhook Telegram has is not telegram.webhook_url",
            &["nothing to do: `steward serve` sets it when it starts"],
        ),
        (Some(_), _) => match info.last_error {
            Some(e) => r.warn(
                &format!("telegram: webhook set; Telegram's last delivery failed: {e}"),
                &["check that the URL reaches this server's /telegram/webhook through your proxy"],
            ),
            None => r.ok(&format!("telegram: webhook set ({} update(s) waiting)", info.pending)),
        },
    }
}
