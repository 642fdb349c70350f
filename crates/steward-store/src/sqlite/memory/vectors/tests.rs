//! Tests of the two-pass vector search and of keeping the in-process index current: the
//! coarse + rescore result equals the exact float ranking whenever every filtered row fits in
//! the candidate set; filters apply inside the coarse pass; an index follows writes made by
//! another connection to the same file (inserts, replacements, deletions), also after the
//! change log was pruned past it.

use super::layout::quantize;
use super::search::cosine_distance;
use super::sync::{VectorIndexes, prune_to};
use super::{put, search as search_with};
use crate::sqlite::memory::{agenda, notes};
use crate::sqlite::migrate;
use crate::{MemoryFilter, NewNote, StoreError};
use rusqlite::Connection;
use std::path::PathBuf;
use steward_protocol::{MemoryKind, MemoryRef, Provenance};

/// When these tests say their vectors were embedded (nothing here reads it back).
const EMBEDDED_AT_MS: i64 = 1_000;

const MODEL: &str = "test:rand";
const T0: i64 = 1_700_000_000_000;

/// xorshift64*: deterministic vectors without a dependency.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    fn vector(&mut self, dims: usize) -> Vec<f32> {
        (0..dims).map(|_| self.unit()).collect()
    }
}

/// The test's own cosine distance, independent of `search::cosine_distance`.
fn expected_distance(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    1.0 - dot / (norm(a) * norm(b))
}

fn open() -> Connection {
    let mut conn = Connection::open_in_memory().unwrap();
    migrate::apply(&mut conn, ":memory:").unwrap();
    conn
}

/// A search with a fresh index each time (what a new process would see).
fn search(
    conn: &Connection,
    user: &str,
    model: &str,
    query: &[f32],
    filter: &MemoryFilter,
    limit: usize,
) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
    let mut ix = VectorIndexes::default();
    search_with(conn, &mut ix, user, model, query, filter, limit)
}

fn add_note(conn: &mut Connection, user: &str, at: i64) -> MemoryRef {
    let note = NewNote {
        title: "t".into(),
        body: String::new(),
        tags: Vec::new(),
        provenance: Provenance::User { conversation: None },
    };
    let id = notes::insert(conn, user, &note, at).unwrap().id;
    MemoryRef {
        kind: MemoryKind::Note,
        id,
    }
}

/// `n` notes with random vectors for `user`, created one second apart from `T0`.
fn seed(
    conn: &mut Connection,
    rng: &mut Rng,
    user: &str,
    n: usize,
    dims: usize,
) -> Vec<(MemoryRef, Vec<f32>)> {
    (0..n)
        .map(|i| {
            let r = add_note(conn, user, T0 + i as i64 * 1000);
            let v = rng.vector(dims);
            put(conn, r, MODEL, &v, EMBEDDED_AT_MS).unwrap();
            (r, v)
        })
        .collect()
}

/// The exact ranking by float cosine distance (ties by id, as the search orders them).
fn exact(rows: &[(MemoryRef, Vec<f32>)], query: &[f32], limit: usize) -> Vec<MemoryRef> {
    let mut scored: Vec<(f64, MemoryRef)> = rows
        .iter()
        .map(|(r, v)| (expected_distance(query, v), *r))
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.id.cmp(&b.1.id)));
    scored.into_iter().take(limit).map(|(_, r)| r).collect()
}

fn refs(hits: &[(MemoryRef, f64)]) -> Vec<MemoryRef> {
    hits.iter().map(|h| h.0).collect()
}

#[test]
fn quantizer_sets_one_bit_per_positive_dimension() {
    assert_eq!(quantize(&[1.0, -1.0, 0.5, 0.0, 2.0]), [0b1_0101]);
    assert_eq!(quantize(&[0.1; 9]), [0xFF, 0x01]);
    let mut v = vec![-1.0; 384];
    v[383] = 1.0;
    let bits = quantize(&v);
    assert_eq!(bits.len(), 48);
    assert_eq!(bits[47], 0x80);
    assert!(bits[..47].iter().all(|b| *b == 0));
}

