//! Read-later items in SQLite: adding, listing (newest first, by tag, unread only or all),
//! marking read or unread, deleting, and keeping the search index in step (same
//! transaction). Owns their SQL; validation happened in `mod.rs`. Every change is keyed by
//! the user as well as the id, so one user's id never reaches another's row.

use super::index::{self, Doc, Text};
use super::{col, parse_tags, provenance_json, tags_json, tags_param};
use crate::sqlite::sql_limit;
use crate::{ReadLater, StoreError};
use rusqlite::{Connection, Row, TransactionBehavior, params};
use steward_protocol::{MemoryKind, Provenance};

macro_rules! read_later_columns {
    () => {
        "id, user, url, title, tags, created_at_ms, read_at_ms"
    };
}

const INSERT: &str = "INSERT INTO read_later \
     (user, url, title, tags, created_at_ms, provenance) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id";
// Tags: any wanted tag among the item's tags.
const LIST: &str = concat!(
    "SELECT ",
    read_later_columns!(),
    " FROM read_later \
     WHERE user = ?1 AND (?2 IS NULL OR EXISTS (SELECT 1 FROM json_each(read_later.tags) AS have \
            WHERE have.value IN (SELECT value FROM json_each(?2)))) \
       AND (?4 = 0 OR read_at_ms IS NULL) \
     ORDER BY created_at_ms DESC, id DESC LIMIT ?3"
);
// Marking an item read again keeps the first time it was read.
const MARK: &str = concat!(
    "UPDATE read_later SET read_at_ms = CASE WHEN ?3 THEN coalesce(read_at_ms, ?4) END \
     WHERE id = ?1 AND user = ?2 RETURNING ",
    read_later_columns!()
);
const DELETE: &str = "DELETE FROM read_later WHERE id = ?1 AND user = ?2";

fn item_from_row(row: &Row<'_>) -> Result<ReadLater, StoreError> {
    let id: i64 = row.get(0)?;
    let what = || format!("read-later item {id}");
    let tags: String = col(row, 4, &what)?;
    Ok(ReadLater {
        id,
        user: col(row, 1, &what)?,
        url: col(row, 2, &what)?,
        title: col(row, 3, &what)?,
        tags: parse_tags(&what(), &tags)?,
        created_at_ms: col(row, 5, &what)?,
        read_at_ms: col(row, 6, &what)?,
    })
}

/// `item.id` is ignored (the database assigns it).
pub(super) fn add(conn: &mut Connection, mut item: ReadLater) -> Result<ReadLater, StoreError> {
    // Asked for by the user (through the agent, the CLI or the API).
    let provenance = provenance_json(&Provenance::User { conversation: None })?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    item.id = tx.prepare_cached(INSERT)?.query_row(
        params![
            item.user,
            item.url,
            item.title,
            tags_json(&item.tags)?,
            item.created_at_ms,
            provenance
        ],
        |row| row.get(0),
    )?;
    let doc = Doc {
        kind: MemoryKind::ReadLater,
        ref_id: item.id,
        user: &item.user,
        created_at_ms: item.created_at_ms,
        tags: &item.tags,
    };
    let text = Text {
        title: &item.title,
        body: &item.url,
        tags: &item.tags,
    };
    index::add(&tx, &doc, &text)?;
    tx.commit()?;
    Ok(item)
}

pub(super) fn list(
    conn: &Connection,
    user: &str,
    tags: &[String],
    unread_only: bool,
    limit: usize,
) -> Result<Vec<ReadLater>, StoreError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(LIST)?;
    let mut rows = stmt.query(params![
        user,
        tags_param(tags)?,
        sql_limit(limit),
        unread_only
    ])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(item_from_row(row)?);
    }
    Ok(out)
}

pub(super) fn mark(
    conn: &Connection,
    user: &str,
    id: i64,
    read: bool,
    now_ms: i64,
) -> Result<Option<ReadLater>, StoreError> {
    let mut stmt = conn.prepare_cached(MARK)?;
    let mut rows = stmt.query(params![id, user, read, now_ms])?;
    rows.next()?.map(item_from_row).transpose()
}

pub(super) fn delete(conn: &mut Connection, user: &str, id: i64) -> Result<bool, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let deleted = tx.prepare_cached(DELETE)?.execute(params![id, user])? > 0;
    if deleted {
        index::remove(&tx, MemoryKind::ReadLater, id)?;
    }
    tx.commit()?;
    Ok(deleted)
}
