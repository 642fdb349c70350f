//! `JobStore` for SQLite, part one: occurrences with their leases and their pruning, and
//! heartbeats. A claim reads and writes its row inside one IMMEDIATE transaction, so the
//! write lock is held from the start and two processes on the file cannot both see a
//! claimable row. Proactive messages and reminders are `proactive.rs`'s. Limits are
//! `crate::validate::jobs`'.

use super::{SqliteStore, decode_err, sql_limit};
use crate::validate::jobs as check;
use crate::{Claim, Heartbeat, OccurrenceEnd, OccurrenceRecord, OccurrenceStatus, StoreError};
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

const COLUMNS: &str = "job, occurrence, scheduled_ms, status, attempts, owner, lease_until_ms, \
     next_try_ms, started_ms, finished_ms, outcome";
const INSERT: &str = "INSERT INTO job_occurrences \
     (job, occurrence, scheduled_ms, status, attempts, owner, lease_until_ms, started_ms) \
     VALUES (?1, ?2, ?3, 'running', 1, ?4, ?5, ?6)";
const RETAKE: &str = "UPDATE job_occurrences SET status = 'running', attempts = attempts + 1, \
     owner = ?3, lease_until_ms = ?4, next_try_ms = NULL WHERE job = ?1 AND occurrence = ?2";
const RENEW: &str = "UPDATE job_occurrences SET lease_until_ms = ?4 \
     WHERE job = ?1 AND occurrence = ?2 AND owner = ?3 AND status = 'running'";
const END: &str = "UPDATE job_occurrences SET status = ?4, next_try_ms = ?5, finished_ms = ?6, \
     outcome = ?7, lease_until_ms = ?8 \
     WHERE job = ?1 AND occurrence = ?2 AND owner = ?3 AND status = 'running'";
const BEAT: &str = "INSERT INTO job_heartbeats (job, owner, at_ms) VALUES (?1, ?2, ?3) \
     ON CONFLICT (job) DO UPDATE SET owner = excluded.owner, at_ms = excluded.at_ms";
const HEARTBEATS: &str = "SELECT job, owner, at_ms FROM job_heartbeats ORDER BY job";
// Ended skipped rows before ?1, ended done/failed rows before ?2; a job's latest occurrence
// (by `scheduled_ms`, the order `job_history` reads) stays: the scheduler's look back starts
// there. `job_occurrences_by_due` serves the inner MAX.
const PRUNE: &str = "DELETE FROM job_occurrences \
     WHERE ((status = 'skipped' AND finished_ms < ?1) \
         OR (status IN ('done', 'failed') AND finished_ms < ?2)) \
       AND scheduled_ms < (SELECT max(l.scheduled_ms) FROM job_occurrences l \
                           WHERE l.job = job_occurrences.job)";

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("job occurrence: bad {what}"))
}

fn record_from(row: &Row<'_>) -> Result<OccurrenceRecord, StoreError> {
    let what = "job occurrence";
    let status: String = row.get(3).map_err(|e| decode_err(what, e))?;
    let attempts: i64 = row.get(4).map_err(|e| decode_err(what, e))?;
    Ok(OccurrenceRecord {
        job: row.get(0).map_err(|e| decode_err(what, e))?,
        occurrence: row.get(1).map_err(|e| decode_err(what, e))?,
        scheduled_ms: row.get(2).map_err(|e| decode_err(what, e))?,
        status: OccurrenceStatus::parse(&status).ok_or_else(|| corrupt("status"))?,
        attempts: u32::try_from(attempts).map_err(|_| corrupt("attempts"))?,
        owner: row.get(5).map_err(|e| decode_err(what, e))?,
        lease_until_ms: row.get(6).map_err(|e| decode_err(what, e))?,
        next_try_ms: row.get(7).map_err(|e| decode_err(what, e))?,
        started_ms: row.get(8).map_err(|e| decode_err(what, e))?,
        finished_ms: row.get(9).map_err(|e| decode_err(what, e))?,
        outcome: row.get(10).map_err(|e| decode_err(what, e))?,
    })
}

fn read(
    conn: &Connection,
    job: &str,
    occurrence: &str,
) -> Result<Option<OccurrenceRecord>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM job_occurrences WHERE job = ?1 AND occurrence = ?2");
    let mut stmt = conn.prepare_cached(&sql)?;
    let row = stmt
        .query_row(params![job, occurrence], |row| Ok(record_from(row)))
        .optional()?;
    row.transpose()
}

struct ClaimArgs {
    job: String,
    occurrence: String,
    scheduled_ms: i64,
    owner: String,
    now_ms: i64,
    until_ms: i64,
}

fn claim(conn: &mut Connection, a: &ClaimArgs) -> Result<Claim, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let claim = match read(&tx, &a.job, &a.occurrence)? {
        None => {
            tx.prepare_cached(INSERT)?.execute(params![
                a.job,
                a.occurrence,
                a.scheduled_ms,
                a.owner,
                a.until_ms,
                a.now_ms
            ])?;
            Claim::Run { attempt: 1 }
        }
        Some(r) if r.status.is_final() => Claim::Finished(r.status),
        Some(r) if r.status == OccurrenceStatus::Running && r.lease_until_ms > a.now_ms => {
            Claim::Held {
                until_ms: r.lease_until_ms,
            }
        }
        Some(r) => match r.next_try_ms {
            Some(at) if r.status == OccurrenceStatus::Retrying && at > a.now_ms => {
                Claim::RetryAt(at)
            }
            _ => {
                tx.prepare_cached(RETAKE)?.execute(params![
                    a.job,
                    a.occurrence,
                    a.owner,
                    a.until_ms
                ])?;
                Claim::Run {
                    attempt: r.attempts.saturating_add(1),
                }
            }
        },
    };
    tx.commit()?;
    Ok(claim)
}

