//! The v5 migration's Rust step: every model's vectors move to layout 3 (plain tables, see
//! `layout.rs`) and the sqlite-vec `vec0` tables of older layouts are removed, without
//! sqlite-vec (no longer linked). Owns only this upgrade.
//!
//! - Layout 2 (schema v4): the floats already sit in a plain table and are kept; the sign bits
//!   are recomputed from them into the new bits table. Nothing is lost.
//! - Layout 1 (schema v3, only ever written by development builds): the floats live inside
//!   the vec0 table's own storage, unreadable without the extension. They are dropped and the
//!   model's `embeddings` rows deleted, so `steward memory backfill` re-embeds those rows
//!   (vectors are derived data; the rows themselves are untouched).
//!
//! A virtual table cannot be dropped while its module is not registered (DROP calls the
//! module). So its schema row is deleted with `PRAGMA writable_schema` and its shadow tables
//! (ordinary tables) dropped: the procedure SQLite documents for schema changes ALTER TABLE
//! cannot make ("Making Other Kinds Of Table Schema Changes"), with the schema version bumped
//! and the connection's schema reloaded. The same step widens the `layout` CHECK to allow 3.

use super::layout::{self, CURRENT, bits_table, floats_from_blob, quantize};
use crate::StoreError;
use rusqlite::{Connection, params};

const LAYOUT_CHECK_V4: &str = "CHECK (layout IN (1, 2))";
const LAYOUT_CHECK_V5: &str = "CHECK (layout IN (1, 2, 3))";

/// The vec0 table name layouts 1 and 2 used. Derived from integers only: safe in SQL text.
fn vec0_table(id: i64, dims: usize) -> String {
    format!("memory_vec_{dims}_{id}")
}

struct OldModel {
    id: i64,
    dims: usize,
    layout: i64,
}

