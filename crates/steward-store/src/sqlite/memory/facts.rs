//! Facts in SQLite: the source-trust upsert, reads, deletes and the two retention sweeps. Owns
//! the facts SQL; keeping the search index in step is `index.rs`'s job, called in the same
//! transaction as every write here.

use super::index::{self, Text};
use super::{col, parse_provenance};
use crate::sqlite::sql_limit;
use crate::{FactWrite, NewFact, StoreError};
use rusqlite::{Connection, Row, TransactionBehavior, params};
use steward_protocol::{Fact, FactSource, MemoryKind};

macro_rules! fact_columns {
    () => {
        "id, user, key, value, source, confidence, first_seen_ms, last_seen_ms, expires_at_ms, \
         provenance"
    };
}

const GET: &str = concat!(
    "SELECT ",
    fact_columns!(),
    " FROM facts WHERE user = ?1 AND key = ?2"
);

// The WHERE on DO UPDATE is the source-trust rule, applied by SQLite atomically with the write:
// a stored user fact is replaced only by another user fact. When it refuses, RETURNING yields
// no row. first_seen_ms is not in the SET list, so it is kept.
const UPSERT: &str = concat!(
    "INSERT INTO facts (user, key, value, source, confidence, first_seen_ms, last_seen_ms, \
       expires_at_ms, provenance) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8) \
     ON CONFLICT (user, key) DO UPDATE SET value = excluded.value, source = excluded.source, \
       confidence = excluded.confidence, last_seen_ms = excluded.last_seen_ms, \
       expires_at_ms = excluded.expires_at_ms, provenance = excluded.provenance \
     WHERE facts.source <> 'user' OR excluded.source = 'user' \
     RETURNING ",
    fact_columns!()
);

const LIST: &str = concat!(
    "SELECT ",
    fact_columns!(),
    " FROM facts WHERE user = ?1 ORDER BY key LIMIT ?2 OFFSET ?3"
);

const DELETE: &str = "DELETE FROM facts WHERE user = ?1 AND key = ?2 RETURNING id";
const DELETE_ID: &str = "DELETE FROM facts WHERE id = ?1";

const EXPIRED: &str = concat!(
    "SELECT ",
    fact_columns!(),
    " FROM facts WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ?1 ORDER BY user, key"
);

// An exact prefix: `key >= ?2` lets the (user, key) index narrow the scan, and the substr
// comparison is plain equality, so `%` and `_` in the prefix are literal (unlike LIKE).
const BY_PREFIX: &str = concat!(
    "SELECT ",
    fact_columns!(),
    " FROM facts WHERE user = ?1 AND key >= ?2 AND substr(key, 1, length(?2)) = ?2 \
       AND last_seen_ms < ?3 ORDER BY key"
);

fn fact_from_row(row: &Row<'_>) -> Result<Fact, StoreError> {
    let id: i64 = row.get(0)?;
    let what = || format!("fact {id}");
    let source: String = col(row, 4, &what)?;
    let source = FactSource::parse(&source)
        .ok_or_else(|| StoreError::Corrupt(format!("{}: unknown source", what())))?;
    let confidence: f64 = col(row, 5, &what)?;
    let provenance: String = col(row, 9, &what)?;
    Ok(Fact {
        id,
        user: col(row, 1, &what)?,
        key: col(row, 2, &what)?,
        value: col(row, 3, &what)?,
        source,
        // Stored from an f32, so this narrowing is exact.
        confidence: confidence as f32,
        first_seen_ms: col(row, 6, &what)?,
        last_seen_ms: col(row, 7, &what)?,
        expires_at_ms: col(row, 8, &what)?,
        provenance: parse_provenance(&what(), &provenance)?,
    })
}

fn query_facts(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<Fact>, StoreError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(fact_from_row(row)?);
    }
    Ok(out)
}

