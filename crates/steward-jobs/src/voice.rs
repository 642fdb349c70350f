//! How a job speaks: every proactive message goes through `Voice::say`, which applies the
//! owner's proactive budget (quiet hours, a daily cap, silenced genres), records the message
//! against its occurrence before handing it over (so a retried attempt, or one taken over
//! after a crash, finds it and never sends it twice), then delivers it through the delivery
//! port and records how that went.
//!
//! Genres the owner asked for by name — a reminder they set, a task they defined — are not
//! held by quiet hours or the cap (they said when); only silencing holds them. Steward's own
//! initiative (briefings, recaps, follow-ups, reflection) is held by all three.
//!
//! Owns: the budget and that order. Does not own: what to say (the jobs), how a surface
//! sends it (core's delivery port and the surfaces).

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::{DateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use steward_core::{Delivery, DeliveryError, DeliveryTarget, Proactive};
use steward_protocol::Clock;
use steward_store::{JobStore, ProactiveDelivery, ProactiveMessage, StoreError};
use tokio::sync::watch;

use crate::job::{JobError, RunContext};

/// The genres of proactive messages.
pub mod genre {
    pub const REMINDER: &str = "reminder";
    pub const TASK: &str = "task";
    pub const BRIEFING: &str = "briefing";
    pub const RECAP: &str = "recap";
    pub const FOLLOW_UP: &str = "follow_up";
    pub const REFLECTION: &str = "reflection";

    /// Every genre, in the order the report lists them.
    pub const ALL: &[&str] = &[REMINDER, TASK, BRIEFING, RECAP, FOLLOW_UP, REFLECTION];

    /// Genres the owner asked for by name: not held by quiet hours or the daily cap.
    pub fn asked_for(genre: &str) -> bool {
        genre == REMINDER || genre == TASK
    }
}

/// `HH:MM-HH:MM` (local; the end may be earlier than the start: overnight), or empty: no
/// quiet hours. `proactive.quiet_hours`'s rule.
pub fn parse_quiet_hours(raw: &str) -> Result<Option<(NaiveTime, NaiveTime)>, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    let wanted = || "quiet hours must be HH:MM-HH:MM, e.g. 22:00-07:00, or empty".to_owned();
    let (start, end) = raw.split_once('-').ok_or_else(wanted)?;
    let time = |t: &str| NaiveTime::parse_from_str(t.trim(), "%H:%M").map_err(|_| wanted());
    let (start, end) = (time(start)?, time(end)?);
    if start == end {
        return Err("quiet hours must not start and end at the same time".to_owned());
    }
    Ok(Some((start, end)))
}

/// Genres separated by commas (each one of `genre::ALL`), or empty.
/// `proactive.silenced`'s rule.
pub fn parse_silenced(raw: &str) -> Result<BTreeSet<String>, String> {
    let mut out = BTreeSet::new();
    for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if !genre::ALL.contains(&part) {
            return Err(format!(
                "silenced genres must be among {}, separated by commas",
                genre::ALL.join(", ")
            ));
        }
        out.insert(part.to_owned());
    }
    Ok(out)
}

/// The owner's proactive budget (`proactive.*` settings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Local start and end of the quiet hours (the end may be before the start: overnight).
    pub quiet: Option<(NaiveTime, NaiveTime)>,
    /// Most proactive messages per local day; 0: no cap.
    pub daily_cap: u32,
    /// Genres that never speak.
    pub silenced: BTreeSet<String>,
    pub tz: Tz,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            quiet: None,
            daily_cap: 0,
            silenced: BTreeSet::new(),
            tz: Tz::UTC,
        }
    }
}

impl Budget {
    /// Whether `at` falls in the quiet hours.
    pub fn is_quiet(&self, at: DateTime<Utc>) -> bool {
        let Some((start, end)) = self.quiet else {
            return false;
        };
        let local = at.with_timezone(&self.tz).time();
        if start <= end {
            start <= local && local < end
        } else {
            local >= start || local < end
        }
    }

    /// The start of `at`'s local day, in UTC milliseconds (the cap's window).
    pub fn day_start_ms(&self, at: DateTime<Utc>) -> i64 {
        let date = at.with_timezone(&self.tz).date_naive();
        let midnight = date.and_time(NaiveTime::MIN);
        // The first instant of the day: a DST change at midnight makes 00:00 a gap (then
        // the day starts at the gap's end) or repeated (then at the first 00:00).
        self.tz
            .from_local_datetime(&midnight)
            .earliest()
            .map(|t| t.with_timezone(&Utc).timestamp_millis())
            .unwrap_or_else(|| at.timestamp_millis() - 24 * 3_600_000)
    }
}

/// Why a message was not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    QuietHours,
    DailyCap(u32),
    Silenced,
}

impl Held {
    pub fn reason(&self) -> String {
        match self {
            Held::QuietHours => "held: quiet hours".to_owned(),
            Held::DailyCap(n) => {
                format!("held: the daily cap of {n} proactive messages is reached")
            }
            Held::Silenced => "held: the owner silenced this genre".to_owned(),
        }
    }
}

