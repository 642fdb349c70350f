//! Notes in SQLite: CRUD, listing with filters, and keeping the search index in step (same
//! transaction). Owns their SQL; validation happened in `mod.rs`. Read-later items are in
//! `read_later.rs`.

use super::index::{self, Doc, Text};
use super::{col, parse_provenance, parse_tags, provenance_json, tags_json, tags_param};
use crate::sqlite::sql_limit;
use crate::{MemoryFilter, NewNote, NoteEdit, StoreError};
use rusqlite::{Connection, Row, TransactionBehavior, params};
use steward_protocol::{MemoryKind, Note};

macro_rules! note_columns {
    () => {
        "id, user, title, body, tags, created_at_ms, updated_at_ms, provenance"
    };
}

const INSERT: &str = "INSERT INTO notes \
     (user, title, body, tags, created_at_ms, updated_at_ms, provenance) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6) RETURNING id";
const GET: &str = concat!("SELECT ", note_columns!(), " FROM notes WHERE id = ?1");
// Tags: every wanted tag must be among the note's tags.
const LIST: &str = concat!(
    "SELECT ",
    note_columns!(),
    " FROM notes WHERE user = ?1 \
       AND (?2 IS NULL OR created_at_ms >= ?2) AND (?3 IS NULL OR created_at_ms <= ?3) \
       AND (?4 IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(?4) AS want \
            WHERE NOT EXISTS (SELECT 1 FROM json_each(notes.tags) AS have \
                              WHERE have.value = want.value))) \
     ORDER BY created_at_ms DESC, id DESC LIMIT ?5"
);
const UPDATE: &str =
    "UPDATE notes SET title = ?2, body = ?3, tags = ?4, updated_at_ms = ?5 WHERE id = ?1";
const DELETE: &str = "DELETE FROM notes WHERE id = ?1";

fn note_from_row(row: &Row<'_>) -> Result<Note, StoreError> {
    let id: i64 = row.get(0)?;
    let what = || format!("note {id}");
    let tags: String = col(row, 4, &what)?;
    let provenance: String = col(row, 7, &what)?;
    Ok(Note {
        id,
        user: col(row, 1, &what)?,
        title: col(row, 2, &what)?,
        body: col(row, 3, &what)?,
        tags: parse_tags(&what(), &tags)?,
        created_at_ms: col(row, 5, &what)?,
        updated_at_ms: col(row, 6, &what)?,
        provenance: parse_provenance(&what(), &provenance)?,
    })
}

fn note_text(note: &Note) -> Text<'_> {
    Text {
        title: &note.title,
        body: &note.body,
        tags: &note.tags,
    }
}

pub(super) fn insert(
    conn: &mut Connection,
    user: &str,
    note: &NewNote,
    now_ms: i64,
) -> Result<Note, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let id: i64 = tx.prepare_cached(INSERT)?.query_row(
        params![
            user,
            note.title,
            note.body,
            tags_json(&note.tags)?,
            now_ms,
            provenance_json(&note.provenance)?
        ],
        |row| row.get(0),
    )?;
    let stored = Note {
        id,
        user: user.to_owned(),
        title: note.title.clone(),
        body: note.body.clone(),
        tags: note.tags.clone(),
        created_at_ms: now_ms,
        updated_at_ms: now_ms,
        provenance: note.provenance.clone(),
    };
    let doc = Doc {
        kind: MemoryKind::Note,
        ref_id: id,
        user,
        created_at_ms: now_ms,
        tags: &stored.tags,
    };
    index::add(&tx, &doc, &note_text(&stored))?;
    tx.commit()?;
    Ok(stored)
}

pub(super) fn get(conn: &Connection, id: i64) -> Result<Option<Note>, StoreError> {
    let mut stmt = conn.prepare_cached(GET)?;
    let mut rows = stmt.query([id])?;
    rows.next()?.map(note_from_row).transpose()
}

pub(super) fn list(
    conn: &Connection,
    user: &str,
    filter: &MemoryFilter,
    limit: usize,
) -> Result<Vec<Note>, StoreError> {
    if limit == 0 || !(filter.kinds.is_empty() || filter.kinds.contains(&MemoryKind::Note)) {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(LIST)?;
    let mut rows = stmt.query(params![
        user,
        filter.since_ms,
        filter.until_ms,
        tags_param(&filter.tags)?,
        sql_limit(limit)
    ])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(note_from_row(row)?);
    }
    Ok(out)
}

pub(super) fn update(
    conn: &mut Connection,
    id: i64,
    edit: &NoteEdit,
    now_ms: i64,
) -> Result<Option<Note>, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(mut note) = get(&tx, id)? else {
        return Ok(None);
    };
    let mut text_changed = false;
    if let Some(title) = &edit.title {
        text_changed |= *title != note.title;
        note.title = title.clone();
    }
    if let Some(body) = &edit.body {
        text_changed |= *body != note.body;
        note.body = body.clone();
    }
    if let Some(tags) = &edit.tags {
        note.tags = tags.clone();
    }
    note.updated_at_ms = now_ms;
    tx.prepare_cached(UPDATE)?.execute(params![
        id,
        note.title,
        note.body,
        tags_json(&note.tags)?,
        now_ms
    ])?;
    index::replace(
        &tx,
        MemoryKind::Note,
        id,
        &note_text(&note),
        &note.tags,
        text_changed,
    )?;
    tx.commit()?;
    Ok(Some(note))
}

pub(super) fn delete(conn: &mut Connection, id: i64) -> Result<bool, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let deleted = tx.prepare_cached(DELETE)?.execute([id])? > 0;
    if deleted {
        index::remove(&tx, MemoryKind::Note, id)?;
    }
    tx.commit()?;
    Ok(deleted)
}
