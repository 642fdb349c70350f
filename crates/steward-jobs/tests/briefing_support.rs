//! Test support for the briefing and follow-up jobs: a store on a `ManualClock`, a speaker
//! that records what it is handed, a `Voice` over both with a budget the test can change,
//! and the owner's home (a Telegram chat with one message).

use std::sync::{Arc, Mutex};

use chrono_tz::Tz;
use steward_core::{Delivery, DeliveryError, DeliveryTarget, Proactive};
use steward_jobs::{Budget, RunContext, Speaker, Voice};
use steward_protocol::{
    Clock, ConversationId, JobName, ManualClock, Message, PrincipalId, Surface,
};
use steward_store::{EdgeKey, Reminder, ReminderStatus, Store};
use tokio::sync::watch;

pub const HOUR: i64 = 3_600_000;
pub const DAY: i64 = 24 * HOUR;
/// 2026-12-07 00:00 UTC, a Monday (01:00 in Berlin, CET).
pub const MONDAY: i64 = 1_796_601_600_000;
pub const BERLIN: Tz = chrono_tz::Europe::Berlin;
/// The home conversation `Rig::home` binds.
pub const HOME: &str = "tg-home";

/// What the speaker was handed, with the clock's time then.
#[derive(Default)]
pub struct Recorder {
    pub said: Mutex<Vec<(DeliveryTarget, Proactive, i64)>>,
    pub clock: Mutex<Option<Arc<ManualClock>>>,
}

#[async_trait::async_trait]
impl Speaker for Recorder {
    async fn deliver(
        &self,
        target: &DeliveryTarget,
        message: &Proactive,
    ) -> Result<Delivery, DeliveryError> {
        let at = self
            .clock
            .lock()
            .unwrap()
            .as_ref()
            .map_or(0, |c| c.now_ms());
        self.said
            .lock()
            .unwrap()
            .push((target.clone(), message.clone(), at));
        Ok(Delivery::Sent)
    }
}

impl Recorder {
    /// What was handed over, in order.
    pub fn messages(&self) -> Vec<(DeliveryTarget, Proactive)> {
        self.said
            .lock()
            .unwrap()
            .iter()
            .map(|(t, m, _)| (t.clone(), m.clone()))
            .collect()
    }

    pub fn count(&self) -> usize {
        self.said.lock().unwrap().len()
    }
}

pub struct Rig {
    pub store: Arc<dyn Store>,
    pub speaker: Arc<Recorder>,
    pub clock: Arc<ManualClock>,
    pub voice: Voice,
    pub budget: watch::Sender<Budget>,
    pub zone: watch::Receiver<Tz>,
    pub owner: PrincipalId,
}

pub fn rig(now: i64) -> Rig {
    let clock = ManualClock::at_ms(now);
    let store =
        steward_store::open(&steward_store::StoreConfig::in_memory().with_clock(clock.clone()))
            .unwrap();
    let speaker = Arc::new(Recorder::default());
    *speaker.clock.lock().unwrap() = Some(clock.clone());
    let (budget, rx) = watch::channel(Budget {
        tz: BERLIN,
        ..Budget::default()
    });
    let voice = Voice::new(store.clone(), speaker.clone(), clock.clone(), rx);
    let (_zone_tx, zone) = watch::channel(BERLIN);
    Rig {
        store,
        speaker,
        clock,
        voice,
        budget,
        zone,
        owner: PrincipalId::parse("owner").unwrap(),
    }
}

impl Rig {
    /// The owner wrote once in a Telegram chat: that is home.
    pub async fn home(&self) {
        let conversation = ConversationId::parse(HOME).unwrap();
        self.store
            .bind_chat(
                Surface::Telegram,
                &EdgeKey::parse("4242").unwrap(),
                &conversation,
                self.clock.now_ms(),
            )
            .await
            .unwrap();
        self.store
            .append_messages(&conversation, &[Message::user("hi")])
            .await
            .unwrap();
    }

    pub async fn reminder(&self, id: &str, text: &str, due_ms: i64) {
        self.store
            .add_reminder(&Reminder {
                id: id.into(),
                principal: self.owner.clone(),
                text: text.into(),
                due_ms,
                shown: "then".into(),
                surface: Surface::Telegram,
                conversation: ConversationId::parse("tg-old").unwrap(),
                trace_id: "turn".into(),
                status: ReminderStatus::Pending,
                created_ms: MONDAY - 7 * DAY,
                closed_ms: None,
            })
            .await
            .unwrap();
    }

    pub fn ctx(&self, job: &str, scheduled_ms: i64) -> RunContext {
        RunContext {
            job: JobName::parse(job).unwrap(),
            occurrence: format!("at-{}", scheduled_ms / 1000),
            scheduled: chrono::DateTime::from_timestamp_millis(scheduled_ms).unwrap(),
            attempt: 1,
            trace_id: uuid::Uuid::new_v4().simple().to_string(),
        }
    }
}
