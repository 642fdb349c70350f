//! The `JobStore` port: what the scheduler keeps so that proactive work happens exactly once
//! and is accounted for — each occurrence of a job under its dedup key with a lease (several
//! processes on one database: one runs it), its attempts, retries and end; a heartbeat per
//! job; every proactive message with its genre and trace id (so a 👍/👎 lands on the job that
//! spoke, and the engagement report counts per genre); and the reminders people set.
//!
//! Owns the storage semantics (documented on each method, enforced by `contract`). Does not
//! own: when a job fires (steward-jobs' schedules), what a job does, retry policy (the
//! scheduler passes `retry_at` or `Failed`), delivery (core's port).
//!
//! Limits (every adapter refuses the rest with `InvalidInput`; `validate/jobs.rs`): a job name
//! by `steward_protocol::JobName`'s rule; an occurrence key and a lease owner 1..=128 bytes without
//! control characters; an outcome at most 1024 bytes (kept shortened, never refused: it is a
//! summary); a genre by the genre rule; a reminder's text 1..=4096 bytes, its shown time
//! 1..=256; trace ids by the id rule.

use crate::StoreError;
use std::sync::Arc;
use steward_protocol::{ConversationId, PrincipalId, Surface};

pub use steward_protocol::MAX_JOB_NAME_LEN;
/// Longest occurrence key or lease owner, in bytes.
pub const MAX_OCCURRENCE_KEY_LEN: usize = 128;
/// Longest kept outcome of an occurrence, in bytes (longer ones are shortened).
pub const MAX_OUTCOME_LEN: usize = 1024;
/// Longest reminder text, in bytes.
pub const MAX_REMINDER_TEXT_LEN: usize = 4096;
/// Longest shown time of a reminder, in bytes.
pub const MAX_REMINDER_SHOWN_LEN: usize = 256;

/// Where an occurrence stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OccurrenceStatus {
    /// Leased by a runner (running, or its runner died and the lease will expire).
    Running,
    /// Failed an attempt; the next may start at `next_try_ms`.
    Retrying,
    Done,
    /// Nothing to do (nothing due, silenced, over the budget, a missed occurrence skipped).
    Skipped,
    /// Failed its last allowed attempt: never tried again.
    Failed,
}

impl OccurrenceStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OccurrenceStatus::Running => "running",
            OccurrenceStatus::Retrying => "retrying",
            OccurrenceStatus::Done => "done",
            OccurrenceStatus::Skipped => "skipped",
            OccurrenceStatus::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<OccurrenceStatus> {
        Some(match raw {
            "running" => OccurrenceStatus::Running,
            "retrying" => OccurrenceStatus::Retrying,
            "done" => OccurrenceStatus::Done,
            "skipped" => OccurrenceStatus::Skipped,
            "failed" => OccurrenceStatus::Failed,
            _ => return None,
        })
    }

    /// Done, skipped or failed: the occurrence is over for good.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            OccurrenceStatus::Done | OccurrenceStatus::Skipped | OccurrenceStatus::Failed
        )
    }
}

/// The answer to a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// The caller holds the lease and runs this attempt (1 for the first).
    Run { attempt: u32 },
    /// Over for good (done, skipped or failed): never run again.
    Finished(OccurrenceStatus),
    /// Another runner's lease has not expired.
    Held { until_ms: i64 },
    /// A retry is due at this time, not yet.
    RetryAt(i64),
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OccurrenceEnd {
    Done,
    Skipped,
    /// This attempt failed; the next may start at `at_ms`.
    Retry {
        at_ms: i64,
    },
    /// This attempt failed and there is none after it.
    Failed,
}