#[test]
fn coarse_and_rescore_equal_the_exact_ranking_on_small_sets() {
    let mut conn = open();
    let mut rng = Rng(42);
    // 150 rows: fewer than the 200 coarse candidates, so every row is rescored.
    let rows = seed(&mut conn, &mut rng, "u", 150, 384);
    for q in 0..5 {
        let query = rng.vector(384);
        for limit in [1, 10, 150] {
            let hits = search(&conn, "u", MODEL, &query, &MemoryFilter::default(), limit).unwrap();
            assert_eq!(
                refs(&hits),
                exact(&rows, &query, limit),
                "query {q}, limit {limit}"
            );
            for (r, d) in &hits {
                let v = &rows.iter().find(|(x, _)| x == r).unwrap().1;
                assert!(
                    (d - expected_distance(&query, v)).abs() < 1e-9,
                    "distance of {r:?}"
                );
            }
        }
    }
}

#[test]
fn odd_dimensions_are_padded_and_still_exact() {
    let mut conn = open();
    let mut rng = Rng(3);
    let rows = seed(&mut conn, &mut rng, "u", 40, 5);
    let query = rng.vector(5);
    let hits = search(&conn, "u", MODEL, &query, &MemoryFilter::default(), 40).unwrap();
    assert_eq!(refs(&hits), exact(&rows, &query, 40));
}

#[test]
fn filters_apply_inside_the_coarse_pass() {
    let mut conn = open();
    let mut rng = Rng(9);
    let query = rng.vector(64);
    // 600 notes all but identical to the query would fill the coarse candidates (200) if the
    // filters were applied after it; the far rows below must still be found.
    for i in 0..600 {
        let r = add_note(&mut conn, "u", T0 + i);
        let v: Vec<f32> = query.iter().map(|x| x + 0.01 * rng.unit()).collect();
        put(&mut conn, r, MODEL, &v, EMBEDDED_AT_MS).unwrap();
    }
    let far: Vec<f32> = query.iter().map(|x| -x).collect();
    let learning = agenda::bump_learning(&mut conn, "u", "far away", T0).unwrap();
    let learning = MemoryRef {
        kind: MemoryKind::Learning,
        id: learning.id,
    };
    put(&mut conn, learning, MODEL, &far, EMBEDDED_AT_MS).unwrap();
    let late = add_note(&mut conn, "u", T0 + 1_000_000);
    put(&mut conn, late, MODEL, &far, EMBEDDED_AT_MS).unwrap();
    let other = add_note(&mut conn, "someone else", T0);
    put(&mut conn, other, MODEL, &far, EMBEDDED_AT_MS).unwrap();

    let kinds = MemoryFilter {
        kinds: vec![MemoryKind::Learning],
        ..MemoryFilter::default()
    };
    assert_eq!(
        refs(&search(&conn, "u", MODEL, &query, &kinds, 5).unwrap()),
        [learning]
    );
    let since = MemoryFilter {
        since_ms: Some(T0 + 1_000_000),
        ..MemoryFilter::default()
    };
    assert_eq!(
        refs(&search(&conn, "u", MODEL, &query, &since, 5).unwrap()),
        [late]
    );
    let mine = search(
        &conn,
        "someone else",
        MODEL,
        &query,
        &MemoryFilter::default(),
        5,
    );
    assert_eq!(refs(&mine.unwrap()), [other]);
    // Unfiltered, the near rows win and the far ones are not among the first five.
    let all = refs(&search(&conn, "u", MODEL, &query, &MemoryFilter::default(), 5).unwrap());
    assert_eq!(all.len(), 5);
    assert!(!all.contains(&learning) && !all.contains(&late), "{all:?}");
}