fn old_models(conn: &Connection) -> Result<Vec<OldModel>, StoreError> {
    let rows: Vec<(i64, i64, String, i64)> = {
        let mut stmt =
            conn.prepare("SELECT id, dims, table_name, layout FROM embedding_models ORDER BY id")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    rows.into_iter()
        .map(|(id, dims, table, layout)| {
            let dims = usize::try_from(dims).map_err(|_| {
                StoreError::Corrupt(format!("embedding model {id}: bad dimensions"))
            })?;
            // The old name is trusted only if it is the one we derive: it goes into SQL text.
            if table != vec0_table(id, dims) || !(1..=2).contains(&layout) {
                return Err(StoreError::Corrupt(format!(
                    "embedding model {id}: unexpected vector table or layout"
                )));
            }
            Ok(OldModel { id, dims, layout })
        })
        .collect()
}

/// Names of the ordinary tables a vec0 table kept its data in (`<name>_chunks`, `_rowids`,
/// `_vector_chunks00`, ...).
fn shadow_tables(conn: &Connection, vec0: &str) -> Result<Vec<String>, StoreError> {
    let pattern = format!("{}\\_%", vec0.replace('_', "\\_"));
    let mut stmt = conn.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?1 ESCAPE '\\' \
         AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'",
    )?;
    let rows = stmt.query_map([pattern], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The schema-text edits: widen the layout CHECK, forget the vec0 tables. Then bump the
/// schema version (other connections reload) and reload this connection's schema.
fn edit_schema(conn: &Connection, models: &[OldModel]) -> Result<(), StoreError> {
    let sql: String = conn.query_row(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'embedding_models'",
        [],
        |r| r.get(0),
    )?;
    if sql.matches(LAYOUT_CHECK_V4).count() != 1 {
        return Err(StoreError::Corrupt(
            "embedding_models is not the table schema v4 created".into(),
        ));
    }
    let widened = sql.replace(LAYOUT_CHECK_V4, LAYOUT_CHECK_V5);
    let version: i64 = conn.pragma_query_value(None, "schema_version", |r| r.get(0))?;
    conn.pragma_update(None, "writable_schema", true)?;
    let edited = (|| -> Result<(), StoreError> {
        conn.execute(
            "UPDATE sqlite_master SET sql = ?1 WHERE type = 'table' AND name = 'embedding_models'",
            [&widened],
        )?;
        for m in models {
            conn.execute(
                "DELETE FROM sqlite_master WHERE type = 'table' AND name = ?1 \
                 AND sql LIKE 'CREATE VIRTUAL TABLE%'",
                [vec0_table(m.id, m.dims)],
            )?;
        }
        conn.pragma_update(None, "schema_version", version + 1)?;
        Ok(())
    })();
    // RESET turns writable_schema off and reloads this connection's schema, also on failure
    // (the transaction is then rolled back by the caller).
    conn.pragma_update(None, "writable_schema", "RESET")?;
    edited
}

/// Runs inside the v5 migration's transaction, after its SQL. Returns how many models moved.
pub(crate) fn upgrade_to_v5(conn: &Connection) -> Result<usize, StoreError> {
    let models = old_models(conn)?;
    let shadows: Vec<Vec<String>> = models
        .iter()
        .map(|m| shadow_tables(conn, &vec0_table(m.id, m.dims)))
        .collect::<Result<_, _>>()?;
    edit_schema(conn, &models)?;
    for (m, shadows) in models.iter().zip(shadows) {
        for table in shadows {
            // Names read from sqlite_master, matched against our own derived prefix; quoted.
            conn.execute_batch(&format!("DROP TABLE \"{}\"", table.replace('"', "\"\"")))?;
        }
        match m.layout {
            2 => keep_floats(conn, m)?,
            _ => {
                tracing::warn!(
                    model = m.id,
                    "vectors written by a development build (layout 1) cannot be read without \
                     sqlite-vec and were dropped; run `steward memory backfill` to re-embed"
                );
                layout::create(conn, m.id, m.dims)?;
                conn.execute("DELETE FROM embeddings WHERE model = ?1", [m.id])?;
            }
        }
        conn.execute(
            "UPDATE embedding_models SET table_name = ?2, layout = ?3 WHERE id = ?1",
            params![m.id, bits_table(m.id, m.dims), CURRENT],
        )?;
    }
    // The triggers logged every row written above. No index predates this schema, so none
    // needs those entries (AUTOINCREMENT keeps counting from where they ended).
    conn.execute("DELETE FROM memory_vec_changes", [])?;
    Ok(models.len())
}

/// Layout 2 → 3: the float table stays; the bits table is filled from it (and from the docs'
/// user, kind and time), streaming, so memory stays flat however many vectors there are.
/// Floats of docs that no longer exist are dropped.
fn keep_floats(conn: &Connection, m: &OldModel) -> Result<(), StoreError> {
    let floats = layout::floats_table(m.id, m.dims);
    conn.execute(
        &format!("DELETE FROM {floats} WHERE doc_id NOT IN (SELECT id FROM memory_docs)"),
        [],
    )?;
    layout::create_bits(conn, m.id, m.dims)?;
    let mut insert = conn.prepare(&format!(
        "INSERT INTO {} (doc_id, user, kind, created_at, bits) VALUES (?1, ?2, ?3, ?4, ?5)",
        bits_table(m.id, m.dims)
    ))?;
    let mut select = conn.prepare(&format!(
        "SELECT f.doc_id, d.user, d.kind, d.created_at_ms, f.embedding \
         FROM {floats} AS f JOIN memory_docs AS d ON d.id = f.doc_id ORDER BY f.doc_id"
    ))?;
    let mut rows = select.query([])?;
    while let Some(r) = rows.next()? {
        let doc_id: i64 = r.get(0)?;
        let raw: Vec<u8> = r.get(4)?;
        let embedding = floats_from_blob(doc_id, &raw)?;
        let (user, kind, created_at_ms): (String, String, i64) = (r.get(1)?, r.get(2)?, r.get(3)?);
        insert.execute(params![
            doc_id,
            user,
            kind,
            created_at_ms,
            quantize(&embedding)
        ])?;
    }
    conn.execute(
        "DELETE FROM embeddings WHERE model = ?1 AND doc_id NOT IN (SELECT id FROM memory_docs)",
        [m.id],
    )?;
    Ok(())
}
