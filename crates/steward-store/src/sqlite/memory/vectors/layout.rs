//! The on-disk layout of one embedder model's vectors, and the migration into it. Owns the
//! table names and DDL, binary quantization, and rebuilding tables written by older versions.
//! Does not own writing or searching vectors (`mod.rs`, `search.rs`).
//!
//! Layout 2 (current), per model:
//! - `memory_vec_<dims>_<id>`: a vec0 table of sign bits (`bit[dims rounded up to 8]`) with
//!   `user` as partition key and `kind`/`created_at` as metadata, for the coarse hamming pass
//!   (48 bytes a row at 384 dimensions instead of 1536: the pass reads 32× less).
//! - `memory_vecf_<dims>_<id>`: the float32 vectors keyed by doc id, for the exact cosine
//!   rescoring of the coarse candidates. A plain table, not a vec0 auxiliary column: vec0 reads
//!   auxiliary values with one freshly prepared statement per row, a B-tree lookup here.
//!
//! Layout 1 (schema v3) was a single float32 vec0 table under the first name; `rebuild_legacy`
//! turns it into layout 2 during the v4 migration.

use crate::StoreError;
use rusqlite::{Connection, params};

/// The value of `embedding_models.layout` for tables in this layout.
pub(crate) const CURRENT: i64 = 2;
const LEGACY: i64 = 1;

/// Derived from integers only, so it is safe to put in SQL text.
pub(super) fn bits_table(id: i64, dims: usize) -> String {
    format!("memory_vec_{dims}_{id}")
}

/// Derived from integers only, so it is safe to put in SQL text.
pub(super) fn floats_table(id: i64, dims: usize) -> String {
    format!("memory_vecf_{dims}_{id}")
}

/// sqlite-vec's `bit[n]` needs n divisible by 8; the padding bits are always 0 on both sides,
/// so they never add to a hamming distance.
fn bit_dims(dims: usize) -> usize {
    dims.div_ceil(8) * 8
}

/// Sign bits, bit i of the vector at `out[i / 8] >> (i % 8)`: exactly what sqlite-vec's
/// `vec_quantize_binary` computes (a test checks it), done here so dimensions that are not a
/// multiple of 8 work too.
pub(super) fn quantize(embedding: &[f32]) -> Vec<u8> {
    let mut out = vec![0u8; bit_dims(embedding.len()) / 8];
    for (i, v) in embedding.iter().enumerate() {
        if *v > 0.0 {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out
}

/// Little-endian float32, the blob layout sqlite-vec reads.
pub(super) fn blob(embedding: &[f32]) -> Vec<u8> {
    embedding.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub(super) fn create(conn: &Connection, id: i64, dims: usize) -> Result<(), StoreError> {
    create_bits_only(conn, id, dims)?;
    conn.execute_batch(&format!(
        "CREATE TABLE {} (doc_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)",
        floats_table(id, dims)
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
    let bits = bits_table(id, dims);
    // vec0 has no upsert: replace by delete + insert.
    conn.prepare_cached(&format!("DELETE FROM {bits} WHERE rowid = ?1"))?
        .execute([doc_id])?;
    conn.prepare_cached(&format!(
        "INSERT INTO {bits} (rowid, user, kind, created_at, embedding) \
         VALUES (?1, ?2, ?3, ?4, vec_bit(?5))"
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
        "DELETE FROM {} WHERE rowid = ?1",
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

/// Part of the v4 migration (same transaction): every layout-1 model's float vec0 table becomes
/// a layout-2 pair. The floats are copied out, the old table dropped, the bit table created
/// under its name and filled from the copy. Vectors of docs that no longer exist are left out.
pub(crate) fn rebuild_legacy(conn: &Connection) -> Result<usize, StoreError> {
    let models: Vec<(i64, i64, String)> = {
        let mut stmt = conn.prepare(
            "SELECT id, dims, table_name FROM embedding_models WHERE layout = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([LEGACY], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let count = models.len();
    for (id, dims, table) in models {
        let dims = usize::try_from(dims)
            .map_err(|_| StoreError::Corrupt(format!("embedding model {id}: bad dimensions")))?;
        // The old name is trusted only if it is the one we derive: it goes into SQL text.
        if table != bits_table(id, dims) {
            return Err(StoreError::Corrupt(format!(
                "embedding model {id}: unexpected vector table name"
            )));
        }
        let floats = floats_table(id, dims);
        conn.execute_batch(&format!(
            "CREATE TABLE {floats} (doc_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL); \
             INSERT INTO {floats} (doc_id, embedding) \
               SELECT v.rowid, v.embedding FROM {table} AS v \
               WHERE v.rowid IN (SELECT id FROM memory_docs); \
             DROP TABLE {table};"
        ))?;
        create_bits_only(conn, id, dims)?;
        let rows: Vec<(i64, String, String, i64, Vec<u8>)> = {
            let mut stmt = conn.prepare(&format!(
                "SELECT f.doc_id, d.user, d.kind, d.created_at_ms, f.embedding \
                 FROM {floats} AS f JOIN memory_docs AS d ON d.id = f.doc_id ORDER BY f.doc_id"
            ))?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            rows.collect::<Result<_, _>>()?
        };
        let mut insert = conn.prepare(&format!(
            "INSERT INTO {table} (rowid, user, kind, created_at, embedding) \
             VALUES (?1, ?2, ?3, ?4, vec_bit(?5))"
        ))?;
        for (doc_id, user, kind, created_at_ms, raw) in rows {
            let embedding = floats_from_blob(doc_id, &raw)?;
            insert.execute(params![
                doc_id,
                user,
                kind,
                created_at_ms,
                quantize(&embedding)
            ])?;
        }
        conn.execute(
            "DELETE FROM embeddings WHERE model = ?1 \
               AND doc_id NOT IN (SELECT id FROM memory_docs)",
            [id],
        )?;
        conn.execute(
            "UPDATE embedding_models SET layout = ?2 WHERE id = ?1",
            params![id, CURRENT],
        )?;
    }
    Ok(count)
}

fn create_bits_only(conn: &Connection, id: i64, dims: usize) -> Result<(), StoreError> {
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE {} USING vec0(\
           user text partition key, kind text, created_at integer, \
           embedding bit[{}])",
        bits_table(id, dims),
        bit_dims(dims),
    ))?;
    Ok(())
}

fn floats_from_blob(doc_id: i64, raw: &[u8]) -> Result<Vec<f32>, StoreError> {
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