#[test]
fn an_exact_copy_of_the_query_is_found_among_many() {
    // More rows than coarse candidates: the search is approximate, but a row equal to the
    // query has hamming distance 0 and must come first.
    let mut conn = open();
    let mut rng = Rng(11);
    seed(&mut conn, &mut rng, "u", 1500, 128);
    let query = rng.vector(128);
    let planted = add_note(&mut conn, "u", T0);
    put(&mut conn, planted, MODEL, &query, EMBEDDED_AT_MS).unwrap();
    let hits = search(&conn, "u", MODEL, &query, &MemoryFilter::default(), 3).unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0].0, planted);
    assert!(hits[0].1.abs() < 1e-6);
}

#[test]
fn a_zero_vector_is_at_distance_one_not_nan() {
    assert_eq!(cosine_distance(&[0.0, 0.0], &[1.0, 0.0]), 1.0);
    assert_eq!(cosine_distance(&[1.0, 0.0], &[0.0, 0.0]), 1.0);
    assert!(cosine_distance(&[1.0, 1.0], &[2.0, 2.0]).abs() < 1e-12);
    assert!((cosine_distance(&[1.0, 0.0], &[-3.0, 0.0]) - 2.0).abs() < 1e-12);
}

/// A database file in the temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new() -> TempFile {
        let name = format!("steward-vectors-{}.db", uuid::Uuid::new_v4().simple());
        TempFile(std::env::temp_dir().join(name))
    }
    fn open(&self) -> Connection {
        let mut conn = Connection::open(&self.0).unwrap();
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .unwrap();
        migrate::apply(&mut conn, "test").unwrap();
        conn
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut p = self.0.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
}

/// What the long-lived index of connection `a` returns must always equal a fresh search.
fn assert_in_step(a: &Connection, ix: &mut VectorIndexes, query: &[f32], what: &str) {
    let filter = MemoryFilter::default();
    let kept = search_with(a, ix, "u", MODEL, query, &filter, 500).unwrap();
    let fresh = search(a, "u", MODEL, query, &filter, 500).unwrap();
    assert_eq!(refs(&kept), refs(&fresh), "{what}");
}

#[test]
fn the_index_follows_writes_of_another_connection() {
    let file = TempFile::new();
    let (mut a, mut b) = (file.open(), file.open());
    let mut rng = Rng(21);
    let rows = seed(&mut b, &mut rng, "u", 120, 32);
    let mut ix = VectorIndexes::default();
    let query = rng.vector(32);
    assert_in_step(&a, &mut ix, &query, "first load");
    let all = search_with(
        &a,
        &mut ix,
        "u",
        MODEL,
        &query,
        &MemoryFilter::default(),
        500,
    );
    assert_eq!(all.unwrap().len(), 120);

    // Inserted elsewhere: a row equal to the query must come first here.
    let planted = add_note(&mut b, "u", T0);
    put(&mut b, planted, MODEL, &query, EMBEDDED_AT_MS).unwrap();
    let top = search_with(&a, &mut ix, "u", MODEL, &query, &MemoryFilter::default(), 1);
    assert_eq!(refs(&top.unwrap()), [planted], "insert seen");

    // Replaced elsewhere: the planted row moves away, another row moves onto the query.
    let far: Vec<f32> = query.iter().map(|x| -x).collect();
    put(&mut b, planted, MODEL, &far, EMBEDDED_AT_MS).unwrap();
    put(&mut b, rows[5].0, MODEL, &query, EMBEDDED_AT_MS).unwrap();
    let top = search_with(&a, &mut ix, "u", MODEL, &query, &MemoryFilter::default(), 1);
    assert_eq!(refs(&top.unwrap()), [rows[5].0], "replacement seen");
    assert_in_step(&a, &mut ix, &query, "after replacements");

    // Deleted elsewhere (the note and with it its vector).
    assert!(notes::delete(&mut b, rows[5].0.id).unwrap());
    let hits = search_with(
        &a,
        &mut ix,
        "u",
        MODEL,
        &query,
        &MemoryFilter::default(),
        500,
    );
    let hits = refs(&hits.unwrap());
    assert!(!hits.contains(&rows[5].0), "deletion seen");
    assert_eq!(hits.len(), 120);
    assert_in_step(&a, &mut ix, &query, "after deletion");

    // Writes from this connection are seen too (the log, not the other side, drives it).
    let mine = add_note(&mut a, "u", T0);
    put(&mut a, mine, MODEL, &query, EMBEDDED_AT_MS).unwrap();
    let top = search_with(&a, &mut ix, "u", MODEL, &query, &MemoryFilter::default(), 1);
    assert_eq!(refs(&top.unwrap()), [mine]);
}

