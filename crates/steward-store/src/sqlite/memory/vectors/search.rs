//! Nearest-vector search in two passes: a coarse hamming top-k over the sign bits in the
//! in-process index (user, kind and time filters applied before ranking), then exact cosine
//! distance on the float vectors of those candidates only. Owns the candidate count, the
//! rescoring and its SQL; the index is `bitindex.rs`'s, keeping it current `sync.rs`'s.
//!
//! Why two passes: brute-force float32 cosine reads 1.5 KiB a row (~120 ms at 100k rows on a
//! loaded machine); the sign bits are 32× smaller and kept in memory. Sign bits keep enough of
//! the angle that the true nearest neighbours sit among the few hundred best by hamming
//! distance; the rescoring then ranks them exactly. When the filtered rows number no more than
//! the candidate count, every row is rescored and the result is exactly the float ranking.

use super::layout::{floats_from_blob, floats_table, quantize};
use super::sync::VectorIndexes;
use super::{Model, dims_mismatch, find_model, memory_ref};
use crate::sqlite::memory::{col, tags_param};
use crate::{MemoryFilter, StoreError};
use rusqlite::{Connection, params};
use steward_protocol::MemoryRef;

use super::bitindex::{Scope, kind_bit};

/// Coarse candidates: at least this many, and at least `COARSE_PER_RESULT` per wanted result.
const MIN_COARSE: usize = 200;
const COARSE_PER_RESULT: usize = 8;
/// With a tag filter the coarse pass fetches more: tags live outside the index, so they are
/// applied after rescoring, on the candidates.
const MIN_COARSE_TAGGED: usize = 512;
const COARSE_PER_RESULT_TAGGED: usize = 32;
/// Rescoring reads one float row per candidate; this bounds a huge `limit`.
const MAX_COARSE: usize = 4096;

/// How many candidates the coarse pass hands to the rescoring for `limit` results. The scan
/// costs the same whatever k is; k bounds the rescoring (a B-tree lookup and a 1.5 KiB read per
/// candidate, ~1 ms for 200).
fn coarse_k(limit: usize, tagged: bool) -> usize {
    let (min, per) = if tagged {
        (MIN_COARSE_TAGGED, COARSE_PER_RESULT_TAGGED)
    } else {
        (MIN_COARSE, COARSE_PER_RESULT)
    };
    limit.saturating_mul(per).max(min).min(MAX_COARSE)
}

fn scope(filter: &MemoryFilter) -> Scope {
    Scope {
        kinds: filter.kinds.iter().fold(0, |m, k| m | kind_bit(*k)),
        since: filter.since_ms.unwrap_or(i64::MIN),
        until: filter.until_ms.unwrap_or(i64::MAX),
    }
}

pub(in crate::sqlite::memory) fn search(
    conn: &Connection,
    indexes: &mut VectorIndexes,
    user: &str,
    model_id: &str,
    embedding: &[f32],
    filter: &MemoryFilter,
    limit: usize,
) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
    // One read transaction: the index catch-up and the rescoring see the same snapshot.
    let tx = conn.unchecked_transaction()?;
    let Some(model) = find_model(&tx, model_id)? else {
        return Ok(Vec::new());
    };
    if model.dims != embedding.len() {
        return Err(dims_mismatch(&model, embedding.len()));
    }
    let k = coarse_k(limit, !filter.tags.is_empty());
    let candidates =
        indexes
            .fresh(&tx, &model)?
            .nearest(user, &quantize(embedding), scope(filter), k);
    let hits = rescore(&tx, &model, embedding, &candidates, filter, limit)?;
    tx.commit()?;
    Ok(hits)
}

/// Cosine distance (1 − cosine similarity) in f64; a zero vector is at distance 1 from
/// everything (orthogonal) rather than NaN, so it sorts deterministically.
pub(super) fn cosine_distance(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        return 1.0;
    }
    1.0 - dot / (aa.sqrt() * bb.sqrt())
}

/// Exact cosine distance for the candidates, then the tag filter (tags live outside the
/// index), best first, ties by doc id.
fn rescore(
    conn: &Connection,
    model: &Model,
    embedding: &[f32],
    candidates: &[i64],
    filter: &MemoryFilter,
    limit: usize,
) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = candidates.iter().map(i64::to_string).collect();
    let sql = format!(
        "SELECT d.id, d.kind, d.ref_id, f.embedding \
         FROM json_each(?1) AS c JOIN {floats} AS f ON f.doc_id = c.value \
         JOIN memory_docs AS d ON d.id = c.value \
         WHERE ?2 IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(?2) AS want \
               WHERE NOT EXISTS (SELECT 1 FROM json_each(d.tags) AS have \
                                 WHERE have.value = want.value))",
        floats = floats_table(model.id, model.dims),
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![
        format!("[{}]", ids.join(",")),
        tags_param(&filter.tags)?,
    ])?;
    let mut scored: Vec<(f64, i64, MemoryRef)> = Vec::with_capacity(candidates.len());
    while let Some(row) = rows.next()? {
        let what = || "vector search row".to_owned();
        let doc_id: i64 = col(row, 0, &what)?;
        let r = memory_ref(col(row, 1, &what)?, col(row, 2, &what)?)?;
        let raw: Vec<u8> = col(row, 3, &what)?;
        let v = floats_from_blob(doc_id, &raw)?;
        if v.len() != model.dims {
            return Err(StoreError::Corrupt(format!(
                "vector of search index row {doc_id} has the wrong length"
            )));
        }
        scored.push((cosine_distance(embedding, &v), doc_id, r));
    }
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    scored.truncate(limit);
    Ok(scored.into_iter().map(|(d, _, r)| (r, d)).collect())
}
