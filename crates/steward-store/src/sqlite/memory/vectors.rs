//! Vectors in SQLite through sqlite-vec: registering the extension, one `vec0` table per
//! embedder model (created on its first vector, recorded in `embedding_models`), writing,
//! KNN search with the filters pushed into vec0, removal, and the backfill's gap list. Owns the
//! vector SQL; the doc map it keys on is `index.rs`'s.
//!
//! Each table is `memory_vec_<dims>_<model row id>` with `user` as partition key, `kind` and
//! `created_at` as metadata columns (so KNN filters by them before ranking) and a float32
//! `embedding` with cosine distance. Tag filters are not in vec0: they are applied after the
//! KNN on an over-fetched candidate set (see `search`). Brute force: at 100k × 384 floats a
//! query reads ~150 MB of vector chunks; sqlite-vec's `bit[]` columns with float rescoring
//! would cut that 32× if the benchmark asks for it.

use super::index::memory_ref;
use super::{col, items, tags_param};
use crate::{MemoryFilter, StoreError};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params, params_from_iter};
use std::sync::Once;
use steward_protocol::MemoryRef;

/// sqlite-vec refuses a larger k.
const MAX_K: usize = 4096;
/// With a tag filter, KNN fetches this many times the limit (at least `MIN_TAGGED_K`) before
/// filtering: tags live outside vec0.
const TAGGED_OVERFETCH: usize = 8;
const MIN_TAGGED_K: usize = 256;

static REGISTER: Once = Once::new();

/// Makes sqlite-vec available to every connection opened afterwards in this process. Must run
/// before the first connection opens; later calls do nothing.
pub(crate) fn register() {
    REGISTER.call_once(|| {
        // SAFETY: sqlite3_vec_init is the extension's C entry point with exactly the signature
        // sqlite3_auto_extension expects (the crate declares it without arguments); this is the
        // registration its documentation gives. The symbol lives for the whole process.
        let rc = unsafe {
            rusqlite::ffi::sqlite3_auto_extension(Some(std::mem::transmute::<
                *const (),
                unsafe extern "C" fn(
                    *mut rusqlite::ffi::sqlite3,
                    *mut *mut std::os::raw::c_char,
                    *const rusqlite::ffi::sqlite3_api_routines,
                ) -> std::os::raw::c_int,
            >(
                sqlite_vec::sqlite3_vec_init as *const ()
            )))
        };
        if rc != rusqlite::ffi::SQLITE_OK {
            tracing::error!(
                rc,
                "registering sqlite-vec failed; vector search will not work"
            );
        }
    });
}

struct Model {
    id: i64,
    dims: usize,
    table: String,
}

/// Derived from integers only, so it is safe to put in SQL text.
fn table_name(id: i64, dims: usize) -> String {
    format!("memory_vec_{dims}_{id}")
}

fn find_model(conn: &Connection, model_id: &str) -> Result<Option<Model>, StoreError> {
    let row: Option<(i64, i64, String)> = conn
        .prepare_cached("SELECT id, dims, table_name FROM embedding_models WHERE model_id = ?1")?
        .query_row([model_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    row.map(|(id, dims, table)| model(id, dims, table))
        .transpose()
}

/// A stored table name is trusted only if it is the one we would derive: it goes into SQL text.
fn model(id: i64, dims: i64, table: String) -> Result<Model, StoreError> {
    let dims = usize::try_from(dims)
        .map_err(|_| StoreError::Corrupt(format!("embedding model {id}: bad dimensions")))?;
    if table != table_name(id, dims) {
        return Err(StoreError::Corrupt(format!(
            "embedding model {id}: unexpected vector table name"
        )));
    }
    Ok(Model { id, dims, table })
}

fn create_model(conn: &Connection, model_id: &str, dims: usize) -> Result<Model, StoreError> {
    let dims_sql = i64::try_from(dims)
        .map_err(|_| StoreError::InvalidInput("embedding has too many dimensions".into()))?;
    // The table name needs the row id: insert a unique placeholder, then set it.
    let id: i64 = conn
        .prepare_cached(
            "INSERT INTO embedding_models (model_id, dims, table_name) \
             VALUES (?1, ?2, 'pending:' || ?1) RETURNING id",
        )?
        .query_row(params![model_id, dims_sql], |r| r.get(0))?;
    let table = table_name(id, dims);
    conn.prepare_cached("UPDATE embedding_models SET table_name = ?2 WHERE id = ?1")?
        .execute(params![id, table])?;
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE {table} USING vec0(\
           user text partition key, kind text, created_at integer, \
           embedding float[{dims}] distance_metric=cosine)"
    ))?;
    Ok(Model { id, dims, table })
}

fn dims_mismatch(model: &Model, got: usize) -> StoreError {
    StoreError::InvalidInput(format!(
        "embedding has {got} dimensions but this model's vectors have {}",
        model.dims
    ))
}

