//! Tests of the two-pass vector search and of the v3 → v4 rebuild, on one connection: the
//! coarse + rescore result equals the exact float ranking whenever every filtered row fits in
//! the candidate set; filters apply inside the coarse pass; the Rust quantizer is sqlite-vec's;
//! tables written in the old layout are rebuilt with the same search results.

use super::layout::{blob, quantize};
use super::{put, register, search};
use crate::sqlite::memory::{agenda, notes};
use crate::sqlite::migrate;
use crate::{MemoryFilter, NewNote};
use rusqlite::{Connection, params};
use steward_protocol::{MemoryKind, MemoryRef, Provenance};

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

fn cosine_distance(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    1.0 - dot / (norm(a) * norm(b))
}

fn open() -> Connection {
    register();
    let mut conn = Connection::open_in_memory().unwrap();
    migrate::apply(&mut conn, ":memory:").unwrap();
    conn
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
            put(conn, r, MODEL, &v).unwrap();
            (r, v)
        })
        .collect()
}

/// The exact ranking by float cosine distance (ties by id, as the search orders them).
fn exact(rows: &[(MemoryRef, Vec<f32>)], query: &[f32], limit: usize) -> Vec<MemoryRef> {
    let mut scored: Vec<(f64, MemoryRef)> = rows
        .iter()
        .map(|(r, v)| (cosine_distance(query, v), *r))
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.id.cmp(&b.1.id)));
    scored.into_iter().take(limit).map(|(_, r)| r).collect()
}

fn refs(hits: &[(MemoryRef, f64)]) -> Vec<MemoryRef> {
    hits.iter().map(|h| h.0).collect()
}

#[test]
fn quantizer_is_sqlite_vecs_binary_quantization() {
    let conn = open();
    let mut rng = Rng(7);
    for dims in [8, 384, 1536] {
        let v = rng.vector(dims);
        let theirs: Vec<u8> = conn
            .query_row("SELECT vec_quantize_binary(?1)", [blob(&v)], |r| r.get(0))
            .unwrap();
        assert_eq!(quantize(&v), theirs, "{dims} dimensions");
    }
    // Not a multiple of 8: padded with zero bits.
    assert_eq!(quantize(&[1.0, -1.0, 0.5, 0.0, 2.0]), [0b1_0101]);
    assert_eq!(quantize(&[0.1; 9]), [0xFF, 0x01]);
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
                    (d - cosine_distance(&query, v)).abs() < 1e-5,
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
        put(&mut conn, r, MODEL, &v).unwrap();
    }
    let far: Vec<f32> = query.iter().map(|x| -x).collect();
    let learning = agenda::bump_learning(&mut conn, "u", "far away", T0).unwrap();
    let learning = MemoryRef {
        kind: MemoryKind::Learning,
        id: learning.id,
    };
    put(&mut conn, learning, MODEL, &far).unwrap();
    let late = add_note(&mut conn, "u", T0 + 1_000_000);
    put(&mut conn, late, MODEL, &far).unwrap();
    let other = add_note(&mut conn, "someone else", T0);
    put(&mut conn, other, MODEL, &far).unwrap();

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
    put(&mut conn, planted, MODEL, &query).unwrap();
    let hits = search(&conn, "u", MODEL, &query, &MemoryFilter::default(), 3).unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0].0, planted);
    assert!(hits[0].1.abs() < 1e-6);
}

#[test]
fn v3_float_tables_are_rebuilt_by_the_v4_migration() {
    register();
    let mut conn = Connection::open_in_memory().unwrap();
    for sql in [
        include_str!("../../../../migrations/sqlite/V1__init.sql"),
        include_str!("../../../../migrations/sqlite/V2__approvals.sql"),
        include_str!("../../../../migrations/sqlite/V3__memory.sql"),
    ] {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 3).unwrap();
    // The v3 layout, written as v3's vectors.rs did.
    conn.execute_batch(
        "INSERT INTO embedding_models (id, model_id, dims, table_name) \
           VALUES (1, 'test:rand', 12, 'memory_vec_12_1'); \
         CREATE VIRTUAL TABLE memory_vec_12_1 USING vec0(\
           user text partition key, kind text, created_at integer, \
           embedding float[12] distance_metric=cosine);",
    )
    .unwrap();
    let mut rng = Rng(5);
    let mut rows = Vec::new();
    for i in 0..30 {
        let user = if i % 3 == 0 { "v" } else { "u" };
        let r = add_note(&mut conn, user, T0 + i);
        let v = rng.vector(12);
        conn.execute(
            "INSERT INTO memory_vec_12_1 (rowid, user, kind, created_at, embedding) \
             SELECT id, user, kind, created_at_ms, ?2 FROM memory_docs \
             WHERE kind = 'note' AND ref_id = ?1",
            params![r.id, blob(&v)],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO embeddings (model, doc_id, embedded_ms) \
             SELECT 1, id, 0 FROM memory_docs WHERE kind = 'note' AND ref_id = ?1",
            [r.id],
        )
        .unwrap();
        if user == "u" {
            rows.push((r, v));
        }
    }

    assert_eq!(migrate::apply(&mut conn, ":memory:").unwrap(), 4);
    let query = rng.vector(12);
    let hits = search(&conn, "u", MODEL, &query, &MemoryFilter::default(), 50).unwrap();
    assert_eq!(
        refs(&hits),
        exact(&rows, &query, 50),
        "same ranking as the floats"
    );
    let (layout, floats): (i64, i64) = conn
        .query_row(
            "SELECT layout, (SELECT count(*) FROM memory_vecf_12_1) FROM embedding_models",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((layout, floats), (2, 30));
    // Writing after the rebuild uses the new tables.
    let r = add_note(&mut conn, "u", T0);
    put(&mut conn, r, MODEL, &query).unwrap();
    let hits = search(&conn, "u", MODEL, &query, &MemoryFilter::default(), 1).unwrap();
    assert_eq!(refs(&hits), [r]);
    // Deleting the row removes its vector from both tables.
    let count = |conn: &Connection| -> (i64, i64) {
        conn.query_row(
            "SELECT (SELECT count(*) FROM memory_vecf_12_1), (SELECT count(*) FROM memory_vec_12_1)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    };
    assert_eq!(count(&conn), (31, 31));
    assert!(notes::delete(&mut conn, r.id).unwrap());
    assert_eq!(count(&conn), (30, 30));
}
