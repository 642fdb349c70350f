//! Contract cases for notes (CRUD, tag and time filters), read-later tags, learnings
//! (recurrence, top order), intentions (at most 3 nudges) and `get_items` order.

use super::{T0, fact_ref, fresh_user, kinds, new_fact, new_note, note, note_ref, strings};
use crate::contract::{ok, refused};
use crate::{MemoryFilter, NoteEdit, Store};
use steward_protocol::{FactSource, MemoryKind, MemoryRef, Provenance};

pub async fn notes_crud(store: &dyn Store) {
    const CASE: &str = "notes_crud";
    let user = fresh_user(CASE);
    let mut new = new_note(
        "Packing list",
        "passport, charger",
        &[" travel ", "todo", "travel"],
    );
    new.provenance = Provenance::ToolOutput {
        tool: "web_fetch".into(),
    };
    let created = note(store, CASE, &user, new.clone(), T0).await;
    assert!(created.id > 0, "[{CASE}]");
    assert_eq!(
        created.tags,
        ["travel", "todo"],
        "[{CASE}] tags trimmed, deduplicated"
    );
    assert_eq!(
        (created.created_at_ms, created.updated_at_ms),
        (T0, T0),
        "[{CASE}]"
    );
    assert_eq!(created.provenance, new.provenance, "[{CASE}]");
    let got = ok(CASE, "get", store.get_note(created.id).await);
    assert_eq!(got.as_ref(), Some(&created), "[{CASE}] get = inserted");

    let title_only = NoteEdit {
        title: Some("Packing list v2".into()),
        ..NoteEdit::default()
    };
    let edited = ok(
        CASE,
        "edit",
        store.update_note(created.id, &title_only, T0 + 5).await,
    );
    let Some(edited) = edited else {
        panic!("[{CASE}] update of an existing note returned None");
    };
    assert_eq!(edited.title, "Packing list v2", "[{CASE}]");
    assert_eq!(edited.body, created.body, "[{CASE}] untouched body");
    assert_eq!(edited.tags, created.tags, "[{CASE}] untouched tags");
    assert_eq!((edited.created_at_ms, edited.updated_at_ms), (T0, T0 + 5));
    let tags = NoteEdit {
        tags: Some(strings(&["done"])),
        body: Some(String::new()),
        ..NoteEdit::default()
    };
    let edited = ok(
        CASE,
        "tags",
        store.update_note(created.id, &tags, T0 + 6).await,
    );
    let stored = ok(CASE, "get", store.get_note(created.id).await);
    assert_eq!(edited, stored, "[{CASE}] returned = stored");
    let Some(stored) = stored else {
        panic!("[{CASE}] note vanished");
    };
    assert_eq!(
        (stored.tags, stored.body.as_str()),
        (strings(&["done"]), "")
    );

    let missing = ok(CASE, "edit missing", store.update_note(-1, &tags, T0).await);
    assert_eq!(missing, None, "[{CASE}] editing a missing note");
    let bad = NoteEdit {
        body: Some("sk-live-77\0".into()),
        ..NoteEdit::default()
    };
    refused(
        CASE,
        "NUL body",
        store.update_note(created.id, &bad, T0).await,
        "sk-live-77",
    );
    assert!(
        ok(CASE, "delete", store.delete_note(created.id).await),
        "[{CASE}]"
    );
    assert_eq!(
        ok(CASE, "get deleted", store.get_note(created.id).await),
        None
    );
    assert!(
        !ok(CASE, "again", store.delete_note(created.id).await),
        "[{CASE}]"
    );
}

pub async fn notes_tags_and_time_filters(store: &dyn Store) {
    const CASE: &str = "notes_tags_and_time_filters";
    let user = fresh_user(CASE);
    let a = note(store, CASE, &user, new_note("a", "", &["x"]), T0).await;
    let b = note(store, CASE, &user, new_note("b", "", &["x", "y"]), T0 + 100).await;
    let c = note(store, CASE, &user, new_note("c", "", &["y"]), T0 + 200).await;
    let other = fresh_user(CASE);
    note(store, CASE, &other, new_note("z", "", &["x"]), T0 + 300).await;
    let list = |filter: MemoryFilter, limit: usize| {
        let user = user.clone();
        async move {
            let notes = ok(CASE, "list", store.list_notes(&user, &filter, limit).await);
            notes.into_iter().map(|n| n.id).collect::<Vec<_>>()
        }
    };
    let tags = |t: &[&str]| MemoryFilter {
        tags: strings(t),
        ..MemoryFilter::default()
    };
    assert_eq!(
        list(MemoryFilter::default(), 10).await,
        [c.id, b.id, a.id],
        "[{CASE}] newest first"
    );
    assert_eq!(
        list(MemoryFilter::default(), 2).await,
        [c.id, b.id],
        "[{CASE}] limit"
    );
    assert_eq!(list(tags(&["x"]), 10).await, [b.id, a.id], "[{CASE}] tag x");
    assert_eq!(
        list(tags(&["x", "y"]), 10).await,
        [b.id],
        "[{CASE}] all tags must match"
    );
    assert!(
        list(tags(&["nope"]), 10).await.is_empty(),
        "[{CASE}] unknown tag"
    );
    let window = MemoryFilter {
        since_ms: Some(T0 + 100),
        until_ms: Some(T0 + 200),
        ..MemoryFilter::default()
    };
    assert_eq!(
        list(window, 10).await,
        [c.id, b.id],
        "[{CASE}] inclusive time window"
    );
    let until = MemoryFilter {
        until_ms: Some(T0 + 99),
        ..MemoryFilter::default()
    };
    assert_eq!(list(until, 10).await, [a.id], "[{CASE}] until");
    assert!(
        list(kinds(&[MemoryKind::Fact]), 10).await.is_empty(),
        "[{CASE}] kinds"
    );
    assert_eq!(
        list(kinds(&[MemoryKind::Note]), 10).await.len(),
        3,
        "[{CASE}]"
    );
}