/// Little-endian float32, the blob layout vec0 reads.
fn blob(embedding: &[f32]) -> Vec<u8> {
    embedding.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub(super) fn put(
    conn: &mut Connection,
    r: MemoryRef,
    model_id: &str,
    embedding: &[f32],
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
    // vec0 has no upsert: replace by delete + insert.
    tx.prepare_cached(&format!("DELETE FROM {} WHERE rowid = ?1", model.table))?
        .execute([doc_id])?;
    tx.prepare_cached(&format!(
        "INSERT INTO {} (rowid, user, kind, created_at, embedding) VALUES (?1, ?2, ?3, ?4, ?5)",
        model.table
    ))?
    .execute(params![
        doc_id,
        user,
        r.kind.as_str(),
        created_at_ms,
        blob(embedding)
    ])?;
    tx.prepare_cached(
        "INSERT INTO embeddings (model, doc_id, embedded_ms) VALUES (?1, ?2, ?3) \
         ON CONFLICT (model, doc_id) DO UPDATE SET embedded_ms = excluded.embedded_ms",
    )?
    .execute(params![model.id, doc_id, crate::sqlite::now_ms()])?;
    tx.commit()?;
    Ok(())
}

/// Deletes every vector of one doc (all models), inside the caller's transaction.
pub(super) fn remove_all(conn: &Connection, doc_id: i64) -> Result<(), StoreError> {
    let models: Vec<(i64, i64, String)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT m.id, m.dims, m.table_name FROM embeddings AS e \
             JOIN embedding_models AS m ON m.id = e.model WHERE e.doc_id = ?1",
        )?;
        let rows = stmt.query_map([doc_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    for (id, dims, table) in models {
        let m = model(id, dims, table)?;
        conn.prepare_cached(&format!("DELETE FROM {} WHERE rowid = ?1", m.table))?
            .execute([doc_id])?;
    }
    conn.prepare_cached("DELETE FROM embeddings WHERE doc_id = ?1")?
        .execute([doc_id])?;
    Ok(())
}

pub(super) fn search(
    conn: &Connection,
    user: &str,
    model_id: &str,
    embedding: &[f32],
    filter: &MemoryFilter,
    limit: usize,
) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
    let Some(model) = find_model(conn, model_id)? else {
        return Ok(Vec::new());
    };
    if model.dims != embedding.len() {
        return Err(dims_mismatch(&model, embedding.len()));
    }
    let k = if filter.tags.is_empty() {
        limit
    } else {
        limit.saturating_mul(TAGGED_OVERFETCH).max(MIN_TAGGED_K)
    }
    .min(MAX_K);
    // Kind and time constraints go inside the KNN so vec0 filters before ranking; the variants
    // of this text are few (kinds count × two optional bounds) and each is cached.
    let mut values: Vec<Value> = vec![
        Value::Blob(blob(embedding)),
        Value::Integer(crate::sqlite::sql_limit(k)),
        Value::Text(user.to_owned()),
        tags_param(&filter.tags)?.map_or(Value::Null, Value::Text),
        Value::Integer(crate::sqlite::sql_limit(limit)),
    ];
    let mut knn_where = String::new();
    if !filter.kinds.is_empty() {
        let marks: Vec<String> = filter
            .kinds
            .iter()
            .map(|k| {
                values.push(Value::Text(k.as_str().to_owned()));
                format!("?{}", values.len())
            })
            .collect();
        knn_where.push_str(&format!(" AND kind IN ({})", marks.join(", ")));
    }
    if let Some(since) = filter.since_ms {
        values.push(Value::Integer(since));
        knn_where.push_str(&format!(" AND created_at >= ?{}", values.len()));
    }
    if let Some(until) = filter.until_ms {
        values.push(Value::Integer(until));
        knn_where.push_str(&format!(" AND created_at <= ?{}", values.len()));
    }
    let sql = format!(
        "WITH knn AS MATERIALIZED (\
           SELECT rowid, distance FROM {table} \
           WHERE embedding MATCH ?1 AND k = ?2 AND user = ?3{knn_where}) \
         SELECT d.kind, d.ref_id, knn.distance FROM knn JOIN memory_docs AS d ON d.id = knn.rowid \
         WHERE ?4 IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(?4) AS want \
               WHERE NOT EXISTS (SELECT 1 FROM json_each(d.tags) AS have \
                                 WHERE have.value = want.value)) \
         ORDER BY knn.distance, d.id LIMIT ?5",
        table = model.table
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let what = || "vector search row".to_owned();
        let r = memory_ref(col(row, 0, &what)?, col(row, 1, &what)?)?;
        out.push((r, col(row, 2, &what)?));
    }
    Ok(out)
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
