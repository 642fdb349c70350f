//! Vectors in SQLite: one table pair per embedder model (created on its first vector,
//! recorded in `embedding_models`), writing, removal, and the backfill's gap list. Owns the
//! vector bookkeeping; the table layout is `layout.rs`'s, its upgrade from older layouts
//! `legacy.rs`'s, the in-process sign-bit index `bitindex.rs`'s (kept current by `sync.rs`),
//! the two-pass search `search.rs`'s, the doc map `index.rs`'s.
//!
//! Plain SQLite, no extension: the coarse pass runs over an in-process copy of the sign bits
//! (see `bitindex.rs` for why sqlite-vec's vec0 was dropped in schema v5).

mod bitindex;
mod layout;
mod legacy;
mod search;
mod sync;
#[cfg(test)]
mod tests;

pub(crate) use legacy::upgrade_to_v5;
pub(super) use search::search;
pub(crate) use sync::VectorIndexes;

use super::memory_ref;
use super::{col, items};
use crate::StoreError;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use steward_protocol::MemoryRef;

struct Model {
    id: i64,
    dims: usize,
}

fn find_model(conn: &Connection, model_id: &str) -> Result<Option<Model>, StoreError> {
    let row: Option<(i64, i64, String, i64)> = conn
        .prepare_cached(
            "SELECT id, dims, table_name, layout FROM embedding_models WHERE model_id = ?1",
        )?
        .query_row([model_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    row.map(|(id, dims, table, layout)| model(id, dims, &table, layout))
        .transpose()
}

/// A stored table name is trusted only if it is the one we would derive (table names go into
/// SQL text), and only in the layout this code reads.
fn model(id: i64, dims: i64, table: &str, layout: i64) -> Result<Model, StoreError> {
    let dims = usize::try_from(dims)
        .map_err(|_| StoreError::Corrupt(format!("embedding model {id}: bad dimensions")))?;
    if table != layout::bits_table(id, dims) {
        return Err(StoreError::Corrupt(format!(
            "embedding model {id}: unexpected vector table name"
        )));
    }
    if layout != layout::CURRENT {
        return Err(StoreError::Corrupt(format!(
            "embedding model {id}: vector tables in unknown layout {layout}"
        )));
    }
    Ok(Model { id, dims })
}

fn create_model(conn: &Connection, model_id: &str, dims: usize) -> Result<Model, StoreError> {
    let dims_sql = i64::try_from(dims)
        .map_err(|_| StoreError::InvalidInput("embedding has too many dimensions".into()))?;
    // The table name needs the row id: insert a unique placeholder, then set it.
    let id: i64 = conn
        .prepare_cached(
            "INSERT INTO embedding_models (model_id, dims, table_name, layout) \
             VALUES (?1, ?2, 'pending:' || ?1, ?3) RETURNING id",
        )?
        .query_row(params![model_id, dims_sql, layout::CURRENT], |r| r.get(0))?;
    conn.prepare_cached("UPDATE embedding_models SET table_name = ?2 WHERE id = ?1")?
        .execute(params![id, layout::bits_table(id, dims)])?;
    layout::create(conn, id, dims)?;
    Ok(Model { id, dims })
}

fn dims_mismatch(model: &Model, got: usize) -> StoreError {
    StoreError::InvalidInput(format!(
        "embedding has {got} dimensions but this model's vectors have {}",
        model.dims
    ))
}

pub(super) fn put(
    conn: &mut Connection,
    r: MemoryRef,
    model_id: &str,
    embedding: &[f32],
    now_ms: i64,
) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let doc: Option<(i64, String, i64)> = tx
        .prepare_cached(
            "SELECT id, user, created_at_ms FROM memory_docs WHERE kind = ?1 AND ref_id = ?2",
        )?
        .query_row(params![r.kind.as_str(), r.id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })
        .optional()?;
    let Some((doc_id, user, created_at_ms)) = doc else {
        return Err(StoreError::InvalidInput(format!(
            "no {} with id {} to attach a vector to",
            r.kind.as_str(),
            r.id
        )));
    };
    let model = match find_model(&tx, model_id)? {
        Some(m) => m,
        None => create_model(&tx, model_id, embedding.len())?,
    };
    if model.dims != embedding.len() {
        return Err(dims_mismatch(&model, embedding.len()));
    }
    layout::write(
        &tx,
        model.id,
        model.dims,
        (doc_id, &user, r.kind.as_str(), created_at_ms),
        embedding,
    )?;
    sync::prune(&tx)?;
    tx.prepare_cached(
        "INSERT INTO embeddings (model, doc_id, embedded_ms) VALUES (?1, ?2, ?3) \
         ON CONFLICT (model, doc_id) DO UPDATE SET embedded_ms = excluded.embedded_ms",
    )?
    .execute(params![model.id, doc_id, now_ms])?;
    tx.commit()?;
    Ok(())
}

/// Deletes every vector of one doc (all models), inside the caller's transaction.
pub(super) fn remove_all(conn: &Connection, doc_id: i64) -> Result<(), StoreError> {
    let models: Vec<(i64, i64, String, i64)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT m.id, m.dims, m.table_name, m.layout FROM embeddings AS e \
             JOIN embedding_models AS m ON m.id = e.model WHERE e.doc_id = ?1",
        )?;
        let rows = stmt.query_map([doc_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    for (id, dims, table, layout) in models {
        let m = model(id, dims, &table, layout)?;
        layout::delete(conn, m.id, m.dims, doc_id)?;
    }
    conn.prepare_cached("DELETE FROM embeddings WHERE doc_id = ?1")?
        .execute([doc_id])?;
    Ok(())
}

pub(super) fn missing(
    conn: &Connection,
    model_id: &str,
    limit: usize,
) -> Result<Vec<(MemoryRef, String)>, StoreError> {
    // An unknown model has no vectors at all: -1 matches no model row.
    let model = find_model(conn, model_id)?.map_or(-1, |m| m.id);
    let refs: Vec<MemoryRef> = {
        let mut stmt = conn.prepare_cached(
            "SELECT d.kind, d.ref_id FROM memory_docs AS d \
             WHERE NOT EXISTS (SELECT 1 FROM embeddings AS e \
                               WHERE e.model = ?1 AND e.doc_id = d.id) \
             ORDER BY d.id LIMIT ?2",
        )?;
        let mut rows = stmt.query(params![model, crate::sqlite::sql_limit(limit)])?;
        let mut refs = Vec::new();
        while let Some(row) = rows.next()? {
            let what = || "search index row".to_owned();
            refs.push(memory_ref(col(row, 0, &what)?, col(row, 1, &what)?)?);
        }
        refs
    };
    Ok(items::get(conn, &refs)?
        .into_iter()
        .map(|item| (item.r#ref, item.embedding_text()))
        .collect())
}
