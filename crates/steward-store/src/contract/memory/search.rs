//! Contract cases for full-text search: the obviously matching row ranks first whatever its
//! kind, filters apply, hostile query text never errors nor acts as syntax, and deletes and
//! edits keep the full-text and vector indexes in step with the rows.

use super::{T0, fact_ref, fresh_user, fts, kinds, new_fact, new_note, note, note_ref, strings};
use crate::contract::ok;
use crate::{MemoryFilter, NoteEdit, Store};
use steward_protocol::{FactSource, MemoryKind, MemoryRef};

pub async fn fts_ranks_obvious_match_first_across_kinds(store: &dyn Store) {
    const CASE: &str = "fts_ranks_obvious_match_first_across_kinds";
    let user = fresh_user(CASE);
    let f = new_fact("favourite_colour", "teal green", FactSource::User);
    let fact = ok(CASE, "fact", store.upsert_fact(&user, &f, T0).await)
        .fact()
        .id;
    let lisbon = new_note(
        "Trip to Lisbon",
        "Flights booked for May; hotel near the river. Remember sunscreen.",
        &["travel"],
    );
    let n = note(store, CASE, &user, lisbon, T0).await;
    let rl = store.add_read_later(
        &user,
        "https://rust.example/async",
        "Asynchronous Rust guide",
        &[],
        T0,
    );
    let rl = ok(CASE, "read later", rl.await).id;
    let learning = store.bump_learning(&user, "The user prefers concise answers", T0);
    let learning = ok(CASE, "learning", learning.await).id;
    let intention = store.add_intention(&user, "Follow up about the dentist appointment", None, T0);
    let intention = ok(CASE, "intention", intention.await).id;
    // Filler sharing common words, so ranking (not mere matching) is tested.
    for i in 0..5 {
        let filler = new_note(
            &format!("Note {i}"),
            "the user wrote about a trip and answers",
            &[],
        );
        note(store, CASE, &user, filler, T0).await;
    }
    let r = |kind, id| MemoryRef { kind, id };
    let cases = [
        ("what is my favourite colour?", fact_ref(fact)),
        ("lisbon trip flights", note_ref(&n)),
        ("guide to async rust", r(MemoryKind::ReadLater, rl)),
        ("concise answers", r(MemoryKind::Learning, learning)),
        ("dentist", r(MemoryKind::Intention, intention)),
        // Stemming / case: "Flight" and "booking" still find the note.
        ("Flight BOOKING", note_ref(&n)),
    ];
    for (query, expected) in cases {
        let hits = ok(
            CASE,
            query,
            store
                .fts_search(&user, query, &MemoryFilter::default(), 10)
                .await,
        );
        assert_eq!(
            hits.first().map(|h| h.0),
            Some(expected),
            "[{CASE}] {query:?} ranks {expected:?} first: {hits:?}"
        );
        assert!(
            hits.windows(2).all(|w| w[0].1 >= w[1].1),
            "[{CASE}] {query:?}: scores are best first: {hits:?}"
        );
        assert!(hits[0].1 > 0.0, "[{CASE}] score = -bm25 is positive");
    }
    let other = fresh_user(CASE);
    let none = fts(store, CASE, &other, "lisbon", &MemoryFilter::default()).await;
    assert!(none.is_empty(), "[{CASE}] another user's rows never show");
    let limited = store
        .fts_search(&user, "the", &MemoryFilter::default(), 2)
        .await;
    assert_eq!(ok(CASE, "limit", limited).len(), 2, "[{CASE}] limit");
}

pub async fn fts_filters_apply(store: &dyn Store) {
    const CASE: &str = "fts_filters_apply";
    let user = fresh_user(CASE);
    let f = new_fact("garden", "tomatoes in the garden", FactSource::Extracted);
    let fact = fact_ref(
        ok(CASE, "fact", store.upsert_fact(&user, &f, T0).await)
            .fact()
            .id,
    );
    let a = note(
        store,
        CASE,
        &user,
        new_note("Garden", "tomatoes", &["home", "plants"]),
        T0 + 10,
    )
    .await;
    let b = note(
        store,
        CASE,
        &user,
        new_note("Tomatoes", "garden", &["plants"]),
        T0 + 20,
    )
    .await;
    let search = |filter: MemoryFilter| {
        let user = user.clone();
        async move { fts(store, CASE, &user, "garden tomatoes", &filter).await }
    };
    let mut all = search(MemoryFilter::default()).await;
    all.sort();
    let mut expected = vec![fact, note_ref(&a), note_ref(&b)];
    expected.sort();
    assert_eq!(all, expected, "[{CASE}] no filter: all three");
    assert_eq!(
        search(kinds(&[MemoryKind::Fact])).await,
        [fact],
        "[{CASE}] kind fact"
    );
    let mut notes = search(kinds(&[MemoryKind::Note, MemoryKind::Learning])).await;
    notes.sort();
    assert_eq!(notes.len(), 2, "[{CASE}] kind note: {notes:?}");
    assert!(!notes.contains(&fact), "[{CASE}]");
    let tagged = MemoryFilter {
        tags: strings(&["plants", "home"]),
        ..MemoryFilter::default()
    };
    assert_eq!(
        search(tagged).await,
        [note_ref(&a)],
        "[{CASE}] all tags must match"
    );
    let since = MemoryFilter {
        since_ms: Some(T0 + 15),
        ..MemoryFilter::default()
    };
    assert_eq!(search(since).await, [note_ref(&b)], "[{CASE}] since");
    let until = MemoryFilter {
        until_ms: Some(T0 + 10),
        ..MemoryFilter::default()
    };
    let mut early = search(until).await;
    early.sort();
    let mut expected = vec![fact, note_ref(&a)];
    expected.sort();
    assert_eq!(early, expected, "[{CASE}] until (inclusive)");
}