/// One occurrence as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OccurrenceRecord {
    pub job: String,
    pub occurrence: String,
    /// When it was due (its schedule's fire time).
    pub scheduled_ms: i64,
    pub status: OccurrenceStatus,
    /// Attempts started so far.
    pub attempts: u32,
    /// The current or last lease holder.
    pub owner: String,
    pub lease_until_ms: i64,
    /// When a retry may start (for `Retrying`).
    pub next_try_ms: Option<i64>,
    /// When the first attempt started.
    pub started_ms: i64,
    /// When it ended for good.
    pub finished_ms: Option<i64>,
    /// The last attempt's summary or error (shortened to `MAX_OUTCOME_LEN`).
    pub outcome: String,
}

/// A job's latest sign of life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heartbeat {
    pub job: String,
    pub owner: String,
    pub at_ms: i64,
}

/// What a delivery of a proactive message came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProactiveDelivery {
    /// A surface took it.
    Sent,
    /// Stored in the conversation only (no surface to send it through now).
    Stored,
    /// The surface failed; stored in the conversation.
    Failed,
}

impl ProactiveDelivery {
    pub fn as_str(self) -> &'static str {
        match self {
            ProactiveDelivery::Sent => "sent",
            ProactiveDelivery::Stored => "stored",
            ProactiveDelivery::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<ProactiveDelivery> {
        Some(match raw {
            "sent" => ProactiveDelivery::Sent,
            "stored" => ProactiveDelivery::Stored,
            "failed" => ProactiveDelivery::Failed,
            _ => return None,
        })
    }
}

/// A message Steward sent unasked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProactiveMessage {
    /// "reminder", "briefing", "task", "follow_up", … (the genre rule).
    pub genre: String,
    /// Unique per message: a reaction on it scores this trace.
    pub trace_id: String,
    pub job: String,
    pub occurrence: String,
    pub surface: Surface,
    pub conversation: ConversationId,
    pub delivery: ProactiveDelivery,
    pub at_ms: i64,
}

/// Engagement with one genre's proactive messages since a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenreEngagement {
    pub genre: String,
    pub sent: u64,
    /// Messages whose latest reaction is 👍.
    pub liked: u64,
    /// Messages whose latest reaction is 👎.
    pub disliked: u64,
    /// Messages with no reaction.
    pub ignored: u64,
}

/// Where a reminder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReminderStatus {
    Pending,
    Delivered,
    Cancelled,
}

impl ReminderStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReminderStatus::Pending => "pending",
            ReminderStatus::Delivered => "delivered",
            ReminderStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(raw: &str) -> Option<ReminderStatus> {
        Some(match raw {
            "pending" => ReminderStatus::Pending,
            "delivered" => ReminderStatus::Delivered,
            "cancelled" => ReminderStatus::Cancelled,
            _ => return None,
        })
    }
}

/// A reminder: what to say, when, and where — the target captured when it was set, never
/// looked up when it fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reminder {
    /// 1..=128 bytes (the id rule).
    pub id: String,
    pub principal: PrincipalId,
    pub text: String,
    pub due_ms: i64,
    /// How the due time was shown back when it was set ("Friday 5 December 2026 at 09:00
    /// (Europe/Berlin)").
    pub shown: String,
    pub surface: Surface,
    pub conversation: ConversationId,
    /// The turn that set it.
    pub trace_id: String,
    pub status: ReminderStatus,
    pub created_ms: i64,
    /// When it was delivered or cancelled.
    pub closed_ms: Option<i64>,
}