/// What came of `say`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    Delivered(Delivery),
    /// This occurrence's message was handed over before (an earlier attempt).
    AlreadySaid,
    Held(Held),
}

/// The delivery port as the jobs see it (core's `Steward::deliver`).
#[async_trait::async_trait]
pub trait Speaker: Send + Sync + 'static {
    async fn deliver(
        &self,
        target: &DeliveryTarget,
        message: &Proactive,
    ) -> Result<Delivery, DeliveryError>;
}

#[async_trait::async_trait]
impl Speaker for steward_core::Steward {
    async fn deliver(
        &self,
        target: &DeliveryTarget,
        message: &Proactive,
    ) -> Result<Delivery, DeliveryError> {
        steward_core::Steward::deliver(self, target, message).await
    }
}

/// The one way a job speaks.
#[derive(Clone)]
pub struct Voice {
    store: Arc<dyn JobStore>,
    speaker: Arc<dyn Speaker>,
    clock: Arc<dyn Clock>,
    budget: watch::Receiver<Budget>,
}

fn store_failed(e: StoreError) -> JobError {
    JobError::retry(format!("the store failed: {e}"))
}

impl Voice {
    pub fn new(
        store: Arc<dyn JobStore>,
        speaker: Arc<dyn Speaker>,
        clock: Arc<dyn Clock>,
        budget: watch::Receiver<Budget>,
    ) -> Voice {
        Voice {
            store,
            speaker,
            clock,
            budget,
        }
    }

    /// The owner's time zone now (the budget's: it follows the `timezone` setting).
    pub fn tz(&self) -> Tz {
        self.budget.borrow().tz
    }

    /// Whether a message of `genre` would be held now, and why.
    pub async fn held(&self, genre: &str) -> Result<Option<Held>, JobError> {
        let budget = self.budget.borrow().clone();
        if budget.silenced.contains(genre) {
            return Ok(Some(Held::Silenced));
        }
        if genre::asked_for(genre) {
            return Ok(None);
        }
        let now = DateTime::<Utc>::from_timestamp_millis(self.clock.now_ms()).unwrap_or_default();
        if budget.is_quiet(now) {
            return Ok(Some(Held::QuietHours));
        }
        if budget.daily_cap > 0 {
            let today = self
                .store
                .proactive_count_since(budget.day_start_ms(now))
                .await
                .map_err(store_failed)?;
            if today >= u64::from(budget.daily_cap) {
                return Ok(Some(Held::DailyCap(budget.daily_cap)));
            }
        }
        Ok(None)
    }

    /// Say `text` (of `genre`) to `target` for the attempt `ctx`: at most once per
    /// occurrence, within the budget.
    pub async fn say(
        &self,
        ctx: &RunContext,
        target: &DeliveryTarget,
        genre: &str,
        text: String,
    ) -> Result<Said, JobError> {
        self.say_with_cards(ctx, target, genre, text, Vec::new())
            .await
    }

    /// `say`, with approval cards (action ids) the message is about, shown under it where
    /// the surface can show a card.
    pub async fn say_with_cards(
        &self,
        ctx: &RunContext,
        target: &DeliveryTarget,
        genre: &str,
        text: String,
        cards: Vec<String>,
    ) -> Result<Said, JobError> {
        if text.trim().is_empty() || text.len() > steward_core::MAX_DELIVERY_BYTES {
            // Checked before anything is recorded: a refused message must not count.
            return Err(JobError::permanent(
                "the message is empty or too long to deliver",
            ));
        }
        if let Some(held) = self.held(genre).await? {
            return Ok(Said::Held(held));
        }
        let record = ProactiveMessage {
            genre: genre.to_owned(),
            trace_id: ctx.trace_id.clone(),
            job: ctx.job.as_str().to_owned(),
            occurrence: ctx.occurrence.clone(),
            surface: target.surface,
            conversation: target.conversation.clone(),
            delivery: ProactiveDelivery::Stored,
            at_ms: self.clock.now_ms(),
        };
        if !self
            .store
            .record_proactive(&record)
            .await
            .map_err(store_failed)?
        {
            return Ok(Said::AlreadySaid);
        }
        let message = Proactive {
            text,
            genre: genre.to_owned(),
            trace_id: ctx.trace_id.clone(),
            cards,
        };
        let delivery = match self.speaker.deliver(target, &message).await {
            Ok(d) => d,
            // Refused before anything was stored (empty, too long): nothing was said, and a
            // retry would say the same.
            Err(e) => return Err(JobError::permanent(format!("the message was refused: {e}"))),
        };
        let kept = match &delivery {
            Delivery::Sent => ProactiveDelivery::Sent,
            Delivery::Stored => ProactiveDelivery::Stored,
            Delivery::SurfaceFailed(_) => ProactiveDelivery::Failed,
        };
        if let Err(e) = self
            .store
            .set_proactive_delivery(ctx.job.as_str(), &ctx.occurrence, kept)
            .await
        {
            tracing::warn!(error = %e, "could not record how a proactive message went");
        }
        Ok(Said::Delivered(delivery))
    }
}
