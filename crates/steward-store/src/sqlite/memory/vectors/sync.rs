//! Keeps each model's in-process `BitIndex` in step with the database, including writes made
//! by other connections and other processes (the chat and the server may share one file).
//!
//! Owns: the change log's reading and pruning, and when to load a model's index in full or
//! apply the changes since the last look. Does not own: the index itself (`bitindex.rs`) or
//! the tables (`layout.rs`).
//!
//! How: triggers on every bits table append `(seq, model, doc_id)` to `memory_vec_changes`
//! (AUTOINCREMENT, so a seq is never reused). Before each search, inside the search's read
//! transaction, the changes past the index's last seen seq are read; each changed doc's
//! current row is re-read, and upserted or removed. With nothing new this costs one index
//! seek. The log is pruned to its last `KEEP` entries; an index that fell further behind
//! than that (`memory_vec_pruned.through` passed its last seen seq) is loaded in full again.

use super::Model;
use super::bitindex::{BitIndex, Row};
use super::layout::{bit_bytes, bits_table};
use crate::StoreError;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};
use steward_protocol::MemoryKind;

/// Log entries kept after pruning: an index more than this many vector writes behind reloads.
const KEEP: i64 = 20_000;
/// A catch-up touching more docs than this share of the index reloads it in full instead
/// (one sequential read beats that many point lookups).
const RELOAD_SHARE: usize = 4;

struct Loaded {
    index: BitIndex,
    /// The highest change seq already reflected in `index`.
    seen: i64,
}

/// The in-process indexes of one connection, by model row id. Loaded lazily on a model's
/// first search.
#[derive(Default)]
pub(crate) struct VectorIndexes {
    models: HashMap<i64, Loaded>,
}

impl std::fmt::Debug for VectorIndexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndexes")
            .field("models", &self.models.len())
            .finish()
    }
}

fn last_seq(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT coalesce(max(seq), 0) FROM memory_vec_changes")?
        .query_row([], |r| r.get(0))?)
}

fn pruned_through(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT through FROM memory_vec_pruned WHERE id = 1")?
        .query_row([], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Drops log entries older than the last `KEEP`, recording how far it went. Runs inside the
/// writer's transaction.
pub(super) fn prune(conn: &Connection) -> Result<(), StoreError> {
    prune_to(conn, KEEP)
}

pub(super) fn prune_to(conn: &Connection, keep: i64) -> Result<(), StoreError> {
    let bound = last_seq(conn)? - keep;
    if bound <= 0 {
        return Ok(());
    }
    let deleted = conn
        .prepare_cached("DELETE FROM memory_vec_changes WHERE seq <= ?1")?
        .execute([bound])?;
    if deleted > 0 {
        conn.prepare_cached(
            "UPDATE memory_vec_pruned SET through = max(through, ?1) WHERE id = 1",
        )?
        .execute([bound])?;
    }
    Ok(())
}

fn row_err(doc_id: i64, what: &str) -> StoreError {
    StoreError::Corrupt(format!("vector bits of search index row {doc_id}: {what}"))
}

/// Checks a stored row before it enters the index.
fn checked<'a>(
    model: &Model,
    doc_id: i64,
    kind: &str,
    bits: &'a [u8],
) -> Result<(MemoryKind, &'a [u8]), StoreError> {
    let kind = MemoryKind::parse(kind).ok_or_else(|| row_err(doc_id, "unknown kind"))?;
    if bits.len() != bit_bytes(model.dims) {
        return Err(row_err(doc_id, "wrong length"));
    }
    Ok((kind, bits))
}

fn load(conn: &Connection, model: &Model) -> Result<Loaded, StoreError> {
    // Read in the caller's transaction: the seq and the rows are one snapshot.
    let seen = last_seq(conn)?;
    let mut index = BitIndex::new(model.dims);
    let mut stmt = conn.prepare(&format!(
        "SELECT doc_id, user, kind, created_at, bits FROM {}",
        bits_table(model.id, model.dims)
    ))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let doc_id: i64 = r.get(0)?;
        let user: String = r.get(1)?;
        let kind: String = r.get(2)?;
        let bits: Vec<u8> = r.get(4)?;
        let (kind, bits) = checked(model, doc_id, &kind, &bits)?;
        index.upsert(&Row {
            doc_id,
            user: &user,
            kind,
            created_at_ms: r.get(3)?,
            bits,
        });
    }
    Ok(Loaded { index, seen })
}

/// Applies the logged changes past `loaded.seen`; false when a full load is the better way
/// (the log was pruned past it, went backwards because the file was replaced, or the changes
/// touch a large share of the rows).
fn catch_up(conn: &Connection, model: &Model, loaded: &mut Loaded) -> Result<bool, StoreError> {
    let last = last_seq(conn)?;
    if last == loaded.seen {
        return Ok(true);
    }
    if last < loaded.seen || pruned_through(conn)? > loaded.seen {
        return Ok(false);
    }
    let mut changed = BTreeSet::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT doc_id FROM memory_vec_changes WHERE seq > ?1 AND seq <= ?2 AND model = ?3",
        )?;
        let mut rows = stmt.query(params![loaded.seen, last, model.id])?;
        while let Some(r) = rows.next()? {
            changed.insert(r.get::<_, i64>(0)?);
        }
    }
    if changed.len() > 64 && changed.len() > loaded.index.len() / RELOAD_SHARE {
        return Ok(false);
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT user, kind, created_at, bits FROM {} WHERE doc_id = ?1",
        bits_table(model.id, model.dims)
    ))?;
    for doc_id in changed {
        let row: Option<(String, String, i64, Vec<u8>)> = stmt
            .query_row([doc_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?;
        match row {
            None => loaded.index.remove(doc_id),
            Some((user, kind, created_at_ms, bits)) => {
                let (kind, bits) = checked(model, doc_id, &kind, &bits)?;
                loaded.index.upsert(&Row {
                    doc_id,
                    user: &user,
                    kind,
                    created_at_ms,
                    bits,
                });
            }
        }
    }
    // Every entry up to `last` was seen in this snapshot, other models' included.
    loaded.seen = last;
    Ok(true)
}

impl VectorIndexes {
    /// The model's index, up to date with the database as `conn`'s current read transaction
    /// sees it. Call inside a transaction that also covers the reads that use the result.
    pub(super) fn fresh(
        &mut self,
        conn: &Connection,
        model: &Model,
    ) -> Result<&BitIndex, StoreError> {
        let loaded = match self.models.entry(model.id) {
            Entry::Occupied(e) => {
                let loaded = e.into_mut();
                if !catch_up(conn, model, loaded)? {
                    *loaded = load(conn, model)?;
                }
                loaded
            }
            Entry::Vacant(e) => e.insert(load(conn, model)?),
        };
        Ok(&loaded.index)
    }
}
