//! The search index shared by every kind of remembered row: `memory_docs` (one row per memory
//! row: its kind, id, user, creation time and tags; its id is the rowid in `memory_fts` and in
//! the vector tables) and the FTS5 table. Owns keeping both in step with the rows (callers run
//! these inside their write transaction) and the full-text query (all words first, then the
//! rarest few; at most `RANK_WINDOW` matches ranked, the newest). Does not own the vectors (`vectors/`) nor turning user text into tokens
//! (`validate::memory::query_tokens`).

use super::{col, memory_ref, tags_json, tags_param, vectors};
use crate::sqlite::sql_limit;
use crate::{MemoryFilter, StoreError};
use rusqlite::{Connection, OptionalExtension, params};
use steward_protocol::{MemoryKind, MemoryRef};

/// Where a memory row sits, for filters.
pub(super) struct Doc<'a> {
    pub kind: MemoryKind,
    pub ref_id: i64,
    pub user: &'a str,
    pub created_at_ms: i64,
    pub tags: &'a [String],
}

/// What the full-text index sees of a row.
pub(super) struct Text<'a> {
    pub title: &'a str,
    pub body: &'a str,
    pub tags: &'a [String],
}

const INSERT_DOC: &str = "INSERT INTO memory_docs (kind, ref_id, user, created_at_ms, tags) \
     VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id";
const FIND_DOC: &str = "SELECT id FROM memory_docs WHERE kind = ?1 AND ref_id = ?2";
const SET_DOC_TAGS: &str = "UPDATE memory_docs SET tags = ?2 WHERE id = ?1";
const DELETE_DOC: &str = "DELETE FROM memory_docs WHERE id = ?1";
const INSERT_FTS: &str =
    "INSERT INTO memory_fts (rowid, title, body, tags) VALUES (?1, ?2, ?3, ?4)";
const DELETE_FTS: &str = "DELETE FROM memory_fts WHERE rowid = ?1";

/// The rowid of the `?2 + 1`-th newest matching row, any user: FTS5 walks its doclists newest
/// first (no sort, no rank, no doc lookup), so this costs little next to ranking those rows.
const WINDOW: &str = "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?1 \
     ORDER BY rowid DESC LIMIT 1 OFFSET ?2";
// CROSS JOIN keeps memory_fts as the outer loop: the MATCH finds the candidate rows once, and
// each is checked against its doc row (probing the FTS index per doc would be far slower).
// Filters are parameters, NULL meaning "not filtered", so this is one cached statement.
// Tags: every wanted tag must be among the doc's tags. `rowid >= ?8` is handed to FTS5
// (xBestIndex), so rows outside the rank window are never ranked.
const SEARCH: &str = "SELECT d.kind, d.ref_id, memory_fts.rank \
     FROM memory_fts CROSS JOIN memory_docs AS d ON d.id = memory_fts.rowid \
     WHERE memory_fts MATCH ?1 AND d.user = ?2 \
       AND (?3 IS NULL OR d.kind IN (SELECT value FROM json_each(?3))) \
       AND (?4 IS NULL OR d.created_at_ms >= ?4) \
       AND (?5 IS NULL OR d.created_at_ms <= ?5) \
       AND (?6 IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(?6) AS want \
            WHERE NOT EXISTS (SELECT 1 FROM json_each(d.tags) AS have \
                              WHERE have.value = want.value))) \
       AND memory_fts.rowid >= ?8 \
     ORDER BY memory_fts.rank, d.id \
     LIMIT ?7";

/// At most about this many matching rows are ranked: the newest ones. BM25 ranking costs a few
/// microseconds per matching row (phrase positions, the doc lookup, the sort), so a query made
/// of common words (in thousands of rows of a large store) cost ~45 ms at 100k rows at p99;
/// bounded, it costs what a 2000-match query does. Why the newest: for a personal memory a
/// recent match is the likelier one, and doc ids grow with time. Stores where no query matches
/// more rows than this (the retrieval fixture has 322 rows) rank exactly as before. The window
/// counts every user's rows; when this user's filtered rows in it are fewer than the limit,
/// the search runs again unbounded, so filters and other users never hide older matches.
pub(super) const RANK_WINDOW: usize = 2000;

/// Indexes a new row.
pub(super) fn add(conn: &Connection, doc: &Doc<'_>, text: &Text<'_>) -> Result<(), StoreError> {
    let id: i64 = conn.prepare_cached(INSERT_DOC)?.query_row(
        params![
            doc.kind.as_str(),
            doc.ref_id,
            doc.user,
            doc.created_at_ms,
            tags_json(doc.tags)?
        ],
        |row| row.get(0),
    )?;
    insert_fts(conn, id, text)
}

fn insert_fts(conn: &Connection, doc_id: i64, text: &Text<'_>) -> Result<(), StoreError> {
    conn.prepare_cached(INSERT_FTS)?.execute(params![
        doc_id,
        text.title,
        text.body,
        text.tags.join(" ")
    ])?;
    Ok(())
}

fn find(conn: &Connection, kind: MemoryKind, ref_id: i64) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached(FIND_DOC)?
        .query_row(params![kind.as_str(), ref_id], |row| row.get(0))
        .optional()?)
}

/// Re-indexes a changed row; `drop_vectors` when the text its vectors were computed from
/// changed (the backfill then sees it as missing and re-embeds it).
pub(super) fn replace(
    conn: &Connection,
    kind: MemoryKind,
    ref_id: i64,
    text: &Text<'_>,
    doc_tags: &[String],
    drop_vectors: bool,
) -> Result<(), StoreError> {
    let id = find(conn, kind, ref_id)?.ok_or_else(|| {
        StoreError::Corrupt(format!(
            "{} {ref_id} has no search index row",
            kind.as_str()
        ))
    })?;
    conn.prepare_cached(SET_DOC_TAGS)?
        .execute(params![id, tags_json(doc_tags)?])?;
    conn.prepare_cached(DELETE_FTS)?.execute([id])?;
    insert_fts(conn, id, text)?;
    if drop_vectors {
        vectors::remove_all(conn, id)?;
    }
    Ok(())
}

