//! Follow-ups on intentions (genre `follow_up`): an open intention whose due time has passed
//! is followed up at most 3 times — the n-th (n = its `nudges`, 0-based) at due + n days,
//! and never within a day of the one before (so a Steward that was down for days does not
//! send the missed ones in a burst). Undated intentions are never followed up. Each message
//! is said under the key `intention-{id}-nudge-{n}` before the nudge is recorded, so a retry,
//! a takeover after a crash or a second process never sends one twice; the nudge is recorded
//! by whichever attempt first claims it in the KV table (`follow_ups/{id}/nudge-{n}`, holding
//! when it went: the next one's "a day after"), so it never counts twice either; the store's
//! `nudge_intention` refuses a 4th. Written from a template in code: no model call. With
//! nothing due it says `Nothing`.
//!
//! Owns: when an intention is followed up and how that reads. Does not own: the intentions
//! (reflection and the memory tools keep them), the budget (`voice`), where home is (`home`).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use steward_protocol::{Clock, PrincipalId};
use steward_store::{Intention, Store, StoreError};
use tokio::sync::watch;

use super::home::{NOWHERE, home_target};
use super::text::plain;
use crate::job::{Job, JobError, JobOutcome, RunContext};
use crate::voice::{Said, Voice, genre};

/// Most follow-ups per intention (the store's cap on `nudges`).
pub const MAX_FOLLOW_UPS: u32 = 3;
const DAY_MS: i64 = 24 * 3_600_000;
/// Longest intention text shown, in characters.
const TEXT_CHARS: usize = 300;

/// A claim on recording follow-up `n` of intention `id` (its value: when, Unix ms). The
/// first to put it records the nudge, so two attempts that both delivered (one found the
/// message said) never count it twice; the claim of follow-up n-1 says when that one went.
fn claim_key(id: i64, n: u32) -> String {
    format!("follow_ups/{id}/nudge-{n}")
}

/// A claim this old whose nudge is still not recorded was left by an attempt that died
/// between the claim and the nudge: the next attempt finishes it.
const STALE_CLAIM_MS: i64 = 5 * 60_000;

pub struct FollowUpsJob {
    store: Arc<dyn Store>,
    voice: Voice,
    clock: Arc<dyn Clock>,
    owner: PrincipalId,
    zone: watch::Receiver<Tz>,
}

fn store_failed(e: StoreError) -> JobError {
    JobError::retry(format!("the store failed: {e}"))
}

/// When the next follow-up of `intention` is due; None: never (undated, closed, or all 3
/// were sent).
pub fn next_follow_up(intention: &Intention, last_ms: Option<i64>) -> Option<i64> {
    let due = intention.due_at_ms?;
    if !intention.open || intention.nudges >= MAX_FOLLOW_UPS {
        return None;
    }
    let slot = due.saturating_add(i64::from(intention.nudges).saturating_mul(DAY_MS));
    Some(last_ms.map_or(slot, |last| slot.max(last.saturating_add(DAY_MS))))
}

/// How a follow-up reads.
fn follow_up_text(intention: &Intention, tz: Tz) -> String {
    let due = intention
        .due_at_ms
        .and_then(DateTime::<Utc>::from_timestamp_millis)
        .map(|t| t.with_timezone(&tz).format("%a %-d %b %H:%M").to_string())
        .unwrap_or_else(|| "?".to_owned());
    let n = intention.nudges + 1;
    let last = if n == MAX_FOLLOW_UPS {
        " This is the last follow-up."
    } else {
        ""
    };
    format!(
        "🔔 Following up ({n} of {MAX_FOLLOW_UPS}): {} — due {due}. Done, or should it move?{last}",
        plain(&intention.text, TEXT_CHARS)
    )
}

impl FollowUpsJob {
    /// `zone`: the owner's time zone (`timezone`), live.
    pub fn new(
        store: Arc<dyn Store>,
        voice: Voice,
        clock: Arc<dyn Clock>,
        owner: PrincipalId,
        zone: watch::Receiver<Tz>,
    ) -> FollowUpsJob {
        FollowUpsJob {
            store,
            voice,
            clock,
            owner,
            zone,
        }
    }

    /// When the follow-up before the next one of `intention` went, if any.
    async fn last_follow_up(&self, intention: &Intention) -> Result<Option<i64>, JobError> {
        let Some(previous) = intention.nudges.checked_sub(1) else {
            return Ok(None);
        };
        let raw = self
            .store
            .kv_get(&claim_key(intention.id, previous))
            .await
            .map_err(store_failed)?;
        Ok(raw.and_then(|r| r.parse().ok()))
    }

    /// Record that follow-up `n` of `id` was said (once, whichever attempt gets here first).
    async fn record(&self, id: i64, n: u32, now: i64) -> Result<bool, JobError> {
        let key = claim_key(id, n);
        let claimed = self
            .store
            .kv_put_if_absent(&key, &now.to_string())
            .await
            .map_err(store_failed)?;
        if !claimed {
            let at: Option<i64> = self
                .store
                .kv_get(&key)
                .await
                .map_err(store_failed)?
                .and_then(|r| r.parse().ok());
            if at.is_none_or(|at| now - at < STALE_CLAIM_MS) {
                return Ok(false);
            }
            let still_at_n = self
                .store
                .list_intentions(self.owner.as_str(), true)
                .await
                .map_err(store_failed)?
                .iter()
                .any(|i| i.id == id && i.nudges == n);
            if !still_at_n {
                return Ok(false);
            }
        }
        match self.store.nudge_intention(id).await {
            Ok(_) => Ok(true),
            // Closed or capped meanwhile: nothing left to record.
            Err(StoreError::InvalidInput(_)) => Ok(false),
            Err(e) => Err(store_failed(e)),
        }
    }
}

#[async_trait::async_trait]
impl Job for FollowUpsJob {
    async fn run(&self, ctx: &RunContext) -> Result<JobOutcome, JobError> {
        let now = self.clock.now_ms();
        let open = self
            .store
            .list_intentions(self.owner.as_str(), true)
            .await
            .map_err(store_failed)?;
        let mut due = Vec::new();
        for intention in open {
            if intention.due_at_ms.is_none_or(|d| d > now) {
                continue;
            }
            let last = self.last_follow_up(&intention).await?;
            if next_follow_up(&intention, last).is_some_and(|at| at <= now) {
                due.push(intention);
            }
        }
        if due.is_empty() {
            return Ok(JobOutcome::Nothing("no follow-up due".to_owned()));
        }
        let Some(target) = home_target(self.store.as_ref())
            .await
            .map_err(store_failed)?
        else {
            return Ok(JobOutcome::Nothing(NOWHERE.to_owned()));
        };
        let tz = *self.zone.borrow();
        let (mut said, mut held) = (0, 0);
        for intention in &due {
            let n = intention.nudges;
            let one = RunContext {
                occurrence: format!("intention-{}-nudge-{n}", intention.id),
                trace_id: uuid::Uuid::new_v4().simple().to_string(),
                ..ctx.clone()
            };
            match self
                .voice
                .say(
                    &one,
                    &target,
                    genre::FOLLOW_UP,
                    follow_up_text(intention, tz),
                )
                .await?
            {
                Said::Delivered(_) | Said::AlreadySaid => {
                    said += usize::from(self.record(intention.id, n, now).await?);
                }
                // Held (quiet hours, the cap, silenced): it stays due and speaks later.
                Said::Held(_) => held += 1,
            }
        }
        Ok(JobOutcome::Done(format!(
            "{said} follow-up(s) sent, {held} held"
        )))
    }
}
