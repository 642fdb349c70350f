//! Contract cases for vectors, with tiny hand-made vectors (model id "test:4", 4 dimensions):
//! nearest by cosine, filters, dimension checks, two models side by side, and the backfill's
//! list of rows without vectors.

use super::{T0, fact_ref, fresh_user, kinds, new_fact, new_note, note, note_ref, refs, strings};
use crate::contract::{ok, refused};
use crate::{MemoryFilter, Store};
use steward_protocol::{FactSource, MemoryKind, MemoryRef};

const MODEL: &str = "test:4";

fn cosine_distance(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    1.0 - dot / (norm(a) * norm(b))
}

async fn put(store: &dyn Store, case: &str, r: MemoryRef, model: &str, v: &[f32]) {
    ok(
        case,
        "put_embedding",
        store.put_embedding(r, model, v).await,
    );
}

pub async fn vector_search_nearest_by_cosine(store: &dyn Store) {
    const CASE: &str = "vector_search_nearest_by_cosine";
    let user = fresh_user(CASE);
    let no_filter = MemoryFilter::default();
    let vectors: [[f32; 4]; 4] = [
        [2.0, 0.0, 0.0, 0.0], // same direction as the query's main axis, not unit length
        [0.9, 0.3, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.2, 0.0],
    ];
    let mut notes = Vec::new();
    for (i, v) in vectors.iter().enumerate() {
        let n = note(store, CASE, &user, new_note(&format!("n{i}"), "", &[]), T0).await;
        put(store, CASE, note_ref(&n), MODEL, v).await;
        notes.push(note_ref(&n));
    }
    let query = [1.0, 0.05, 0.0, 0.0];
    let hits = store
        .vector_search(&user, MODEL, &query, &MemoryFilter::default(), 10)
        .await;
    let hits = ok(CASE, "search", hits);
    assert_eq!(refs(&hits), notes, "[{CASE}] nearest first by cosine");
    for ((_, distance), v) in hits.iter().zip(&vectors) {
        let expected = cosine_distance(&query, v);
        assert!(
            (distance - expected).abs() < 1e-4,
            "[{CASE}] distance {distance} vs cosine distance {expected}"
        );
    }
    let top2 = store.vector_search(&user, MODEL, &query, &no_filter, 2);
    assert_eq!(
        refs(&ok(CASE, "limit", top2.await)),
        notes[..2],
        "[{CASE}] limit"
    );
    // Replacing a vector moves the row.
    put(store, CASE, notes[3], MODEL, &[1.0, 0.0, 0.0, 0.0]).await;
    let hits = store.vector_search(&user, MODEL, &query, &no_filter, 1);
    let best = refs(&ok(CASE, "after replace", hits.await));
    assert!(
        best == [notes[3]] || best == [notes[0]],
        "[{CASE}] the replaced vector now ties for nearest: {best:?}"
    );
    let other = fresh_user(CASE);
    let theirs = store.vector_search(&other, MODEL, &query, &no_filter, 10);
    assert!(
        ok(CASE, "other user", theirs.await).is_empty(),
        "[{CASE}] per user"
    );
}

