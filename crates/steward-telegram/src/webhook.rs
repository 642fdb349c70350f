//! Webhook mode's receiving end: the secret Telegram sends back with every update
//! (`X-Telegram-Bot-Api-Secret-Token`, set by `setWebhook`), checked in constant time before
//! the body is even read, then the body decoded, admitted by the allowlist and handled like
//! a polled update (claimed once, so a redelivery does nothing).
//!
//! Owns: `WebhookSecret` (Telegram's rule: 1–256 of `A–Z a–z 0–9 _ -`) and
//! `WebhookReceiver`. Does not own: the HTTP route (steward-server's, through its
//! `WebhookSink` port, which the binary implements with this).

use std::fmt;

use frankenstein::updates::Update;

use crate::allowlist::Allowlist;
use crate::surface::TelegramSurface;

/// The longest update body taken (Telegram's updates are a few KiB; media come as file ids).
pub const MAX_WEBHOOK_BODY: usize = 1024 * 1024;

/// The webhook's shared secret. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a webhook secret is 1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")]
pub struct BadWebhookSecret;

impl WebhookSecret {
    pub const RULE: &str = "1 to 256 characters of A-Z, a-z, 0-9, `_` and `-`";

    pub fn parse(raw: &str) -> Result<Self, BadWebhookSecret> {
        let ok = (1..=256).contains(&raw.len())
            && raw
                .bytes()
                .all(|b| matches!(b, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-'));
        ok.then(|| Self(raw.to_owned())).ok_or(BadWebhookSecret)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `offered` is the secret; the time taken does not depend on where they differ.
    pub fn matches(&self, offered: Option<&[u8]>) -> bool {
        let Some(offered) = offered else { return false };
        let ours = self.0.as_bytes();
        if offered.len() != ours.len() {
            return false;
        }
        ours.iter()
            .zip(offered)
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(***)")
    }
}

/// What became of a webhook delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookOutcome {
    /// Taken (handled, or dropped by the allowlist, or a duplicate): Telegram need not resend.
    Taken,
    /// Not an update: refused (Telegram would resend the same; it is logged).
    Malformed,
}

/// Webhook deliveries into the surface.
pub struct WebhookReceiver {
    secret: WebhookSecret,
    allowlist: Allowlist,
    surface: TelegramSurface,
}

impl WebhookReceiver {
    pub fn new(secret: WebhookSecret, allowlist: Allowlist, surface: TelegramSurface) -> Self {
        Self {
            secret,
            allowlist,
            surface,
        }
    }

    pub fn secret_ok(&self, offered: Option<&[u8]>) -> bool {
        self.secret.matches(offered)
    }

    /// One delivery's body (after the secret was checked).
    pub async fn accept(&self, body: &[u8]) -> WebhookOutcome {
        let update: Update = match serde_json::from_slice(body) {
            Ok(u) => u,
            Err(_) => {
                tracing::warn!(bytes = body.len(), "telegram webhook body is not an update");
                return WebhookOutcome::Malformed;
            }
        };
        match self.allowlist.admit(update) {
            Ok(admitted) => self.surface.handle(admitted).await,
            Err(dropped) => dropped.log(),
        }
        WebhookOutcome::Taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_follow_telegrams_rule_and_match_exactly() {
        let s = WebhookSecret::parse("abc_DEF-123").unwrap();
        assert!(s.matches(Some(b"abc_DEF-123")));
        for wrong in [&b"abc_DEF-12"[..], b"abc_DEF-1234", b"ABC_DEF-123", b""] {
            assert!(!s.matches(Some(wrong)));
        }
        assert!(!s.matches(None));
        assert!(WebhookSecret::parse(&"a".repeat(256)).is_ok());
        for bad in ["", "has space", "semi;colon", "ünï", &"a".repeat(257)] {
            assert!(WebhookSecret::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(format!("{s:?}"), "WebhookSecret(***)");
    }
}
