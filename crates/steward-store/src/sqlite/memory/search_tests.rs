//! Tests of the full-text query plan: all words first, the rarest few OR-ed only when no row
//! has them all, at most `RANK_WINDOW` matching rows ranked (the newest), and hostile text
//! still searched as plain words.

use super::index::{self, RANK_WINDOW};
use super::notes;
use crate::sqlite::migrate;
use crate::validate::memory::query_tokens;
use crate::{MemoryFilter, NewNote};
use rusqlite::Connection;
use steward_protocol::Provenance;

fn open() -> Connection {
    let mut conn = Connection::open_in_memory().unwrap();
    migrate::apply(&mut conn, ":memory:").unwrap();
    conn
}

fn note(conn: &mut Connection, title: &str, body: &str) -> i64 {
    note_for(conn, "u", title, body)
}

fn note_for(conn: &mut Connection, user: &str, title: &str, body: &str) -> i64 {
    let n = NewNote {
        title: title.into(),
        body: body.into(),
        tags: Vec::new(),
        provenance: Provenance::User { conversation: None },
    };
    notes::insert(conn, user, &n, 1).unwrap().id
}

/// Note ids found for `query`, sorted (ranking is not what these tests are about).
fn found(conn: &Connection, query: &str) -> Vec<i64> {
    let hits = index::search(
        conn,
        "u",
        &query_tokens(query),
        &MemoryFilter::default(),
        100,
    )
    .unwrap();
    let mut ids: Vec<i64> = hits.into_iter().map(|(r, _)| r.id).collect();
    ids.sort_unstable();
    ids
}

#[test]
fn rows_with_every_word_come_alone_when_there_are_some() {
    let mut conn = open();
    let both = note(&mut conn, "alpha", "beta");
    let alpha = note(&mut conn, "alpha", "gamma");
    note(&mut conn, "beta", "gamma");
    assert_eq!(found(&conn, "alpha beta"), [both], "AND, not OR");
    assert_eq!(
        found(&conn, "the alpha"),
        [both, alpha],
        "stopwords are dropped"
    );
    let mut all_gamma = found(&conn, "gamma");
    all_gamma.dedup();
    assert_eq!(all_gamma.len(), 2);
}

#[test]
fn no_row_with_every_word_falls_back_to_any_word() {
    let mut conn = open();
    let a = note(&mut conn, "alpha", "one");
    let b = note(&mut conn, "beta", "two");
    note(&mut conn, "gamma", "three");
    assert_eq!(found(&conn, "alpha beta"), [a, b]);
    assert!(found(&conn, "delta epsilon").is_empty());
}

#[test]
fn the_fallback_ors_only_the_rarest_words_that_occur() {
    let mut conn = open();
    for i in 0..10 {
        note(&mut conn, &format!("common {i}"), "shared words");
    }
    let r1 = note(&mut conn, "rareone", "x");
    let r2 = note(&mut conn, "raretwo", "common");
    let r3 = note(&mut conn, "rarethree", "y");
    let mid: Vec<i64> = (0..2).map(|_| note(&mut conn, "middling", "z")).collect();
    // Five words, no row has them all. "nowhere" occurs in no row and is skipped; the three
    // rarest that occur are the rare* ones; "middling" (2 rows) and "common" (11) are left out.
    let got = found(&conn, "common middling rareone nowhere raretwo rarethree");
    assert_eq!(got, [r1, r2, r3], "middling rows {mid:?} must not appear");
    // With few words, all are OR-ed.
    let mut two = found(&conn, "rareone middling");
    two.sort_unstable();
    let mut expected = vec![r1, mid[0], mid[1]];
    expected.sort_unstable();
    assert_eq!(two, expected);
}

#[test]
fn hostile_text_is_still_plain_words() {
    let mut conn = open();
    let budget = note(&mut conn, "Budget", "quarterly budget review");
    let other = note(&mut conn, "Near miss", "title of a poem");
    for query in [
        "NEAR(budget review, 2)",
        "\"budget\" OR \"nothing\"",
        "budget* -review ^quarterly",
        "{title body}: budget AND NOT",
        "budget\" OR 1=1 --",
    ] {
        let got = found(&conn, query);
        assert!(got.contains(&budget), "{query:?}: {got:?}");
    }
    // "title" is a word here, not a column filter: it finds the row that has the word.
    assert_eq!(found(&conn, "title:"), [other]);
    assert_eq!(
        index::and_expression(&query_tokens("a\"b OR c*")),
        "\"b\" AND \"c\""
    );
    assert_eq!(
        index::or_expression(&query_tokens("x NEAR y")),
        "\"x\" OR \"near\" OR \"y\""
    );
}

#[test]
fn only_the_newest_matches_are_ranked_when_very_many_match() {
    let mut conn = open();
    // Another user's only match is older than any window.
    let early = note_for(&mut conn, "early", "common", "");
    // Old rows match "common" best by far (short, the word three times)...
    let strong: Vec<i64> = (0..5)
        .map(|_| note(&mut conn, "common common common", ""))
        .collect();
    // ...then more than a window of weaker matches, with another user's rows in between
    // (they do not count toward this user's window).
    for i in 0..RANK_WINDOW {
        note(
            &mut conn,
            "note",
            &format!("a long body that mentions common once, {i}"),
        );
        if i % 10 == 0 {
            note_for(&mut conn, "other", "common", "common");
        }
    }
    let search = |conn: &Connection, q: &str, limit: usize| {
        let hits = index::search(conn, "u", &query_tokens(q), &MemoryFilter::default(), limit);
        hits.unwrap()
            .into_iter()
            .map(|(r, _)| r.id)
            .collect::<Vec<_>>()
    };
    let top = search(&conn, "common", 10);
    assert_eq!(top.len(), 10);
    assert!(
        top.iter().all(|id| !strong.contains(id)),
        "rows older than the window are not ranked: {top:?}"
    );
    // One more weak row pushes one more old row out; a newer strong row wins at once.
    let fresh = note(&mut conn, "common common common", "");
    assert_eq!(search(&conn, "common", 1), [fresh]);
    // Rows the window leaves out are still found when it holds fewer than `limit` of the
    // user's filtered rows: here another user, whose only match is older than the window.
    let theirs = index::search(
        &conn,
        "early",
        &query_tokens("common"),
        &MemoryFilter::default(),
        5,
    );
    assert_eq!(
        theirs
            .unwrap()
            .into_iter()
            .map(|(r, _)| r.id)
            .collect::<Vec<_>>(),
        [early]
    );
    // A rarer word is not affected by the window at all.
    let rare = note(&mut conn, "zanzibar", "");
    assert_eq!(found(&conn, "zanzibar"), [rare]);
    // A limit beyond the window still gets that many rows.
    assert_eq!(
        search(&conn, "common", RANK_WINDOW + 3).len(),
        RANK_WINDOW + 3
    );
    // With fewer matches than the window, every match is ranked (the strong rows win).
    let mut small = open();
    let weak = note(&mut small, "note", "a long body that mentions common once");
    let best = note(&mut small, "common common common", "");
    assert_eq!(search(&small, "common", 5), [best, weak]);
}