pub async fn vector_filters_apply(store: &dyn Store) {
    const CASE: &str = "vector_filters_apply";
    let user = fresh_user(CASE);
    let f = new_fact("pet", "a cat", FactSource::User);
    let fact = fact_ref(
        ok(CASE, "fact", store.upsert_fact(&user, &f, T0).await)
            .fact()
            .id,
    );
    let a = note_ref(&note(store, CASE, &user, new_note("a", "", &["x", "y"]), T0 + 10).await);
    let b = note_ref(&note(store, CASE, &user, new_note("b", "", &["x"]), T0 + 20).await);
    let learning = ok(
        CASE,
        "learning",
        store.bump_learning(&user, "likes cats", T0 + 30).await,
    );
    let learning = MemoryRef {
        kind: MemoryKind::Learning,
        id: learning.id,
    };
    // Nearest to the query in this order: fact, a, b, learning.
    put(store, CASE, fact, MODEL, &[1.0, 0.0, 0.0, 0.0]).await;
    put(store, CASE, a, MODEL, &[1.0, 0.2, 0.0, 0.0]).await;
    put(store, CASE, b, MODEL, &[1.0, 0.5, 0.0, 0.0]).await;
    put(store, CASE, learning, MODEL, &[1.0, 1.0, 0.0, 0.0]).await;
    let search = |filter: MemoryFilter| {
        let user = user.clone();
        async move {
            let hits = store
                .vector_search(&user, MODEL, &[1.0, 0.0, 0.0, 0.0], &filter, 10)
                .await;
            refs(&ok(CASE, "search", hits))
        }
    };
    assert_eq!(
        search(MemoryFilter::default()).await,
        [fact, a, b, learning],
        "[{CASE}]"
    );
    assert_eq!(
        search(kinds(&[MemoryKind::Note])).await,
        [a, b],
        "[{CASE}] kind"
    );
    assert_eq!(
        search(kinds(&[MemoryKind::Learning, MemoryKind::Fact])).await,
        [fact, learning],
        "[{CASE}] two kinds"
    );
    let tags = |t: &[&str]| MemoryFilter {
        tags: strings(t),
        ..MemoryFilter::default()
    };
    assert_eq!(search(tags(&["x"])).await, [a, b], "[{CASE}] tag");
    assert_eq!(search(tags(&["x", "y"])).await, [a], "[{CASE}] all tags");
    let window = MemoryFilter {
        since_ms: Some(T0 + 10),
        until_ms: Some(T0 + 20),
        ..MemoryFilter::default()
    };
    assert_eq!(
        search(window).await,
        [a, b],
        "[{CASE}] inclusive time window"
    );
    let all = MemoryFilter {
        kinds: vec![MemoryKind::Note],
        tags: strings(&["x"]),
        since_ms: Some(T0 + 15),
        until_ms: None,
    };
    assert_eq!(search(all).await, [b], "[{CASE}] filters combine");
}

pub async fn vector_dims_and_models(store: &dyn Store) {
    const CASE: &str = "vector_dims_and_models";
    const SMALL: &str = "test:2";
    let user = fresh_user(CASE);
    let a = note_ref(&note(store, CASE, &user, new_note("a", "", &[]), T0).await);
    let b = note_ref(&note(store, CASE, &user, new_note("b", "", &[]), T0).await);
    put(store, CASE, a, MODEL, &[1.0, 0.0, 0.0, 0.0]).await;
    put(store, CASE, b, MODEL, &[0.0, 1.0, 0.0, 0.0]).await;
    let three = [1.0, 0.0, 0.0];
    let no_filter = MemoryFilter::default();
    refused(
        CASE,
        "put 3 dims",
        store.put_embedding(b, MODEL, &three).await,
        "",
    );
    let search = store.vector_search(&user, MODEL, &three, &no_filter, 5);
    refused(CASE, "search 3 dims", search.await, "");
    refused(
        CASE,
        "NaN",
        store
            .put_embedding(a, MODEL, &[f32::NAN, 0.0, 0.0, 0.0])
            .await,
        "",
    );
    refused(CASE, "empty", store.put_embedding(a, MODEL, &[]).await, "");
    let ghost = MemoryRef {
        kind: MemoryKind::Intention,
        id: -5,
    };
    refused(
        CASE,
        "missing row",
        store.put_embedding(ghost, MODEL, &[1.0; 4]).await,
        "",
    );

    // A second model with other dimensions, ranking the two rows the other way round.
    put(store, CASE, a, SMALL, &[0.0, 1.0]).await;
    put(store, CASE, b, SMALL, &[1.0, 0.0]).await;
    let filter = MemoryFilter::default();
    let by4 = store.vector_search(&user, MODEL, &[1.0, 0.0, 0.0, 0.0], &filter, 5);
    assert_eq!(
        refs(&ok(CASE, "model 4", by4.await)),
        [a, b],
        "[{CASE}] test:4"
    );
    let by2 = store.vector_search(&user, SMALL, &[1.0, 0.0], &filter, 5);
    assert_eq!(
        refs(&ok(CASE, "model 2", by2.await)),
        [b, a],
        "[{CASE}] test:2"
    );
    let unknown = store.vector_search(&user, "test:unknown", &[1.0, 0.0], &filter, 5);
    assert!(
        ok(CASE, "unknown model", unknown.await).is_empty(),
        "[{CASE}]"
    );
}

