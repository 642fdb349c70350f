//! `JobStore` for SQLite, part two: proactive messages (one per occurrence), the engagement
//! read that joins them to their traces' latest `user_feedback` score, and reminders; and
//! the `JobStore` impl, which forwards occurrences and heartbeats to `jobs.rs`.

use super::{SqliteStore, decode_err, sql_limit};
use crate::codec::{parse_surface, surface_str};
use crate::validate::jobs as check;
use crate::{
    Claim, GenreEngagement, Heartbeat, JobStore, OccurrenceEnd, OccurrenceRecord,
    ProactiveDelivery, ProactiveMessage, Reminder, ReminderStatus, StoreError, validate,
};
use rusqlite::{OptionalExtension, Row, params};
use steward_protocol::{ConversationId, PrincipalId};

const RECORD: &str = "INSERT INTO proactive_messages \
     (genre, trace_id, job, occurrence, surface, conversation, delivery, at_ms) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (job, occurrence) DO NOTHING";
const SET_DELIVERY: &str =
    "UPDATE proactive_messages SET delivery = ?3 WHERE job = ?1 AND occurrence = ?2";
const COUNT_SINCE: &str = "SELECT count(*) FROM proactive_messages WHERE at_ms >= ?1";
// Each message once, by the latest user_feedback score on its trace (highest id).
const ENGAGEMENT: &str = "SELECT genre, count(*), \
     coalesce(sum(verdict = 1), 0), coalesce(sum(verdict = 0), 0), coalesce(sum(verdict IS NULL), 0) \
     FROM (SELECT p.genre AS genre, \
             (SELECT CASE WHEN s.value >= 0.5 THEN 1 ELSE 0 END FROM scores s \
              WHERE s.trace_id = p.trace_id AND s.name = 'user_feedback' \
              ORDER BY s.id DESC LIMIT 1) AS verdict \
           FROM proactive_messages p WHERE p.at_ms >= ?1) \
     GROUP BY genre ORDER BY genre";
const REMINDER_COLUMNS: &str = "id, principal, text, due_ms, shown, surface, conversation, \
     trace_id, status, created_ms, closed_ms";
const ADD_REMINDER: &str = "INSERT INTO reminders \
     (id, principal, text, due_ms, shown, surface, conversation, trace_id, status, created_ms, closed_ms) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9, NULL)";
const CLOSE_REMINDER: &str =
    "UPDATE reminders SET status = ?2, closed_ms = ?3 WHERE id = ?1 AND status = 'pending'";

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("reminder: bad {what}"))
}

fn reminder_from(row: &Row<'_>) -> Result<Reminder, StoreError> {
    let what = "reminder";
    let text = |i: usize| row.get::<_, String>(i).map_err(|e| decode_err(what, e));
    let int = |i: usize| row.get::<_, i64>(i).map_err(|e| decode_err(what, e));
    Ok(Reminder {
        id: text(0)?,
        principal: PrincipalId::parse(&text(1)?).map_err(|_| corrupt("principal"))?,
        text: text(2)?,
        due_ms: int(3)?,
        shown: text(4)?,
        surface: parse_surface(&text(5)?).ok_or_else(|| corrupt("surface"))?,
        conversation: ConversationId::parse(&text(6)?).map_err(|_| corrupt("conversation"))?,
        trace_id: text(7)?,
        status: ReminderStatus::parse(&text(8)?).ok_or_else(|| corrupt("status"))?,
        created_ms: int(9)?,
        closed_ms: row
            .get::<_, Option<i64>>(10)
            .map_err(|e| decode_err(what, e))?,
    })
}

fn reminders_where(
    conn: &rusqlite::Connection,
    condition: &str,
    args: &[&dyn rusqlite::ToSql],
) -> Result<Vec<Reminder>, StoreError> {
    let sql = format!("SELECT {REMINDER_COLUMNS} FROM reminders WHERE {condition}");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(args)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(reminder_from(row)?);
    }
    Ok(out)
}

fn count(raw: i64) -> u64 {
    u64::try_from(raw).unwrap_or(0)
}

