//! The SQL for `action_audit` and `scores`: appending and reading, with the row mappings. Both
//! are written in insertion order and read back in it. Owns no validation.
//!
//! There is deliberately no UPDATE or DELETE for `action_audit` here; the database refuses them
//! anyway (triggers in V2).

use crate::codec::{parse_surface, surface_str};
use crate::sqlite::decode_err;
use crate::{AuditEntry, AuditRecord, Score, StoreError};
use rusqlite::{Connection, Row, params};
use steward_protocol::{ConversationId, PrincipalId};

const INSERT_AUDIT: &str = "INSERT INTO action_audit \
     (action_id, at_ms, principal, surface, event, detail, trace_id) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
const LIST_AUDIT: &str = "SELECT action_id, at_ms, principal, surface, event, detail, trace_id \
     FROM action_audit WHERE action_id = ?1 ORDER BY id";
// The action's conversation comes along: the feed routes each entry to its subscribers.
const AUDIT_SINCE: &str = "SELECT a.action_id, a.at_ms, a.principal, a.surface, a.event, a.detail, \
       a.trace_id, a.id, p.conversation_id \
     FROM action_audit a LEFT JOIN pending_actions p ON p.id = a.action_id \
     WHERE a.id > ?1 ORDER BY a.id LIMIT ?2";
// The first matching entry per action: `min(id)` walks `action_audit_by_action` per id. The
// ids and events come as JSON arrays, so one cached statement serves any batch.
const FIRST_OF: &str = "SELECT action_id, at_ms, principal, surface, event, detail, trace_id \
     FROM action_audit WHERE id IN (SELECT min(id) FROM action_audit \
       WHERE action_id IN (SELECT value FROM json_each(?1)) \
         AND event IN (SELECT value FROM json_each(?2)) \
       GROUP BY action_id) \
     ORDER BY id";
const AUDIT_HEAD: &str = "SELECT coalesce(max(id), 0) FROM action_audit";
const INSERT_SCORE: &str = "INSERT INTO scores (trace_id, name, value, action_id, at_ms, genre) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const SCORES: &str = "SELECT trace_id, name, value, action_id, at_ms, genre \
     FROM scores WHERE trace_id = ?1 ORDER BY id";

/// Takes a plain connection so callers can pass a `Transaction` (it derefs to one).
pub(super) fn insert_audit(conn: &Connection, entry: &AuditEntry) -> Result<(), StoreError> {
    conn.prepare_cached(INSERT_AUDIT)?.execute(params![
        entry.action_id,
        entry.at_ms,
        entry.principal.as_str(),
        surface_str(entry.surface),
        entry.event,
        entry.detail,
        entry.trace_id,
    ])?;
    Ok(())
}

fn audit_from_row(row: &Row<'_>) -> Result<AuditEntry, StoreError> {
    let what = "audit entry";
    let surface: String = row.get(3).map_err(|e| decode_err(what, e))?;
    Ok(AuditEntry {
        action_id: row.get(0).map_err(|e| decode_err(what, e))?,
        at_ms: row.get(1).map_err(|e| decode_err(what, e))?,
        principal: PrincipalId::parse(&row.get::<_, String>(2).map_err(|e| decode_err(what, e))?)
            .map_err(|_| StoreError::Corrupt(format!("{what}: invalid principal id")))?,
        surface: parse_surface(&surface)
            .ok_or_else(|| StoreError::Corrupt(format!("{what}: invalid surface")))?,
        event: row.get(4).map_err(|e| decode_err(what, e))?,
        detail: row.get(5).map_err(|e| decode_err(what, e))?,
        trace_id: row.get(6).map_err(|e| decode_err(what, e))?,
    })
}

pub(super) fn list_audit(
    conn: &Connection,
    action_id: &str,
) -> Result<Vec<AuditEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(LIST_AUDIT)?;
    let mut rows = stmt.query([action_id])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(audit_from_row(row)?);
    }
    Ok(out)
}

pub(super) fn first_of(
    conn: &Connection,
    action_ids: &str,
    events: &str,
) -> Result<Vec<AuditEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(FIRST_OF)?;
    let mut rows = stmt.query(params![action_ids, events])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(audit_from_row(row)?);
    }
    Ok(out)
}

pub(super) fn audit_since(
    conn: &Connection,
    after: i64,
    limit: i64,
) -> Result<Vec<AuditRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(AUDIT_SINCE)?;
    let mut rows = stmt.query(params![after, limit])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let conversation: Option<String> = row.get(8).map_err(|e| decode_err("audit entry", e))?;
        out.push(AuditRecord {
            entry: audit_from_row(row)?,
            seq: row.get(7).map_err(|e| decode_err("audit entry", e))?,
            conversation: conversation.and_then(|c| ConversationId::parse(&c).ok()),
        });
    }
    Ok(out)
}

pub(super) fn audit_head(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(AUDIT_HEAD)?
        .query_row([], |r| r.get(0))?)
}

pub(super) fn insert_score(conn: &Connection, score: &Score) -> Result<(), StoreError> {
    conn.prepare_cached(INSERT_SCORE)?.execute(params![
        score.trace_id,
        score.name,
        score.value,
        score.action_id,
        score.at_ms,
        score.genre,
    ])?;
    Ok(())
}

pub(super) fn scores(conn: &Connection, trace_id: &str) -> Result<Vec<Score>, StoreError> {
    let what = "score";
    let mut stmt = conn.prepare_cached(SCORES)?;
    let mut rows = stmt.query([trace_id])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(Score {
            trace_id: row.get(0).map_err(|e| decode_err(what, e))?,
            name: row.get(1).map_err(|e| decode_err(what, e))?,
            value: row.get(2).map_err(|e| decode_err(what, e))?,
            action_id: row.get(3).map_err(|e| decode_err(what, e))?,
            at_ms: row.get(4).map_err(|e| decode_err(what, e))?,
            genre: row.get(5).map_err(|e| decode_err(what, e))?,
        });
    }
    Ok(out)
}
