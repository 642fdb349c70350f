//! The SQL for `pending_actions`: insert, read, list, the compare-and-set transition and the
//! overdue query, plus the row <-> `PendingAction` mapping. Owns no validation (done before the
//! blocking hop) and no decision about which transitions are legal (steward-core owns that).

use super::audit::insert_audit;
use crate::codec::{kind_str, parse_kind, parse_status, parse_surface, status_str, surface_str};
use crate::sqlite::decode_err;
use crate::{ActionPatch, AuditEntry, StoreError, Transition};
use rusqlite::{Connection, Row, TransactionBehavior, params};
use steward_protocol::{ActionStatus, ConversationId, PendingAction, PrincipalId};

/// The column list every read uses, in the order `action_from_row` expects. A macro so it can be
/// spliced into `concat!`-built constant SQL.
macro_rules! columns {
    () => {
        "id, kind, tool, arguments, payload_hash, preview, trace_id, conversation_id, surface, \
         principal, created_at_ms, expires_at_ms, status, revision, awaiting_edit, outcome, \
         updated_at_ms"
    };
}

// ON CONFLICT DO NOTHING turns a duplicate id into "0 rows changed" rather than a constraint
// error, so it can be reported as InvalidInput without parsing SQLite error codes.
const INSERT: &str = concat!(
    "INSERT INTO pending_actions (",
    columns!(),
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) \
     ON CONFLICT (id) DO NOTHING"
);

const GET: &str = concat!("SELECT ", columns!(), " FROM pending_actions WHERE id = ?1");

// One conditional UPDATE is the whole compare-and-set: the WHERE clause sees the row as it was
// before the patch (so `expected_hash` checks the approved payload, not the new one), and
// SQLite applies every change during the single step that returns the row.
const TRANSITION: &str = concat!(
    "UPDATE pending_actions SET \
       status = ?2, \
       arguments = coalesce(?3, arguments), \
       payload_hash = coalesce(?4, payload_hash), \
       preview = coalesce(?5, preview), \
       outcome = coalesce(?6, outcome), \
       awaiting_edit = coalesce(?7, awaiting_edit), \
       revision = revision + ?8, \
       updated_at_ms = ?9 \
     WHERE id = ?1 AND status = ?10 \
       AND (?11 IS NULL OR payload_hash = ?11) \
       AND (?12 IS NULL OR expires_at_ms > ?12) \
     RETURNING ",
    columns!()
);

const OVERDUE: &str = concat!(
    "SELECT ",
    columns!(),
    " FROM pending_actions WHERE status = 'pending' AND expires_at_ms <= ?1 \
     ORDER BY expires_at_ms, id LIMIT ?2"
);

/// A `transition_action` call, owned so it can cross to the blocking thread.
pub(super) struct Cas {
    pub id: String,
    pub from: ActionStatus,
    pub expected_hash: Option<String>,
    pub unexpired_at_ms: Option<i64>,
    pub to: ActionStatus,
    pub patch: ActionPatch,
    pub audit: AuditEntry,
    pub now_ms: i64,
}

fn action_from_row(row: &Row<'_>) -> Result<PendingAction, StoreError> {
    let id: String = row.get(0).map_err(|e| decode_err("action id", e))?;
    let what = || format!("action {id}");
    let get_text =
        |i: usize| -> Result<String, StoreError> { row.get(i).map_err(|e| decode_err(&what(), e)) };
    let get_int =
        |i: usize| -> Result<i64, StoreError> { row.get(i).map_err(|e| decode_err(&what(), e)) };
    let corrupt = |field: &str| StoreError::Corrupt(format!("{}: invalid {field}", what()));

    let kind = parse_kind(&get_text(1)?).ok_or_else(|| corrupt("kind"))?;
    let conversation =
        ConversationId::parse(&get_text(7)?).map_err(|_| corrupt("conversation id"))?;
    let surface = parse_surface(&get_text(8)?).ok_or_else(|| corrupt("surface"))?;
    let status = parse_status(&get_text(12)?).ok_or_else(|| corrupt("status"))?;
    let revision = u32::try_from(get_int(13)?).map_err(|_| corrupt("revision"))?;
    let awaiting_edit = match get_int(14)? {
        0 => false,
        1 => true,
        _ => return Err(corrupt("awaiting_edit")),
    };
    Ok(PendingAction {
        kind,
        tool: get_text(2)?,
        arguments: get_text(3)?,
        payload_hash: get_text(4)?,
        preview: get_text(5)?,
        trace_id: get_text(6)?,
        conversation,
        surface,
        principal: PrincipalId::parse(&get_text(9)?).map_err(|_| corrupt("principal id"))?,
        created_at_ms: get_int(10)?,
        expires_at_ms: get_int(11)?,
        status,
        revision,
        awaiting_edit,
        outcome: row.get(15).map_err(|e| decode_err(&what(), e))?,
        updated_at_ms: get_int(16)?,
        id,
    })
}