fn fact_text(fact: &Fact) -> Text<'_> {
    Text {
        title: &fact.key,
        body: &fact.value,
        tags: &[],
    }
}

pub(super) fn get(conn: &Connection, user: &str, key: &str) -> Result<Option<Fact>, StoreError> {
    Ok(query_facts(conn, GET, params![user, key])?.pop())
}

pub(super) fn upsert(
    conn: &mut Connection,
    user: &str,
    fact: &NewFact,
    provenance: &str,
    now_ms: i64,
) -> Result<FactWrite, StoreError> {
    // IMMEDIATE: `before` is read under the write lock, so it is what the upsert sees and the
    // reported outcome cannot be stale (the trust rule itself holds either way: it is in SQL).
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let before = get(&tx, user, &fact.key)?;
    let after = query_facts(
        &tx,
        UPSERT,
        params![
            user,
            fact.key,
            fact.value,
            fact.source.as_str(),
            f64::from(fact.confidence),
            now_ms,
            fact.expires_at_ms,
            provenance
        ],
    )?
    .pop();
    let write = match (before, after) {
        (Some(stored), None) => FactWrite::KeptUserFact(stored),
        (None, None) => {
            return Err(StoreError::Corrupt(
                "fact upsert neither wrote nor found a row".into(),
            ));
        }
        (None, Some(new)) => {
            let doc = index::Doc {
                kind: MemoryKind::Fact,
                ref_id: new.id,
                user,
                created_at_ms: new.first_seen_ms,
                tags: &[],
            };
            index::add(&tx, &doc, &fact_text(&new))?;
            FactWrite::Inserted(new)
        }
        (Some(old), Some(new)) if old.value == new.value => FactWrite::Unchanged(new),
        (Some(_), Some(new)) => {
            // New words for the index; the old vectors described the old value.
            index::replace(&tx, MemoryKind::Fact, new.id, &fact_text(&new), &[], true)?;
            FactWrite::Updated(new)
        }
    };
    tx.commit()?;
    Ok(write)
}

pub(super) fn list(
    conn: &Connection,
    user: &str,
    limit: usize,
    offset: usize,
) -> Result<Vec<Fact>, StoreError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    query_facts(
        conn,
        LIST,
        params![user, sql_limit(limit), sql_limit(offset)],
    )
}

pub(super) fn delete(conn: &mut Connection, user: &str, key: &str) -> Result<bool, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let ids: Vec<i64> = {
        let mut stmt = tx.prepare_cached(DELETE)?;
        let rows = stmt.query_map(params![user, key], |row| row.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for &id in &ids {
        index::remove(&tx, MemoryKind::Fact, id)?;
    }
    tx.commit()?;
    Ok(!ids.is_empty())
}

/// Reads the matching facts and, unless `dry_run`, deletes exactly those in the same
/// transaction, so the report is what was deleted.
fn sweep(
    conn: &mut Connection,
    sql: &str,
    params: impl rusqlite::Params,
    dry_run: bool,
) -> Result<Vec<Fact>, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = query_facts(&tx, sql, params)?;
    if !dry_run {
        for fact in &found {
            tx.prepare_cached(DELETE_ID)?.execute([fact.id])?;
            index::remove(&tx, MemoryKind::Fact, fact.id)?;
        }
    }
    tx.commit()?;
    Ok(found)
}

pub(super) fn delete_expired(
    conn: &mut Connection,
    now_ms: i64,
    dry_run: bool,
) -> Result<Vec<Fact>, StoreError> {
    sweep(conn, EXPIRED, [now_ms], dry_run)
}

pub(super) fn delete_by_prefix(
    conn: &mut Connection,
    user: &str,
    prefix: &str,
    unseen_before_ms: i64,
    dry_run: bool,
) -> Result<Vec<Fact>, StoreError> {
    sweep(
        conn,
        BY_PREFIX,
        params![user, prefix, unseen_before_ms],
        dry_run,
    )
}
