//! The SQL for `grants`: insert, list, revoke and the active-grant lookup, with the row mapping.
//! Owns no validation and no policy (whether a grant lets a call skip the card is core's call).

use crate::StoreError;
use crate::sqlite::decode_err;
use rusqlite::{Connection, OptionalExtension, Row, params};
use steward_protocol::{ConversationId, Grant, PrincipalId};

const INSERT: &str = "INSERT INTO grants \
     (id, conversation_id, tool, principal, created_at_ms, expires_at_ms, revoked) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) DO NOTHING";
const COLUMNS: &str = "id, conversation_id, tool, principal, created_at_ms, expires_at_ms, revoked";
const REVOKE: &str = "UPDATE grants SET revoked = 1 WHERE id = ?1 AND revoked = 0";

fn grant_from_row(row: &Row<'_>) -> Result<Grant, StoreError> {
    let id: String = row.get(0).map_err(|e| decode_err("grant id", e))?;
    let what = || format!("grant {id}");
    let corrupt = |field: &str| StoreError::Corrupt(format!("{}: invalid {field}", what()));
    let conversation: String = row.get(1).map_err(|e| decode_err(&what(), e))?;
    let revoked = match row.get::<_, i64>(6).map_err(|e| decode_err(&what(), e))? {
        0 => false,
        1 => true,
        _ => return Err(corrupt("revoked")),
    };
    Ok(Grant {
        conversation: ConversationId::parse(&conversation)
            .map_err(|_| corrupt("conversation id"))?,
        tool: row.get(2).map_err(|e| decode_err(&what(), e))?,
        principal: PrincipalId::parse(
            &row.get::<_, String>(3)
                .map_err(|e| decode_err(&what(), e))?,
        )
        .map_err(|_| corrupt("principal id"))?,
        created_at_ms: row.get(4).map_err(|e| decode_err(&what(), e))?,
        expires_at_ms: row.get(5).map_err(|e| decode_err(&what(), e))?,
        revoked,
        id,
    })
}

pub(super) fn insert(conn: &Connection, grant: &Grant) -> Result<(), StoreError> {
    let inserted = conn.prepare_cached(INSERT)?.execute(params![
        grant.id,
        grant.conversation.as_str(),
        grant.tool,
        grant.principal.as_str(),
        grant.created_at_ms,
        grant.expires_at_ms,
        grant.revoked,
    ])?;
    if inserted == 0 {
        return Err(StoreError::InvalidInput(
            "a grant with this id already exists".into(),
        ));
    }
    Ok(())
}

pub(super) fn list(
    conn: &Connection,
    include_inactive: bool,
    now_ms: i64,
) -> Result<Vec<Grant>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM grants \
         WHERE ?1 OR (revoked = 0 AND expires_at_ms > ?2) \
         ORDER BY created_at_ms DESC, id"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![include_inactive, now_ms])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(grant_from_row(row)?);
    }
    Ok(out)
}

pub(super) fn revoke(conn: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(conn.prepare_cached(REVOKE)?.execute([id])? > 0)
}

pub(super) fn active(
    conn: &Connection,
    conversation: &str,
    tool: &str,
    now_ms: i64,
) -> Result<Option<Grant>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM grants \
         WHERE conversation_id = ?1 AND tool = ?2 AND revoked = 0 AND expires_at_ms > ?3 \
         ORDER BY expires_at_ms DESC, id LIMIT 1"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    stmt.query_row(params![conversation, tool, now_ms], |row| {
        Ok(grant_from_row(row))
    })
    .optional()?
    .transpose()
}