/// Text that is FTS5 syntax (or breaks it) is searched as words, never parsed, never an error.
pub async fn fts_hostile_queries_never_error(store: &dyn Store) {
    const CASE: &str = "fts_hostile_queries_never_error";
    let user = fresh_user(CASE);
    let budget = note(
        store,
        CASE,
        &user,
        new_note("Budget", "quarterly budget review", &[]),
        T0,
    )
    .await;
    let big = "lorem ipsum 🦀 \"(* ".repeat(600);
    let hostile = [
        "\"unbalanced",
        "NEAR(",
        "NEAR(budget review, 2)",
        "*",
        "budget*",
        "col:",
        "title:budget",
        "{title body}: budget",
        "AND OR NOT",
        "NOT budget",
        "^budget",
        "budget + review -",
        "'; DROP TABLE notes; --",
        "🦀🦀🦀",
        "\0",
        "",
        "   ",
        big.as_str(),
    ];
    for query in hostile {
        let shown: String = query.chars().take(24).collect();
        let hits = ok(
            CASE,
            &format!("query {shown:?}"),
            store
                .fts_search(&user, query, &MemoryFilter::default(), 10)
                .await,
        );
        let words_budget = query.to_lowercase().contains("budget");
        if words_budget {
            assert_eq!(
                refs_of(&hits),
                [note_ref(&budget)],
                "[{CASE}] {shown:?} is searched as plain words"
            );
        } else {
            assert!(hits.is_empty(), "[{CASE}] {shown:?} matched {hits:?}");
        }
    }
    assert!(
        ok(CASE, "still there", store.get_note(budget.id).await).is_some(),
        "[{CASE}] nothing was executed"
    );
}

fn refs_of(hits: &[(MemoryRef, f64)]) -> Vec<MemoryRef> {
    super::refs(hits)
}

/// Deleting a fact or note removes it from full text and vectors; editing a note re-indexes its
/// words and drops its now stale vector.
pub async fn deletes_and_edits_update_both_indexes(store: &dyn Store) {
    const CASE: &str = "deletes_and_edits_update_both_indexes";
    const MODEL: &str = "test:4";
    let user = fresh_user(CASE);
    let f = new_fact("allergy", "penicillin", FactSource::User);
    let fact = fact_ref(
        ok(CASE, "fact", store.upsert_fact(&user, &f, T0).await)
            .fact()
            .id,
    );
    let n = note(
        store,
        CASE,
        &user,
        new_note("Saxophone", "practice scales daily", &[]),
        T0,
    )
    .await;
    let nr = note_ref(&n);
    ok(
        CASE,
        "vec fact",
        store
            .put_embedding(fact, MODEL, &[1.0, 0.0, 0.0, 0.0])
            .await,
    );
    ok(
        CASE,
        "vec note",
        store.put_embedding(nr, MODEL, &[0.0, 1.0, 0.0, 0.0]).await,
    );
    let near = |v: [f32; 4]| {
        let user = user.clone();
        async move {
            let hits = store
                .vector_search(&user, MODEL, &v, &MemoryFilter::default(), 10)
                .await;
            super::refs(&ok(CASE, "vector_search", hits))
        }
    };
    assert_eq!(
        near([1.0, 0.1, 0.0, 0.0]).await,
        [fact, nr],
        "[{CASE}] both indexed"
    );

    let edit = NoteEdit {
        body: Some("practice arpeggios".into()),
        ..NoteEdit::default()
    };
    ok(CASE, "edit", store.update_note(n.id, &edit, T0 + 1).await);
    let no_filter = MemoryFilter::default();
    assert!(
        fts(store, CASE, &user, "scales", &no_filter)
            .await
            .is_empty(),
        "[{CASE}] old words gone"
    );
    assert_eq!(
        fts(store, CASE, &user, "arpeggios", &no_filter).await,
        [nr],
        "[{CASE}] new words"
    );
    assert_eq!(
        near([0.0, 1.0, 0.0, 0.0]).await,
        [fact],
        "[{CASE}] stale vector dropped"
    );
    let missing = ok(
        CASE,
        "missing",
        store.missing_embeddings(MODEL, usize::MAX).await,
    );
    assert!(
        missing.iter().any(|(r, _)| *r == nr),
        "[{CASE}] edited note needs a vector"
    );
    ok(
        CASE,
        "re-embed",
        store.put_embedding(nr, MODEL, &[0.0, 1.0, 0.0, 0.0]).await,
    );

    assert!(ok(
        CASE,
        "delete fact",
        store.delete_fact(&user, "allergy").await
    ));
    assert!(ok(CASE, "delete note", store.delete_note(n.id).await));
    for query in ["penicillin allergy", "saxophone arpeggios"] {
        assert!(
            fts(store, CASE, &user, query, &no_filter).await.is_empty(),
            "[{CASE}] {query}"
        );
    }
    assert!(
        near([1.0, 1.0, 0.0, 0.0]).await.is_empty(),
        "[{CASE}] vectors deleted"
    );
    let missing = ok(
        CASE,
        "missing",
        store.missing_embeddings(MODEL, usize::MAX).await,
    );
    assert!(
        !missing.iter().any(|(r, _)| *r == nr || *r == fact),
        "[{CASE}] deleted rows are not backfilled"
    );
    let put = store.put_embedding(nr, MODEL, &[0.0, 1.0, 0.0, 0.0]).await;
    crate::contract::refused(CASE, "vector for a deleted note", put, "");
}