#[async_trait::async_trait]
impl JobStore for SqliteStore {
    async fn claim_occurrence(
        &self,
        job: &str,
        occurrence: &str,
        scheduled_ms: i64,
        owner: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Claim, StoreError> {
        self.jobs_claim(job, occurrence, scheduled_ms, owner, now_ms, lease_ms)
            .await
    }

    async fn renew_lease(
        &self,
        job: &str,
        occurrence: &str,
        owner: &str,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        self.jobs_renew(job, occurrence, owner, until_ms).await
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
        self.jobs_end(job, occurrence, owner, end, outcome, now_ms)
            .await
    }

    async fn occurrence(
        &self,
        job: &str,
        occurrence: &str,
    ) -> Result<Option<OccurrenceRecord>, StoreError> {
        self.jobs_occurrence(job, occurrence).await
    }

    async fn job_history(
        &self,
        job: &str,
        limit: usize,
    ) -> Result<Vec<OccurrenceRecord>, StoreError> {
        self.jobs_history(job, limit).await
    }

    async fn beat(&self, job: &str, owner: &str, at_ms: i64) -> Result<(), StoreError> {
        self.jobs_beat(job, owner, at_ms).await
    }

    async fn heartbeats(&self) -> Result<Vec<Heartbeat>, StoreError> {
        self.jobs_heartbeats().await
    }

    async fn prune_occurrences(
        &self,
        skipped_before_ms: i64,
        finished_before_ms: i64,
    ) -> Result<u64, StoreError> {
        self.jobs_prune(skipped_before_ms, finished_before_ms).await
    }

    async fn record_proactive(&self, message: &ProactiveMessage) -> Result<bool, StoreError> {
        check::proactive(message)?;
        let m = message.clone();
        self.run(move |conn| {
            let n = conn.prepare_cached(RECORD)?.execute(params![
                m.genre,
                m.trace_id,
                m.job,
                m.occurrence,
                surface_str(m.surface),
                m.conversation.as_str(),
                m.delivery.as_str(),
                m.at_ms
            ])?;
            Ok(n == 1)
        })
        .await
    }

    async fn set_proactive_delivery(
        &self,
        job: &str,
        occurrence: &str,
        delivery: ProactiveDelivery,
    ) -> Result<bool, StoreError> {
        check::job_name(job)?;
        check::key("occurrence key", occurrence)?;
        let (job, occurrence) = (job.to_owned(), occurrence.to_owned());
        self.run(move |conn| {
            let n = conn.prepare_cached(SET_DELIVERY)?.execute(params![
                job,
                occurrence,
                delivery.as_str()
            ])?;
            Ok(n == 1)
        })
        .await
    }

    async fn proactive_count_since(&self, since_ms: i64) -> Result<u64, StoreError> {
        self.run(move |conn| {
            let n: i64 = conn
                .prepare_cached(COUNT_SINCE)?
                .query_row([since_ms], |r| r.get(0))?;
            Ok(count(n))
        })
        .await
    }

    async fn engagement_since(&self, since_ms: i64) -> Result<Vec<GenreEngagement>, StoreError> {
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(ENGAGEMENT)?;
            let mut rows = stmt.query([since_ms])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let what = "engagement";
                let int = |i: usize| row.get::<_, i64>(i).map_err(|e| decode_err(what, e));
                out.push(GenreEngagement {
                    genre: row.get(0).map_err(|e| decode_err(what, e))?,
                    sent: count(int(1)?),
                    liked: count(int(2)?),
                    disliked: count(int(3)?),
                    ignored: count(int(4)?),
                });
            }
            Ok(out)
        })
        .await
    }

    async fn add_reminder(&self, reminder: &Reminder) -> Result<(), StoreError> {
        check::reminder(reminder)?;
        let r = reminder.clone();
        self.run(move |conn| {
            conn.prepare_cached(ADD_REMINDER)?.execute(params![
                r.id,
                r.principal.as_str(),
                r.text,
                r.due_ms,
                r.shown,
                surface_str(r.surface),
                r.conversation.as_str(),
                r.trace_id,
                r.created_ms
            ])?;
            Ok(())
        })
        .await
    }

    async fn reminder(&self, id: &str) -> Result<Option<Reminder>, StoreError> {
        validate::id("reminder id", id)?;
        let id = id.to_owned();
        self.run(move |conn| {
            let sql = format!("SELECT {REMINDER_COLUMNS} FROM reminders WHERE id = ?1");
            let mut stmt = conn.prepare_cached(&sql)?;
            stmt.query_row([id], |row| Ok(reminder_from(row)))
                .optional()?
                .transpose()
        })
        .await
    }

    async fn due_reminders(&self, now_ms: i64, limit: usize) -> Result<Vec<Reminder>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.run(move |conn| {
            reminders_where(
                conn,
                "status = 'pending' AND due_ms <= ?1 ORDER BY due_ms, id LIMIT ?2",
                &[&now_ms, &sql_limit(limit)],
            )
        })
        .await
    }

    async fn reminders_of(
        &self,
        principal: &PrincipalId,
        include_closed: bool,
        limit: usize,
    ) -> Result<Vec<Reminder>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let principal = principal.as_str().to_owned();
        self.run(move |conn| {
            let mut out = reminders_where(
                conn,
                "principal = ?1 AND status = 'pending' ORDER BY due_ms, id LIMIT ?2",
                &[&principal, &sql_limit(limit)],
            )?;
            if include_closed && out.len() < limit {
                let rest = limit - out.len();
                out.extend(reminders_where(
                    conn,
                    "principal = ?1 AND status <> 'pending' ORDER BY closed_ms DESC, id LIMIT ?2",
                    &[&principal, &sql_limit(rest)],
                )?);
            }
            Ok(out)
        })
        .await
    }

    async fn close_reminder(
        &self,
        id: &str,
        to: ReminderStatus,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        validate::id("reminder id", id)?;
        if to == ReminderStatus::Pending {
            return Err(StoreError::InvalidInput(
                "a reminder closes as delivered or cancelled".into(),
            ));
        }
        let id = id.to_owned();
        self.run(move |conn| {
            let n =
                conn.prepare_cached(CLOSE_REMINDER)?
                    .execute(params![id, to.as_str(), at_ms])?;
            Ok(n == 1)
        })
        .await
    }
}