#[test]
fn an_index_behind_a_pruned_log_reloads_in_full() {
    let file = TempFile::new();
    let (mut a, mut b) = (file.open(), file.open());
    let mut rng = Rng(33);
    seed(&mut b, &mut rng, "u", 30, 16);
    let mut ix = VectorIndexes::default();
    let query = rng.vector(16);
    assert_in_step(&a, &mut ix, &query, "first load");
    // Many writes elsewhere, then the log is cut to its last entry: the entries this index
    // has not seen are gone, so catching up from the log alone would miss the first rows.
    let planted = add_note(&mut b, "u", T0);
    put(&mut b, planted, MODEL, &query, EMBEDDED_AT_MS).unwrap();
    let gone = seed(&mut b, &mut rng, "u", 3, 16);
    prune_to(&b, 1).unwrap();
    let left: i64 = b
        .query_row("SELECT count(*) FROM memory_vec_changes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 1, "pruned to one entry");
    let top = search_with(&a, &mut ix, "u", MODEL, &query, &MemoryFilter::default(), 1);
    assert_eq!(refs(&top.unwrap()), [planted], "reloaded, not caught up");
    assert_in_step(&a, &mut ix, &query, "after reload");
    for (r, v) in &gone {
        let top = search_with(&a, &mut ix, "u", MODEL, v, &MemoryFilter::default(), 1);
        assert_eq!(refs(&top.unwrap()), [*r]);
    }
    // Pruning leaves the newest entries: an index that is only a little behind catches up.
    let newer = add_note(&mut a, "u", T0);
    put(&mut a, newer, MODEL, &query, EMBEDDED_AT_MS).unwrap();
    prune_to(&a, 5).unwrap();
    let hits = search_with(&a, &mut ix, "u", MODEL, &query, &MemoryFilter::default(), 2);
    let mut top2 = refs(&hits.unwrap());
    top2.sort();
    let mut want = vec![planted, newer];
    want.sort();
    assert_eq!(top2, want);
}

#[test]
fn a_large_catch_up_reloads_and_still_matches() {
    let file = TempFile::new();
    let (a, mut b) = (file.open(), file.open());
    let mut rng = Rng(55);
    seed(&mut b, &mut rng, "u", 100, 24);
    let mut ix = VectorIndexes::default();
    let query = rng.vector(24);
    assert_in_step(&a, &mut ix, &query, "first load");
    // More changes than a quarter of the index: a full reload instead of point reads.
    seed(&mut b, &mut rng, "u", 300, 24);
    assert_in_step(&a, &mut ix, &query, "after many writes");
    let n = search_with(
        &a,
        &mut ix,
        "u",
        MODEL,
        &query,
        &MemoryFilter::default(),
        1000,
    );
    assert_eq!(n.unwrap().len(), 400);
}

#[test]
fn corrupt_bits_are_an_error_not_a_panic() {
    let mut conn = open();
    let mut rng = Rng(8);
    seed(&mut conn, &mut rng, "u", 3, 16);
    conn.execute("UPDATE memory_vecb_16_1 SET bits = x'01'", [])
        .unwrap();
    let err = search(
        &conn,
        "u",
        MODEL,
        &rng.vector(16),
        &MemoryFilter::default(),
        3,
    );
    assert!(matches!(err, Err(StoreError::Corrupt(_))), "{err:?}");
}