pub async fn read_later_tags(store: &dyn Store) {
    const CASE: &str = "read_later_tags";
    let user = fresh_user(CASE);
    let add = |url: &'static str, title: &'static str, tags: &'static [&'static str], at: i64| {
        let user = user.clone();
        async move {
            let tags = strings(tags);
            ok(
                CASE,
                "add",
                store.add_read_later(&user, url, title, &tags, at).await,
            )
        }
    };
    let a = add(
        "https://a.example/rust",
        "Async Rust",
        &["rust", "async"],
        T0,
    )
    .await;
    let b = add("https://b.example/bread", "Sourdough", &["cooking"], T0 + 1).await;
    let c = add("https://c.example/tokio", "Tokio", &["rust"], T0 + 2).await;
    assert_eq!(
        (
            a.url.as_str(),
            a.title.as_str(),
            a.tags.clone(),
            a.created_at_ms
        ),
        (
            "https://a.example/rust",
            "Async Rust",
            strings(&["rust", "async"]),
            T0
        ),
        "[{CASE}] fields"
    );
    let ids = |items: Vec<crate::ReadLater>| items.into_iter().map(|i| i.id).collect::<Vec<_>>();
    let all = ok(
        CASE,
        "all",
        store.list_read_later(&user, &[], false, 10).await,
    );
    assert_eq!(all[0], c, "[{CASE}] whole item round trip");
    assert_eq!(ids(all), [c.id, b.id, a.id], "[{CASE}] newest first");
    let rust = ok(
        CASE,
        "rust",
        store
            .list_read_later(&user, &strings(&["rust"]), false, 10)
            .await,
    );
    assert_eq!(ids(rust), [c.id, a.id], "[{CASE}] tag filter");
    let any = strings(&["cooking", "async"]);
    let any = ok(
        CASE,
        "any",
        store.list_read_later(&user, &any, false, 10).await,
    );
    assert_eq!(ids(any), [b.id, a.id], "[{CASE}] any tag matches");
    let none = ok(
        CASE,
        "none",
        store
            .list_read_later(&user, &strings(&["x"]), false, 10)
            .await,
    );
    assert!(none.is_empty(), "[{CASE}]");
    assert_eq!(
        ok(
            CASE,
            "limit",
            store.list_read_later(&user, &[], false, 1).await
        )
        .len(),
        1
    );
    refused(
        CASE,
        "empty url",
        store.add_read_later(&user, "", "t", &[], T0).await,
        "",
    );
}

pub async fn learnings_recurrence_and_top_order(store: &dyn Store) {
    const CASE: &str = "learnings_recurrence_and_top_order";
    let user = fresh_user(CASE);
    let bump = |text: &'static str, at: i64| {
        let user = user.clone();
        async move { ok(CASE, "bump", store.bump_learning(&user, text, at).await) }
    };
    let first = bump("Prefers short answers", T0).await;
    assert_eq!((first.recurrence, first.last_seen_ms), (1, T0), "[{CASE}]");
    let second = bump("  prefers SHORT answers ", T0 + 10).await;
    assert_eq!(
        second.id, first.id,
        "[{CASE}] same learning, case and spaces aside"
    );
    assert_eq!(
        (second.recurrence, second.last_seen_ms),
        (2, T0 + 10),
        "[{CASE}]"
    );
    assert_eq!(
        second.text, "Prefers short answers",
        "[{CASE}] first spelling kept"
    );
    bump("Prefers short answers", T0 + 20).await;
    let once = bump("Works on Rust projects", T0 + 30).await;
    for at in [T0 + 5, T0 + 25, T0 + 40] {
        bump("Asks for sources", at).await;
    }
    let top = ok(CASE, "top", store.top_learnings(&user, 10).await);
    let summary: Vec<(&str, u32)> = top
        .iter()
        .map(|l| (l.text.as_str(), l.recurrence))
        .collect();
    assert_eq!(
        summary,
        [
            ("Asks for sources", 3),
            ("Prefers short answers", 3),
            ("Works on Rust projects", 1)
        ],
        "[{CASE}] recurrence desc, then last seen desc"
    );
    assert_eq!(top[2], once, "[{CASE}] whole row");
    assert_eq!(
        ok(CASE, "top 1", store.top_learnings(&user, 1).await).len(),
        1
    );
    refused(
        CASE,
        "blank",
        store.bump_learning(&user, "   ", T0).await,
        "",
    );
}

