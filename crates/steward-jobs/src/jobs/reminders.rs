//! Reminders falling due: each pending reminder whose time has come is said to the target
//! captured when it was set (never looked up now: the session that set it may be long
//! gone) and closed as delivered. Exactly once, also with several processes: the message is
//! recorded under the reminder's id before it is handed over, and closing is a
//! compare-and-set. With nothing due it does nothing at all (no model is involved).
//!
//! Owns: turning due reminders into messages. Does not own: setting them (the
//! `schedule_reminder` tool), the budget (`voice`).

use std::sync::Arc;

use steward_core::DeliveryTarget;
use steward_protocol::Clock;
use steward_store::{JobStore, Reminder, ReminderStatus};

use crate::job::{Job, JobError, JobOutcome, RunContext};
use crate::voice::{Said, Voice, genre};

/// Most reminders one attempt delivers (the rest come on the next).
const BATCH: usize = 50;

pub struct RemindersJob {
    store: Arc<dyn JobStore>,
    voice: Voice,
    clock: Arc<dyn Clock>,
}

impl RemindersJob {
    pub fn new(store: Arc<dyn JobStore>, voice: Voice, clock: Arc<dyn Clock>) -> RemindersJob {
        RemindersJob {
            store,
            voice,
            clock,
        }
    }
}

/// How a reminder reads when it arrives.
pub fn reminder_text(reminder: &Reminder) -> String {
    format!("⏰ Reminder: {}", reminder.text)
}

#[async_trait::async_trait]
impl Job for RemindersJob {
    async fn run(&self, ctx: &RunContext) -> Result<JobOutcome, JobError> {
        let due = self
            .store
            .due_reminders(self.clock.now_ms(), BATCH)
            .await
            .map_err(|e| JobError::retry(format!("could not read reminders: {e}")))?;
        if due.is_empty() {
            return Ok(JobOutcome::Nothing("no reminder due".to_owned()));
        }
        let (mut said, mut held) = (0, 0);
        for reminder in &due {
            // The reminder's own id is the occurrence of its message: one message per reminder
            // whichever attempt (or process) gets to it.
            let one = RunContext {
                occurrence: format!("reminder-{}", reminder.id),
                trace_id: uuid::Uuid::new_v4().simple().to_string(),
                ..ctx.clone()
            };
            let target = DeliveryTarget {
                surface: reminder.surface,
                conversation: reminder.conversation.clone(),
            };
            match self
                .voice
                .say(&one, &target, genre::REMINDER, reminder_text(reminder))
                .await?
            {
                Said::Delivered(_) | Said::AlreadySaid => {
                    let closed = self
                        .store
                        .close_reminder(
                            &reminder.id,
                            ReminderStatus::Delivered,
                            self.clock.now_ms(),
                        )
                        .await
                        .map_err(|e| JobError::retry(format!("could not close a reminder: {e}")))?;
                    said += usize::from(closed);
                }
                // Silenced: it stays pending and speaks once the owner lets reminders speak.
                Said::Held(_) => held += 1,
            }
        }
        Ok(JobOutcome::Done(format!(
            "{said} reminder(s) delivered, {held} held"
        )))
    }
}
