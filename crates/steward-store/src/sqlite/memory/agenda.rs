//! Learnings (with recurrence) and intentions (follow-ups, at most 3 nudges) in SQLite. Owns
//! their SQL and their search-index rows; validation happened in `mod.rs`.

use super::index::{self, Doc, Text};
use super::{col, provenance_json, to_u32};
use crate::sqlite::sql_limit;
use crate::{Intention, Learning, StoreError};
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use steward_protocol::{MemoryKind, Provenance};

/// The CHECK constraint in V3 says the same.
const MAX_NUDGES: u32 = 3;

// The first spelling is kept; recurrence saturates at the column's bound instead of failing.
const BUMP: &str = "INSERT INTO learnings \
     (user, text, norm, recurrence, first_seen_ms, last_seen_ms, provenance) \
     VALUES (?1, ?2, ?3, 1, ?4, ?4, ?5) \
     ON CONFLICT (user, norm) DO UPDATE SET \
       recurrence = min(recurrence + 1, 4294967295), last_seen_ms = excluded.last_seen_ms \
     RETURNING id, user, text, recurrence, last_seen_ms, first_seen_ms";
const TOP: &str = "SELECT id, user, text, recurrence, last_seen_ms FROM learnings \
     WHERE user = ?1 ORDER BY recurrence DESC, last_seen_ms DESC, id LIMIT ?2";

macro_rules! intention_columns {
    () => {
        "id, user, text, due_at_ms, nudges, open, created_at_ms"
    };
}

const ADD_INTENTION: &str = concat!(
    "INSERT INTO intentions (user, text, due_at_ms, nudges, open, created_at_ms, provenance) \
     VALUES (?1, ?2, ?3, 0, 1, ?4, ?5) RETURNING ",
    intention_columns!()
);
const LIST_INTENTIONS: &str = concat!(
    "SELECT ",
    intention_columns!(),
    " FROM intentions WHERE user = ?1 AND (open = 1 OR ?2 = 0) \
     ORDER BY due_at_ms IS NULL, due_at_ms, created_at_ms, id"
);
const NUDGE: &str = concat!(
    "UPDATE intentions SET nudges = nudges + 1 WHERE id = ?1 AND open = 1 AND nudges < 3 \
     RETURNING ",
    intention_columns!()
);
const INTENTION_STATE: &str = "SELECT open, nudges FROM intentions WHERE id = ?1";
const SET_OPEN: &str = concat!(
    "UPDATE intentions SET open = ?3 WHERE id = ?1 AND user = ?2 RETURNING ",
    intention_columns!()
);
const DELETE_INTENTION: &str = "DELETE FROM intentions WHERE id = ?1 AND user = ?2";
const DELETE_LEARNING: &str = "DELETE FROM learnings WHERE id = ?1 AND user = ?2";

fn learning_from_row(row: &Row<'_>) -> Result<Learning, StoreError> {
    let id: i64 = row.get(0)?;
    let what = || format!("learning {id}");
    Ok(Learning {
        id,
        user: col(row, 1, &what)?,
        text: col(row, 2, &what)?,
        recurrence: to_u32(&what(), col(row, 3, &what)?)?,
        last_seen_ms: col(row, 4, &what)?,
    })
}

fn intention_from_row(row: &Row<'_>) -> Result<Intention, StoreError> {
    let id: i64 = row.get(0)?;
    let what = || format!("intention {id}");
    let open: i64 = col(row, 5, &what)?;
    Ok(Intention {
        id,
        user: col(row, 1, &what)?,
        text: col(row, 2, &what)?,
        due_at_ms: col(row, 3, &what)?,
        nudges: to_u32(&what(), col(row, 4, &what)?)?,
        open: open != 0,
        created_at_ms: col(row, 6, &what)?,
    })
}