#[async_trait::async_trait]
pub trait JobStore: Send + Sync {
    /// Claim an attempt at `(job, occurrence)` for `owner`, leasing it until
    /// `now_ms + lease_ms`. Atomic across processes: of concurrent claims exactly one gets
    /// `Run`. A new occurrence → `Run { attempt: 1 }` (recorded `Running`, `scheduled_ms`
    /// kept); a final one → `Finished`; `Running` under an unexpired lease → `Held` (also
    /// for the same owner: a lease is not re-entrant); `Running` with an expired lease (its
    /// runner died) → `Run` with the next attempt; `Retrying` → `Run` with the next attempt
    /// once `next_try_ms` ≤ `now_ms`, else `RetryAt`.
    async fn claim_occurrence(
        &self,
        job: &str,
        occurrence: &str,
        scheduled_ms: i64,
        owner: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Claim, StoreError>;
    /// Extend `owner`'s lease to `until_ms`; false when it no longer holds it.
    async fn renew_lease(
        &self,
        job: &str,
        occurrence: &str,
        owner: &str,
        until_ms: i64,
    ) -> Result<bool, StoreError>;
    /// End `owner`'s attempt; false (and nothing changed) when it no longer holds the lease.
    async fn end_occurrence(
        &self,
        job: &str,
        occurrence: &str,
        owner: &str,
        end: OccurrenceEnd,
        outcome: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError>;
    /// One occurrence, if recorded.
    async fn occurrence(
        &self,
        job: &str,
        occurrence: &str,
    ) -> Result<Option<OccurrenceRecord>, StoreError>;
    /// A job's occurrences, the latest due first (then latest recorded), at most `limit`.
    async fn job_history(
        &self,
        job: &str,
        limit: usize,
    ) -> Result<Vec<OccurrenceRecord>, StoreError>;
    /// Record a sign of life of `job` (replacing the previous one).
    async fn beat(&self, job: &str, owner: &str, at_ms: i64) -> Result<(), StoreError>;
    /// Every job's latest heartbeat, by job name.
    async fn heartbeats(&self) -> Result<Vec<Heartbeat>, StoreError>;
    /// Retention of the scheduler's own records: delete the skipped occurrences that ended
    /// before `skipped_before_ms` and the done or failed ones that ended before
    /// `finished_before_ms`; returns how many were deleted. Never a running or retrying
    /// occurrence (it is not over), and never a job's latest occurrence (the scheduler
    /// counts the fire times due since it).
    async fn prune_occurrences(
        &self,
        skipped_before_ms: i64,
        finished_before_ms: i64,
    ) -> Result<u64, StoreError>;
    /// Record a proactive message. One per (job, occurrence): a second record of the same
    /// occurrence is refused with `false` and changes nothing (a retried delivery must not
    /// count twice).
    async fn record_proactive(&self, message: &ProactiveMessage) -> Result<bool, StoreError>;
    /// Set how the delivery of `(job, occurrence)`'s message went; false when none is
    /// recorded. (The message is recorded before it is handed over, so a retry after a crash
    /// finds it and does not send it twice; the outcome comes after.)
    async fn set_proactive_delivery(
        &self,
        job: &str,
        occurrence: &str,
        delivery: ProactiveDelivery,
    ) -> Result<bool, StoreError>;
    /// Proactive messages recorded at or after `since_ms` (for the daily cap).
    async fn proactive_count_since(&self, since_ms: i64) -> Result<u64, StoreError>;
    /// Engagement per genre with the proactive messages recorded at or after `since_ms`,
    /// by genre name: each message counted once, by the latest `user_feedback` score on its
    /// trace (1 → liked, 0 → disliked; none → ignored).
    async fn engagement_since(&self, since_ms: i64) -> Result<Vec<GenreEngagement>, StoreError>;
    /// Store a new reminder (`Pending`); a duplicate id is `Constraint`.
    async fn add_reminder(&self, reminder: &Reminder) -> Result<(), StoreError>;
    async fn reminder(&self, id: &str) -> Result<Option<Reminder>, StoreError>;
    /// Pending reminders due at or before `now_ms`, earliest first, at most `limit`.
    async fn due_reminders(&self, now_ms: i64, limit: usize) -> Result<Vec<Reminder>, StoreError>;
    /// A principal's reminders: pending ones earliest due first, then (with `include_closed`)
    /// delivered and cancelled ones, latest closed first; at most `limit`.
    async fn reminders_of(
        &self,
        principal: &PrincipalId,
        include_closed: bool,
        limit: usize,
    ) -> Result<Vec<Reminder>, StoreError>;
    /// Move a reminder from `Pending` to `to` (delivered or cancelled) at `at_ms`; false when
    /// it was not pending (already delivered, cancelled, or unknown). Atomic: of concurrent
    /// moves exactly one is true.
    async fn close_reminder(
        &self,
        id: &str,
        to: ReminderStatus,
        at_ms: i64,
    ) -> Result<bool, StoreError>;
}

#[async_trait::async_trait]
impl<T: JobStore + ?Sized> JobStore for Arc<T> {
    async fn claim_occurrence(
        &self,
        job: &str,
        occurrence: &str,
        scheduled_ms: i64,
        owner: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Claim, StoreError> {
        (**self)
            .claim_occurrence(job, occurrence, scheduled_ms, owner, now_ms, lease_ms)
            .await
    }

    async fn renew_lease(
        &self,
        job: &str,
        occurrence: &str,
        owner: &str,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        (**self).renew_lease(job, occurrence, owner, until_ms).await
    }

    async fn end_occurrence(
        &self,
        job: &str,
        occurrence: &str,
        owner: &str,
        end: OccurrenceEnd,
        outcome: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        (**self)
            .end_occurrence(job, occurrence, owner, end, outcome, now_ms)
            .await
    }

    async fn occurrence(
        &self,
        job: &str,
        occurrence: &str,
    ) -> Result<Option<OccurrenceRecord>, StoreError> {
        (**self).occurrence(job, occurrence).await
    }

    async fn job_history(
        &self,
        job: &str,
        limit: usize,
    ) -> Result<Vec<OccurrenceRecord>, StoreError> {
        (**self).job_history(job, limit).await
    }

    async fn beat(&self, job: &str, owner: &str, at_ms: i64) -> Result<(), StoreError> {
        (**self).beat(job, owner, at_ms).await
    }

    async fn heartbeats(&self) -> Result<Vec<Heartbeat>, StoreError> {
        (**self).heartbeats().await
    }

    async fn prune_occurrences(
        &self,
        skipped_before_ms: i64,
        finished_before_ms: i64,
    ) -> Result<u64, StoreError> {
        (**self)
            .prune_occurrences(skipped_before_ms, finished_before_ms)
            .await
    }

    async fn record_proactive(&self, message: &ProactiveMessage) -> Result<bool, StoreError> {
        (**self).record_proactive(message).await
    }

    async fn set_proactive_delivery(
        &self,
        job: &str,
        occurrence: &str,
        delivery: ProactiveDelivery,
    ) -> Result<bool, StoreError> {
        (**self)
            .set_proactive_delivery(job, occurrence, delivery)
            .await
    }

    async fn proactive_count_since(&self, since_ms: i64) -> Result<u64, StoreError> {
        (**self).proactive_count_since(since_ms).await
    }

    async fn engagement_since(&self, since_ms: i64) -> Result<Vec<GenreEngagement>, StoreError> {
        (**self).engagement_since(since_ms).await
    }

    async fn add_reminder(&self, reminder: &Reminder) -> Result<(), StoreError> {
        (**self).add_reminder(reminder).await
    }

    async fn reminder(&self, id: &str) -> Result<Option<Reminder>, StoreError> {
        (**self).reminder(id).await
    }

    async fn due_reminders(&self, now_ms: i64, limit: usize) -> Result<Vec<Reminder>, StoreError> {
        (**self).due_reminders(now_ms, limit).await
    }

    async fn reminders_of(
        &self,
        principal: &PrincipalId,
        include_closed: bool,
        limit: usize,
    ) -> Result<Vec<Reminder>, StoreError> {
        (**self)
            .reminders_of(principal, include_closed, limit)
            .await
    }

    async fn close_reminder(
        &self,
        id: &str,
        to: ReminderStatus,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        (**self).close_reminder(id, to, at_ms).await
    }
}