pub async fn missing_embeddings_shrinks_after_put(store: &dyn Store) {
    const CASE: &str = "missing_embeddings_shrinks_after_put";
    let user = fresh_user(CASE);
    // A model id of its own, so other cases' vectors do not matter.
    let model = format!("test:3:{}", uuid::Uuid::new_v4().simple());
    let f = new_fact("home_city", "Oslo", FactSource::User);
    let fact = fact_ref(
        ok(CASE, "fact", store.upsert_fact(&user, &f, T0).await)
            .fact()
            .id,
    );
    let n = note_ref(&note(store, CASE, &user, new_note("Plan", "buy skis", &["x"]), T0).await);
    let i = store.add_intention(&user, "Call mum", None, T0);
    let i = MemoryRef {
        kind: MemoryKind::Intention,
        id: ok(CASE, "intention", i.await).id,
    };
    let ours = |all: Vec<(MemoryRef, String)>| -> Vec<(MemoryRef, String)> {
        all.into_iter()
            .filter(|(r, _)| [fact, n, i].contains(r))
            .collect()
    };
    let missing = ours(ok(
        CASE,
        "missing",
        store.missing_embeddings(&model, usize::MAX).await,
    ));
    assert_eq!(
        missing,
        [
            (fact, "home_city: Oslo".to_owned()),
            (n, "Plan\nbuy skis".to_owned()),
            (i, "Call mum".to_owned())
        ],
        "[{CASE}] oldest first, with the text to embed"
    );
    let one = ok(CASE, "limit", store.missing_embeddings(&model, 1).await);
    assert_eq!(one.len(), 1, "[{CASE}] limit");
    put(store, CASE, n, &model, &[1.0, 0.0, 0.0]).await;
    let missing = ours(ok(
        CASE,
        "after put",
        store.missing_embeddings(&model, usize::MAX).await,
    ));
    let left: Vec<MemoryRef> = missing.into_iter().map(|(r, _)| r).collect();
    assert_eq!(left, [fact, i], "[{CASE}] the embedded row left the list");
    // Vectors of one model do not count for another.
    let other = format!("{model}:other");
    let elsewhere = ours(ok(
        CASE,
        "other model",
        store.missing_embeddings(&other, usize::MAX).await,
    ));
    assert_eq!(elsewhere.len(), 3, "[{CASE}] per model");
    // An unchanged fact keeps its vector; a changed one needs a new one.
    put(store, CASE, fact, &model, &[0.0, 1.0, 0.0]).await;
    ok(CASE, "same", store.upsert_fact(&user, &f, T0 + 1).await);
    let left = ours(ok(
        CASE,
        "same",
        store.missing_embeddings(&model, usize::MAX).await,
    ));
    assert_eq!(
        left.len(),
        1,
        "[{CASE}] unchanged fact keeps its vector: {left:?}"
    );
    let moved = new_fact("home_city", "Bergen", FactSource::User);
    ok(
        CASE,
        "moved",
        store.upsert_fact(&user, &moved, T0 + 2).await,
    );
    let left = ours(ok(
        CASE,
        "moved",
        store.missing_embeddings(&model, usize::MAX).await,
    ));
    assert_eq!(
        left.first(),
        Some(&(fact, "home_city: Bergen".to_owned())),
        "[{CASE}] changed fact needs a new vector"
    );
}