pub async fn intentions_nudges_capped(store: &dyn Store) {
    const CASE: &str = "intentions_nudges_capped";
    let user = fresh_user(CASE);
    let later = ok(
        CASE,
        "add",
        store
            .add_intention(&user, "Ask about the trip", None, T0)
            .await,
    );
    let soon = store.add_intention(&user, " Renew passport ", Some(T0 + 50), T0 + 1);
    let soon = ok(CASE, "add", soon.await);
    assert_eq!(soon.text, "Renew passport", "[{CASE}] trimmed");
    assert_eq!(
        (soon.due_at_ms, soon.nudges, soon.open, soon.created_at_ms),
        (Some(T0 + 50), 0, true, T0 + 1),
        "[{CASE}] fields"
    );
    for expected in 1..=3 {
        let nudged = ok(CASE, "nudge", store.nudge_intention(soon.id).await);
        assert_eq!(nudged.nudges, expected, "[{CASE}]");
    }
    refused(
        CASE,
        "fourth nudge",
        store.nudge_intention(soon.id).await,
        "",
    );
    let open = ok(CASE, "list", store.list_intentions(&user, true).await);
    let ids: Vec<i64> = open.iter().map(|i| i.id).collect();
    assert_eq!(
        ids,
        [soon.id, later.id],
        "[{CASE}] dated first, then undated"
    );
    assert_eq!(
        open[0].nudges, 3,
        "[{CASE}] the refused nudge changed nothing"
    );
    let closed = store.set_intention_done(&user, later.id, true).await;
    let closed = ok(CASE, "close", closed);
    assert_eq!(closed.map(|i| i.open), Some(false), "[{CASE}]");
    refused(
        CASE,
        "nudge closed",
        store.nudge_intention(later.id).await,
        "",
    );
    refused(CASE, "nudge unknown", store.nudge_intention(-7).await, "");
    let open = ok(CASE, "open", store.list_intentions(&user, true).await);
    assert_eq!(open.len(), 1, "[{CASE}] closed ones hidden");
    let all = ok(CASE, "all", store.list_intentions(&user, false).await);
    let closed: Vec<bool> = all.iter().map(|i| i.open).collect();
    assert_eq!(closed, [true, false], "[{CASE}] all, closed included");
}

pub async fn get_items_in_order(store: &dyn Store) {
    const CASE: &str = "get_items_in_order";
    let user = fresh_user(CASE);
    let fact = new_fact("favourite_tea", "genmaicha", FactSource::Extracted);
    let fact = ok(CASE, "fact", store.upsert_fact(&user, &fact, T0).await)
        .fact()
        .clone();
    let n = note(
        store,
        CASE,
        &user,
        new_note("Tea", "steep 3 minutes", &["tea"]),
        T0 + 1,
    )
    .await;
    let tags = strings(&["tea"]);
    let rl = store.add_read_later(&user, "https://t.example", "Tea guide", &tags, T0 + 2);
    let rl = ok(CASE, "read later", rl.await);
    let learning = ok(
        CASE,
        "learning",
        store.bump_learning(&user, "Likes tea", T0 + 3).await,
    );
    let intention = store.add_intention(&user, "Buy tea", None, T0 + 4);
    let intention = ok(CASE, "intention", intention.await);
    let r = |kind, id| MemoryRef { kind, id };
    let asked = [
        r(MemoryKind::Intention, intention.id),
        r(MemoryKind::Note, -1),
        fact_ref(fact.id),
        note_ref(&n),
        r(MemoryKind::ReadLater, rl.id),
        r(MemoryKind::Learning, learning.id),
    ];
    let items = ok(CASE, "get_items", store.get_items(&asked).await);
    let got: Vec<MemoryRef> = items.iter().map(|i| i.r#ref).collect();
    let mut expected = asked.to_vec();
    expected.remove(1);
    assert_eq!(got, expected, "[{CASE}] asked order, missing skipped");
    let shape: Vec<(&str, &str, Option<FactSource>)> = items
        .iter()
        .map(|i| (i.title.as_str(), i.text.as_str(), i.source))
        .collect();
    assert_eq!(
        shape,
        [
            ("", "Buy tea", None),
            ("favourite_tea", "genmaicha", Some(FactSource::Extracted)),
            ("Tea", "steep 3 minutes", None),
            ("Tea guide", "https://t.example Tea guide", None),
            ("", "Likes tea", None),
        ],
        "[{CASE}] title/text per kind"
    );
    assert_eq!(items[1].user, user, "[{CASE}]");
    assert_eq!((items[1].created_at_ms, items[1].updated_at_ms), (T0, T0));
    assert_eq!(items[1].provenance, fact.provenance, "[{CASE}]");
    assert_eq!(items[2].tags, ["tea"], "[{CASE}] note tags");
    assert_eq!(items[3].tags, ["tea"], "[{CASE}] read-later tags");
    assert!(ok(CASE, "empty", store.get_items(&[]).await).is_empty());
}