/// Removes a deleted row from the full-text index and every vector table.
pub(super) fn remove(conn: &Connection, kind: MemoryKind, ref_id: i64) -> Result<(), StoreError> {
    let Some(id) = find(conn, kind, ref_id)? else {
        return Ok(());
    };
    vectors::remove_all(conn, id)?;
    conn.prepare_cached(DELETE_FTS)?.execute([id])?;
    conn.prepare_cached(DELETE_DOC)?.execute([id])?;
    Ok(())
}

/// The kinds filter as a JSON array parameter (NULL = all kinds).
fn kinds_param(filter: &MemoryFilter) -> Option<String> {
    if filter.kinds.is_empty() {
        return None;
    }
    let names: Vec<String> = filter
        .kinds
        .iter()
        .map(|k| format!("\"{}\"", k.as_str()))
        .collect();
    Some(format!("[{}]", names.join(",")))
}

/// At most this many tokens are OR-ed when no row has them all: the rarest ones, since a
/// common word's doclist is what makes an OR slow and BM25 gives it little weight anyway.
const OR_TOKENS: usize = 3;
/// Counting a token's rows stops here: enough to tell rare from common, at a bounded cost.
const RARITY_PROBE: i64 = 2000;

const COUNT_ROWS: &str = "SELECT count(*) FROM \
     (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ?1 LIMIT ?2)";

/// `tokens` come from `query_tokens`: letters and digits only, so quoting each one makes it a
/// plain term; FTS5 operators (OR, NEAR, column filters, `*`, `^`) cannot appear.
fn quoted(token: &str) -> String {
    format!("\"{token}\"")
}

pub(super) fn and_expression(tokens: &[String]) -> String {
    let quoted: Vec<String> = tokens.iter().map(|t| quoted(t)).collect();
    quoted.join(" AND ")
}

pub(super) fn or_expression(tokens: &[String]) -> String {
    let quoted: Vec<String> = tokens.iter().map(|t| quoted(t)).collect();
    quoted.join(" OR ")
}

/// Rows matching every token first: more precise than any-token, and cheap, since FTS5
/// intersects doclists and ranks only the (few) rows in all of them. Only when no row has
/// them all, the rarest `OR_TOKENS` tokens that occur at all are OR-ed (see `rarest`).
pub(super) fn search(
    conn: &Connection,
    user: &str,
    tokens: &[String],
    filter: &MemoryFilter,
    limit: usize,
) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
    let hits = run(conn, &and_expression(tokens), user, filter, limit)?;
    if !hits.is_empty() || tokens.len() < 2 {
        return Ok(hits);
    }
    let fallback = rarest(conn, tokens)?;
    if fallback.is_empty() {
        return Ok(Vec::new());
    }
    run(conn, &or_expression(&fallback), user, filter, limit)
}

/// Up to `OR_TOKENS` of `tokens`, fewest rows first (ties in query order), leaving out those
/// no row has. Counts are over all users, capped at `RARITY_PROBE`: they rank cost, and one
/// bounded doclist read per token is cheap next to an OR over a common word.
fn rarest(conn: &Connection, tokens: &[String]) -> Result<Vec<String>, StoreError> {
    if tokens.len() <= OR_TOKENS {
        return Ok(tokens.to_vec());
    }
    let mut stmt = conn.prepare_cached(COUNT_ROWS)?;
    let mut counted: Vec<(i64, usize)> = Vec::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        let n: i64 = stmt.query_row(params![quoted(t), RARITY_PROBE], |row| row.get(0))?;
        if n > 0 {
            counted.push((n, i));
        }
    }
    counted.sort_unstable();
    Ok(counted
        .into_iter()
        .take(OR_TOKENS)
        .map(|(_, i)| tokens[i].clone())
        .collect())
}

fn run(
    conn: &Connection,
    expression: &str,
    user: &str,
    filter: &MemoryFilter,
    limit: usize,
) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
    let window = RANK_WINDOW.max(limit);
    // The oldest rowid inside the window, or no bound when fewer rows match.
    let oldest: Option<i64> = conn
        .prepare_cached(WINDOW)?
        .query_row(params![expression, sql_limit(window - 1)], |row| row.get(0))
        .optional()?;
    let hits = ranked(conn, expression, user, filter, limit, oldest)?;
    if oldest.is_some() && hits.len() < limit {
        return ranked(conn, expression, user, filter, limit, None);
    }
    Ok(hits)
}

/// The best `limit` of `user`'s rows matching `expression` and `filter`, among rows with a
/// rowid of at least `oldest` (all rows when None).
fn ranked(
    conn: &Connection,
    expression: &str,
    user: &str,
    filter: &MemoryFilter,
    limit: usize,
    oldest: Option<i64>,
) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
    let mut stmt = conn.prepare_cached(SEARCH)?;
    let mut rows = stmt.query(params![
        expression,
        user,
        kinds_param(filter),
        filter.since_ms,
        filter.until_ms,
        tags_param(&filter.tags)?,
        sql_limit(limit),
        oldest.unwrap_or(i64::MIN)
    ])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let what = || "search index row".to_owned();
        let r = memory_ref(col(row, 0, &what)?, col(row, 1, &what)?)?;
        let rank: f64 = col(row, 2, &what)?;
        out.push((r, -rank));
    }
    Ok(out)
}
