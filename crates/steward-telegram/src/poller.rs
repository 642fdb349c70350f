//! The long-polling loop: `getUpdates` with an advancing `offset`, each update through the
//! allowlist, admitted ones handed on; failures backed off, never fatal.
//!
//! Owns: the polling call's parameters (`ALLOWED_UPDATES`: naming any type switches
//! Telegram's default set off, so reactions and button presses must be named), the offset,
//! decoding updates one by one (one update of a kind this client does not know must not
//! wedge the bot), the wait after a failure (`backoff::delay`, slept through the injected
//! `Pause`), and stopping on cancellation. Does not own: what happens to an admitted update
//! (the receiver of the channel), or who is admitted (`allowlist`).

use std::time::Duration;

use frankenstein::AsyncTelegramApi;
use frankenstein::methods::GetUpdatesParams;
use frankenstein::response::MethodResponse;
use frankenstein::types::AllowedUpdate;
use frankenstein::updates::Update;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::allowlist::{Admitted, Allowlist};
use crate::backoff;
use crate::client::BotApi;

/// The update kinds the bot asks for.
pub const ALLOWED_UPDATES: [AllowedUpdate; 4] = [
    AllowedUpdate::Message,
    AllowedUpdate::EditedMessage,
    AllowedUpdate::CallbackQuery,
    AllowedUpdate::MessageReaction,
];

/// Seconds one `getUpdates` may hold the connection open waiting for an update.
pub const LONG_POLL_SECS: u32 = 30;

/// Sleeping between attempts, injected so that tests record the waits instead of taking them.
#[async_trait::async_trait]
pub trait Pause: Send + Sync {
    async fn pause(&self, wait: Duration);
}

/// The real wait.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioPause;

#[async_trait::async_trait]
impl Pause for TokioPause {
    async fn pause(&self, wait: Duration) {
        tokio::time::sleep(wait).await;
    }
}

/// Why `Poller::run` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollEnd {
    Cancelled,
    /// The receiver of admitted updates is gone: nobody would handle them.
    ReceiverGone,
}

/// One bot's polling loop.
pub struct Poller<P> {
    api: BotApi,
    allowlist: Allowlist,
    pause: P,
    long_poll_secs: u32,
    /// A draw from `[0, 1)` for the backoff's jitter.
    jitter: fn() -> f64,
}

impl<P: Pause> Poller<P> {
    pub fn new(api: BotApi, allowlist: Allowlist, pause: P) -> Self {
        Self {
            api,
            allowlist,
            pause,
            long_poll_secs: LONG_POLL_SECS,
            jitter: fastrand::f64,
        }
    }

    /// A shorter long poll (tests: so that the fake answers an empty poll quickly).
    #[must_use]
    pub fn with_long_poll_secs(mut self, secs: u32) -> Self {
        self.long_poll_secs = secs;
        self
    }

    /// A fixed jitter source (tests: waits that can be asserted).
    #[must_use]
    pub fn with_jitter(mut self, jitter: fn() -> f64) -> Self {
        self.jitter = jitter;
        self
    }

    /// The `getUpdates` parameters for the next poll.
    pub fn poll_params(&self, offset: Option<i64>) -> GetUpdatesParams {
        GetUpdatesParams::builder()
            .maybe_offset(offset)
            .timeout(self.long_poll_secs)
            .allowed_updates(ALLOWED_UPDATES.to_vec())
            .build()
    }

    /// Polls until `cancel` fires or `admitted` is closed. Failures are logged (without the
    /// token: error texts are scrubbed) and waited out; they never end the loop.
    pub async fn run(
        &self,
        admitted: mpsc::Sender<Admitted>,
        cancel: CancellationToken,
    ) -> PollEnd {
        let mut offset: Option<i64> = None;
        let mut failures: u32 = 0;
        loop {
            let params = self.poll_params(offset);
            // Raw values first: one update this client cannot decode is skipped, not retried
            // forever with the whole batch.
            let polled = tokio::select! {
                () = cancel.cancelled() => return PollEnd::Cancelled,
                r = self.api.request::<_, MethodResponse<Vec<serde_json::Value>>>("getUpdates", Some(&params)) => r,
            };
            let batch = match polled {
                Ok(response) => {
                    failures = 0;
                    response.result
                }
                Err(error) => {
                    failures = failures.saturating_add(1);
                    let wait = backoff::delay(error.kind(), failures, (self.jitter)());
                    tracing::warn!(
                        %error,
                        failures,
                        wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                        "telegram getUpdates failed; polling again after a pause"
                    );
                    tokio::select! {
                        () = cancel.cancelled() => return PollEnd::Cancelled,
                        () = self.pause.pause(wait) => {}
                    }
                    continue;
                }
            };
            for raw in batch {
                let Some(id) = raw.get("update_id").and_then(serde_json::Value::as_i64) else {
                    tracing::warn!("telegram update without an update_id skipped");
                    continue;
                };
                // Confirmed on the next poll: Telegram forgets every update below `offset`.
                offset = Some(offset.map_or(id + 1, |o| o.max(id + 1)));
                let update: Update = match serde_json::from_value(raw) {
                    Ok(u) => u,
                    Err(_) => {
                        tracing::warn!(
                            update_id = id,
                            "telegram update of an unknown shape skipped"
                        );
                        continue;
                    }
                };
                match self.allowlist.admit(update) {
                    Ok(update) => {
                        let sent = tokio::select! {
                            () = cancel.cancelled() => return PollEnd::Cancelled,
                            r = admitted.send(update) => r,
                        };
                        if sent.is_err() {
                            return PollEnd::ReceiverGone;
                        }
                    }
                    Err(dropped) => dropped.log(),
                }
            }
        }
    }
}