/// `text` is already trimmed.
pub(super) fn bump_learning(
    conn: &mut Connection,
    user: &str,
    text: &str,
    now_ms: i64,
) -> Result<Learning, StoreError> {
    // Rust's lowercase is Unicode-aware; SQLite's lower() only folds ASCII.
    let norm = text.to_lowercase();
    let provenance = provenance_json(&Provenance::Reflection)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let (learning, first_seen_ms) = {
        let mut stmt = tx.prepare_cached(BUMP)?;
        let mut rows = stmt.query(params![user, text, norm, now_ms, provenance])?;
        let row = rows
            .next()?
            .ok_or_else(|| StoreError::Corrupt("learning upsert returned no row".into()))?;
        let first_seen: i64 = row.get(5)?;
        (learning_from_row(row)?, first_seen)
    };
    // Recurrence only grows, so 1 means this call inserted the row.
    if learning.recurrence == 1 {
        let doc = Doc {
            kind: MemoryKind::Learning,
            ref_id: learning.id,
            user,
            created_at_ms: first_seen_ms,
            tags: &[],
        };
        let text = Text {
            title: "",
            body: &learning.text,
            tags: &[],
        };
        index::add(&tx, &doc, &text)?;
    }
    tx.commit()?;
    Ok(learning)
}

pub(super) fn top_learnings(
    conn: &Connection,
    user: &str,
    n: usize,
) -> Result<Vec<Learning>, StoreError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(TOP)?;
    let mut rows = stmt.query(params![user, sql_limit(n)])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(learning_from_row(row)?);
    }
    Ok(out)
}

/// `text` is already trimmed.
pub(super) fn add_intention(
    conn: &mut Connection,
    user: &str,
    text: &str,
    due_at_ms: Option<i64>,
    now_ms: i64,
) -> Result<Intention, StoreError> {
    let provenance = provenance_json(&Provenance::Reflection)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let intention = {
        let mut stmt = tx.prepare_cached(ADD_INTENTION)?;
        let mut rows = stmt.query(params![user, text, due_at_ms, now_ms, provenance])?;
        let row = rows
            .next()?
            .ok_or_else(|| StoreError::Corrupt("intention insert returned no row".into()))?;
        intention_from_row(row)?
    };
    let doc = Doc {
        kind: MemoryKind::Intention,
        ref_id: intention.id,
        user,
        created_at_ms: now_ms,
        tags: &[],
    };
    let body = Text {
        title: "",
        body: &intention.text,
        tags: &[],
    };
    index::add(&tx, &doc, &body)?;
    tx.commit()?;
    Ok(intention)
}

pub(super) fn list_intentions(
    conn: &Connection,
    user: &str,
    open_only: bool,
) -> Result<Vec<Intention>, StoreError> {
    let mut stmt = conn.prepare_cached(LIST_INTENTIONS)?;
    let mut rows = stmt.query(params![user, open_only])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(intention_from_row(row)?);
    }
    Ok(out)
}

pub(super) fn nudge_intention(conn: &mut Connection, id: i64) -> Result<Intention, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let nudged = {
        let mut stmt = tx.prepare_cached(NUDGE)?;
        let mut rows = stmt.query([id])?;
        rows.next()?.map(intention_from_row).transpose()?
    };
    if let Some(intention) = nudged {
        tx.commit()?;
        return Ok(intention);
    }
    // Say why it was refused.
    let state: Option<(i64, i64)> = tx
        .prepare_cached(INTENTION_STATE)?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Err(StoreError::InvalidInput(match state {
        None => format!("no intention with id {id}"),
        Some((0, _)) => format!("intention {id} is closed"),
        Some(_) => format!("intention {id} was already nudged {MAX_NUDGES} times"),
    }))
}

pub(super) fn set_intention_done(
    conn: &Connection,
    user: &str,
    id: i64,
    done: bool,
) -> Result<Option<Intention>, StoreError> {
    let mut stmt = conn.prepare_cached(SET_OPEN)?;
    let mut rows = stmt.query(params![id, user, !done])?;
    rows.next()?.map(intention_from_row).transpose()
}

/// Deletes `user`'s row `id` of `kind` (a learning or an intention) and its index rows.
pub(super) fn delete(
    conn: &mut Connection,
    kind: MemoryKind,
    user: &str,
    id: i64,
) -> Result<bool, StoreError> {
    let sql = match kind {
        MemoryKind::Learning => DELETE_LEARNING,
        MemoryKind::Intention => DELETE_INTENTION,
        other => {
            return Err(StoreError::InvalidInput(format!(
                "agenda rows are learnings and intentions, not {}",
                other.as_str()
            )));
        }
    };
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let deleted = tx.prepare_cached(sql)?.execute(params![id, user])? > 0;
    if deleted {
        index::remove(&tx, kind, id)?;
    }
    tx.commit()?;
    Ok(deleted)
}