impl SqliteStore {
    pub(super) async fn jobs_claim(
        &self,
        job: &str,
        occurrence: &str,
        scheduled_ms: i64,
        owner: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Claim, StoreError> {
        check::occurrence(job, occurrence, owner)?;
        if lease_ms <= 0 {
            return Err(StoreError::InvalidInput("lease must be positive".into()));
        }
        let args = ClaimArgs {
            job: job.to_owned(),
            occurrence: occurrence.to_owned(),
            scheduled_ms,
            owner: owner.to_owned(),
            now_ms,
            until_ms: now_ms.saturating_add(lease_ms),
        };
        self.run(move |conn| claim(conn, &args)).await
    }

    pub(super) async fn jobs_renew(
        &self,
        job: &str,
        occurrence: &str,
        owner: &str,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        check::occurrence(job, occurrence, owner)?;
        let (job, occurrence, owner) = (job.to_owned(), occurrence.to_owned(), owner.to_owned());
        self.run(move |conn| {
            let n = conn
                .prepare_cached(RENEW)?
                .execute(params![job, occurrence, owner, until_ms])?;
            Ok(n == 1)
        })
        .await
    }

    pub(super) async fn jobs_end(
        &self,
        job: &str,
        occurrence: &str,
        owner: &str,
        end: OccurrenceEnd,
        outcome: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        check::occurrence(job, occurrence, owner)?;
        let (status, next_try, finished) = match end {
            OccurrenceEnd::Done => (OccurrenceStatus::Done, None, Some(now_ms)),
            OccurrenceEnd::Skipped => (OccurrenceStatus::Skipped, None, Some(now_ms)),
            OccurrenceEnd::Failed => (OccurrenceStatus::Failed, None, Some(now_ms)),
            OccurrenceEnd::Retry { at_ms } => (OccurrenceStatus::Retrying, Some(at_ms), None),
        };
        let outcome = check::outcome(outcome);
        let (job, occurrence, owner) = (job.to_owned(), occurrence.to_owned(), owner.to_owned());
        self.run(move |conn| {
            // The lease ends with the attempt: `lease_until_ms` = now.
            let n = conn.prepare_cached(END)?.execute(params![
                job,
                occurrence,
                owner,
                status.as_str(),
                next_try,
                finished,
                outcome,
                now_ms
            ])?;
            Ok(n == 1)
        })
        .await
    }

    pub(super) async fn jobs_occurrence(
        &self,
        job: &str,
        occurrence: &str,
    ) -> Result<Option<OccurrenceRecord>, StoreError> {
        check::job_name(job)?;
        check::key("occurrence key", occurrence)?;
        let (job, occurrence) = (job.to_owned(), occurrence.to_owned());
        self.run(move |conn| read(conn, &job, &occurrence)).await
    }

    pub(super) async fn jobs_history(
        &self,
        job: &str,
        limit: usize,
    ) -> Result<Vec<OccurrenceRecord>, StoreError> {
        check::job_name(job)?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let job = job.to_owned();
        self.run(move |conn| {
            let sql = format!(
                "SELECT {COLUMNS} FROM job_occurrences WHERE job = ?1 \
                 ORDER BY scheduled_ms DESC, started_ms DESC, occurrence DESC LIMIT ?2"
            );
            let mut stmt = conn.prepare_cached(&sql)?;
            let mut rows = stmt.query(params![job, sql_limit(limit)])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                out.push(record_from(row)?);
            }
            Ok(out)
        })
        .await
    }

    pub(super) async fn jobs_beat(
        &self,
        job: &str,
        owner: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        check::job_name(job)?;
        check::key("heartbeat owner", owner)?;
        let (job, owner) = (job.to_owned(), owner.to_owned());
        self.run(move |conn| {
            conn.prepare_cached(BEAT)?
                .execute(params![job, owner, at_ms])?;
            Ok(())
        })
        .await
    }

    pub(super) async fn jobs_prune(
        &self,
        skipped_before_ms: i64,
        finished_before_ms: i64,
    ) -> Result<u64, StoreError> {
        self.run(move |conn| {
            let n = conn
                .prepare_cached(PRUNE)?
                .execute(params![skipped_before_ms, finished_before_ms])?;
            Ok(u64::try_from(n).unwrap_or(u64::MAX))
        })
        .await
    }

    pub(super) async fn jobs_heartbeats(&self) -> Result<Vec<Heartbeat>, StoreError> {
        self.run(|conn| {
            let mut stmt = conn.prepare_cached(HEARTBEATS)?;
            let mut rows = stmt.query([])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let what = "heartbeat";
                out.push(Heartbeat {
                    job: row.get(0).map_err(|e| decode_err(what, e))?,
                    owner: row.get(1).map_err(|e| decode_err(what, e))?,
                    at_ms: row.get(2).map_err(|e| decode_err(what, e))?,
                });
            }
            Ok(out)
        })
        .await
    }
}