fn collect(mut rows: rusqlite::Rows<'_>) -> Result<Vec<PendingAction>, StoreError> {
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(action_from_row(row)?);
    }
    Ok(out)
}

pub(super) fn insert(
    conn: &mut Connection,
    action: &PendingAction,
    audit: &AuditEntry,
) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let inserted = tx.prepare_cached(INSERT)?.execute(params![
        action.id,
        kind_str(action.kind),
        action.tool,
        action.arguments,
        action.payload_hash,
        action.preview,
        action.trace_id,
        action.conversation.as_str(),
        surface_str(action.surface),
        action.principal.as_str(),
        action.created_at_ms,
        action.expires_at_ms,
        status_str(action.status),
        action.revision,
        action.awaiting_edit,
        action.outcome,
        action.updated_at_ms,
    ])?;
    if inserted == 0 {
        // Dropping `tx` rolls back; nothing was written anyway.
        return Err(StoreError::InvalidInput(
            "an action with this id already exists".into(),
        ));
    }
    insert_audit(&tx, audit)?;
    tx.commit()?;
    Ok(())
}

pub(super) fn get(conn: &Connection, id: &str) -> Result<Option<PendingAction>, StoreError> {
    let mut stmt = conn.prepare_cached(GET)?;
    let mut rows = stmt.query([id])?;
    match rows.next()? {
        Some(row) => Ok(Some(action_from_row(row)?)),
        None => Ok(None),
    }
}

pub(super) fn list(
    conn: &Connection,
    status: Option<ActionStatus>,
    conversation: Option<&str>,
    limit: i64,
) -> Result<Vec<PendingAction>, StoreError> {
    // Only constant fragments are spliced in (values are bound), and each of the four shapes
    // can use its own index, which one `(?1 IS NULL OR ...)` query could not.
    let filter = match (status.is_some(), conversation.is_some()) {
        (false, false) => "",
        (true, false) => "WHERE status = ?2",
        (false, true) => "WHERE conversation_id = ?3",
        (true, true) => "WHERE status = ?2 AND conversation_id = ?3",
    };
    let sql = format!(
        "SELECT {} FROM pending_actions {filter} ORDER BY created_at_ms DESC, id LIMIT ?1",
        columns!()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    stmt.raw_bind_parameter(1, limit)?;
    if let Some(status) = status {
        stmt.raw_bind_parameter(2, status_str(status))?;
    }
    if let Some(conversation) = conversation {
        stmt.raw_bind_parameter(3, conversation)?;
    }
    collect(stmt.raw_query())
}

/// Counted on `pending_actions_by_status`: no row is read.
pub(super) fn count(conn: &Connection, status: ActionStatus) -> Result<u64, StoreError> {
    let n: i64 = conn
        .prepare_cached("SELECT count(*) FROM pending_actions WHERE status = ?1")?
        .query_row([status_str(status)], |row| row.get(0))?;
    u64::try_from(n).map_err(|_| StoreError::Corrupt("a negative count of actions".into()))
}

pub(super) fn transition(conn: &mut Connection, cas: &Cas) -> Result<Transition, StoreError> {
    // IMMEDIATE: the write lock is held from the start, so the row read back after a miss is
    // the one that defeated the guard, even with other processes on the same file.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let applied = {
        let mut stmt = tx.prepare_cached(TRANSITION)?;
        let mut rows = stmt.query(params![
            cas.id,
            status_str(cas.to),
            cas.patch.arguments,
            cas.patch.payload_hash,
            cas.patch.preview,
            cas.patch.outcome,
            cas.patch.awaiting_edit,
            i64::from(cas.patch.bump_revision),
            cas.now_ms,
            status_str(cas.from),
            cas.expected_hash,
            cas.unexpired_at_ms,
        ])?;
        match rows.next()? {
            Some(row) => Some(action_from_row(row)?),
            None => None,
        }
    };
    match applied {
        Some(row) => {
            insert_audit(&tx, &cas.audit)?;
            tx.commit()?;
            Ok(Transition::Applied(row))
        }
        None => {
            let current = get(&tx, &cas.id)?;
            // Nothing was written; ending the read-only transaction either way is fine.
            tx.commit()?;
            Ok(current.map_or(Transition::NotFound, Transition::Conflict))
        }
    }
}

pub(super) fn overdue(
    conn: &Connection,
    now_ms: i64,
    limit: i64,
) -> Result<Vec<PendingAction>, StoreError> {
    let mut stmt = conn.prepare_cached(OVERDUE)?;
    collect(stmt.query(params![now_ms, limit])?)
}
