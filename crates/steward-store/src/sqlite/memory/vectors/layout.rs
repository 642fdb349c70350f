//! The on-disk layout of one embedder model's vectors. Owns the table names, the DDL (tables
//! and change-log triggers), binary quantization and the float blob format. Does not own
//! writing or searching vectors (`mod.rs`, `search.rs`), the in-process index (`bitindex.rs`,
//! `sync.rs`), nor upgrading older layouts (`legacy.rs`).
//!
//! Layout 3 (current, schema v5), per model, plain SQLite tables (no extension):
//! - `memory_vecb_<dims>_<id>`: the sign bits of each vector (48 bytes at 384 dimensions) with
//!   the doc's user, kind and creation time, which is all the coarse pass needs: loading it
//!   into the in-process index reads ~70 bytes a row instead of 1.5 KiB.
//! - `memory_vecf_<dims>_<id>`: the float32 vectors keyed by doc id, read only for the exact
//!   cosine rescoring of the coarse candidates.
//! - Triggers on the bits table append every insert, update and delete to
//!   `memory_vec_changes`, so that any connection (another process sharing the file included)
//!   can bring its in-process index up to date by reading the log since its last look.

use crate::StoreError;
use rusqlite::{Connection, params};

/// The value of `embedding_models.layout` for tables in this layout.
pub(crate) const CURRENT: i64 = 3;

/// Derived from integers only, so it is safe to put in SQL text.
pub(super) fn bits_table(id: i64, dims: usize) -> String {
    format!("memory_vecb_{dims}_{id}")
}

/// Derived from integers only, so it is safe to put in SQL text.
pub(super) fn floats_table(id: i64, dims: usize) -> String {
    format!("memory_vecf_{dims}_{id}")
}

/// Bytes of sign bits per row: one bit per dimension, rounded up to whole bytes (the padding
/// bits are 0 on both sides, so they never add to a hamming distance).
pub(super) fn bit_bytes(dims: usize) -> usize {
    dims.div_ceil(8)
}

/// Sign bits, bit i of the vector at `out[i / 8] >> (i % 8)` (sqlite-vec's
/// `vec_quantize_binary` layout, which layout 2 stored).
pub(super) fn quantize(embedding: &[f32]) -> Vec<u8> {
    let mut out = vec![0u8; bit_bytes(embedding.len())];
    for (i, v) in embedding.iter().enumerate() {
        if *v > 0.0 {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out
}

/// Little-endian float32.
pub(super) fn blob(embedding: &[f32]) -> Vec<u8> {
    embedding.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub(super) fn floats_from_blob(doc_id: i64, raw: &[u8]) -> Result<Vec<f32>, StoreError> {
    if !raw.len().is_multiple_of(4) {
        return Err(StoreError::Corrupt(format!(
            "vector of search index row {doc_id} is not float32"
        )));
    }
    Ok(raw
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// Creates both tables of a model and the triggers that log changes to its bits.
pub(super) fn create(conn: &Connection, id: i64, dims: usize) -> Result<(), StoreError> {
    conn.execute_batch(&format!(
        "CREATE TABLE {} (doc_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)",
        floats_table(id, dims)
    ))?;
    create_bits(conn, id, dims)
}

/// The bits table and its change-log triggers (the model id in the trigger bodies is an
/// integer, safe in SQL text).
pub(super) fn create_bits(conn: &Connection, id: i64, dims: usize) -> Result<(), StoreError> {
    let bits = bits_table(id, dims);
    conn.execute_batch(&format!(
        "CREATE TABLE {bits} (\
           doc_id INTEGER PRIMARY KEY, user TEXT NOT NULL, kind TEXT NOT NULL, \
           created_at INTEGER NOT NULL, bits BLOB NOT NULL); \
         CREATE TRIGGER {bits}_ai AFTER INSERT ON {bits} BEGIN \
           INSERT INTO memory_vec_changes (model, doc_id) VALUES ({id}, new.doc_id); END; \
         CREATE TRIGGER {bits}_ad AFTER DELETE ON {bits} BEGIN \
           INSERT INTO memory_vec_changes (model, doc_id) VALUES ({id}, old.doc_id); END; \
         CREATE TRIGGER {bits}_au AFTER UPDATE ON {bits} BEGIN \
           INSERT INTO memory_vec_changes (model, doc_id) VALUES ({id}, old.doc_id); \
           INSERT INTO memory_vec_changes (model, doc_id) VALUES ({id}, new.doc_id); END;"
    ))?;
    Ok(())
}

/// Writes one vector in both tables (replacing any previous one for this doc).
pub(super) fn write(
    conn: &Connection,
    id: i64,
    dims: usize,
    doc: (i64, &str, &str, i64),
    embedding: &[f32],
) -> Result<(), StoreError> {
    let (doc_id, user, kind, created_at_ms) = doc;
    conn.prepare_cached(&format!(
        "INSERT OR REPLACE INTO {} (doc_id, user, kind, created_at, bits) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        bits_table(id, dims)
    ))?
    .execute(params![
        doc_id,
        user,
        kind,
        created_at_ms,
        quantize(embedding)
    ])?;
    conn.prepare_cached(&format!(
        "INSERT OR REPLACE INTO {} (doc_id, embedding) VALUES (?1, ?2)",
        floats_table(id, dims)
    ))?
    .execute(params![doc_id, blob(embedding)])?;
    Ok(())
}

pub(super) fn delete(
    conn: &Connection,
    id: i64,
    dims: usize,
    doc_id: i64,
) -> Result<(), StoreError> {
    conn.prepare_cached(&format!(
        "DELETE FROM {} WHERE doc_id = ?1",
        bits_table(id, dims)
    ))?
    .execute([doc_id])?;
    conn.prepare_cached(&format!(
        "DELETE FROM {} WHERE doc_id = ?1",
        floats_table(id, dims)
    ))?
    .execute([doc_id])?;
    Ok(())
}
