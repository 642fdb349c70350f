//! Contract cases for retention (by expiry, by exact key prefix; dry run vs real; the empty
//! prefix refused; `%` and `_` literal) and for reading the message log since a time.

use super::{T0, fresh_user, fts, new_fact};
use crate::contract::{fresh_conversation, ok, refused};
use crate::{MemoryFilter, Store, StoredMessage};
use std::time::{SystemTime, UNIX_EPOCH};
use steward_protocol::{Fact, FactSource, Message};

fn keys_of(facts: &[Fact], user: &str) -> Vec<String> {
    facts
        .iter()
        .filter(|f| f.user == user)
        .map(|f| f.key.clone())
        .collect()
}

pub async fn retention_by_expiry(store: &dyn Store) {
    const CASE: &str = "retention_by_expiry";
    let user = fresh_user(CASE);
    for (key, expires) in [
        ("episode.lunch", Some(T0 + 10)),
        ("episode.at_now", Some(T0 + 100)),
        ("episode.later", Some(T0 + 1000)),
        ("forever", None),
    ] {
        let mut fact = new_fact(key, &format!("{key} zanzibar"), FactSource::Extracted);
        fact.expires_at_ms = expires;
        ok(CASE, "insert", store.upsert_fact(&user, &fact, T0).await);
    }
    let dry = ok(
        CASE,
        "dry run",
        store.delete_expired_facts(T0 + 100, true).await,
    );
    let expected = ["episode.at_now", "episode.lunch"];
    assert_eq!(keys_of(&dry, &user), expected, "[{CASE}] dry run reports");
    let all = ok(CASE, "list", store.list_facts(&user, 10, 0).await);
    assert_eq!(all.len(), 4, "[{CASE}] dry run deletes nothing");

    let done = ok(
        CASE,
        "sweep",
        store.delete_expired_facts(T0 + 100, false).await,
    );
    assert_eq!(
        keys_of(&done, &user),
        expected,
        "[{CASE}] real run reports the same"
    );
    let left = ok(CASE, "list", store.list_facts(&user, 10, 0).await);
    assert_eq!(
        keys_of(&left, &user),
        ["episode.later", "forever"],
        "[{CASE}]"
    );
    let hits = fts(store, CASE, &user, "zanzibar", &MemoryFilter::default()).await;
    assert_eq!(hits.len(), 2, "[{CASE}] swept facts left the search index");
    let again = ok(
        CASE,
        "again",
        store.delete_expired_facts(T0 + 100, false).await,
    );
    assert!(
        keys_of(&again, &user).is_empty(),
        "[{CASE}] nothing left to sweep"
    );
}

pub async fn retention_by_prefix(store: &dyn Store) {
    const CASE: &str = "retention_by_prefix";
    let user = fresh_user(CASE);
    let other = fresh_user(CASE);
    let facts = [
        ("trip.2024.hotel", T0),
        ("trip.2024.flight", T0 + 10),
        ("trip.2024.recent", T0 + 500),
        ("trip.20245", T0),
        ("trip.2023.hotel", T0),
        ("trip_.y", T0),
        ("tripx.z", T0),
    ];
    for (key, seen) in facts {
        let fact = new_fact(key, "v", FactSource::Extracted);
        ok(CASE, "insert", store.upsert_fact(&user, &fact, seen).await);
    }
    let theirs = new_fact("trip.2024.hotel", "v", FactSource::Extracted);
    ok(CASE, "other", store.upsert_fact(&other, &theirs, T0).await);

    let sweep = |prefix: &'static str, dry_run: bool| {
        let user = user.clone();
        async move {
            let facts = store
                .delete_facts_by_prefix(&user, prefix, T0 + 100, dry_run)
                .await;
            keys_of(&ok(CASE, prefix, facts), &user)
        }
    };
    let dry = sweep("trip.2024.", true).await;
    assert_eq!(
        dry,
        ["trip.2024.flight", "trip.2024.hotel"],
        "[{CASE}] prefix, unseen only"
    );
    assert_eq!(
        ok(CASE, "list", store.list_facts(&user, 20, 0).await).len(),
        7,
        "[{CASE}]"
    );
    let done = sweep("trip.2024.", false).await;
    assert_eq!(
        done, dry,
        "[{CASE}] real run deletes what the dry run reported"
    );
    assert_eq!(
        ok(CASE, "list", store.list_facts(&user, 20, 0).await).len(),
        5,
        "[{CASE}]"
    );
    assert!(
        ok(
            CASE,
            "other user",
            store.get_fact(&other, "trip.2024.hotel").await
        )
        .is_some(),
        "[{CASE}] another user's facts are out of scope"
    );
    // `%` cannot be in a key (`FactKey`), so it cannot be in a prefix either.
    refused(
        CASE,
        "pattern prefix",
        store
            .delete_facts_by_prefix(&user, "trip%", i64::MAX, false)
            .await,
        "",
    );
    assert_eq!(
        sweep("trip_", false).await,
        ["trip_.y"],
        "[{CASE}] _ is literal"
    );
    refused(
        CASE,
        "empty prefix",
        store
            .delete_facts_by_prefix(&user, "", i64::MAX, false)
            .await,
        "",
    );
    let left = ok(CASE, "list", store.list_facts(&user, 20, 0).await);
    assert_eq!(
        keys_of(&left, &user),
        [
            "trip.2023.hotel",
            "trip.2024.recent",
            "trip.20245",
            "tripx.z"
        ],
        "[{CASE}] everything else kept"
    );
}

fn wall_clock_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

pub async fn messages_since_reads_all_conversations(store: &dyn Store) {
    const CASE: &str = "messages_since_reads_all_conversations";
    let a = fresh_conversation(CASE);
    let b = fresh_conversation(CASE);
    // Append times come from the store's clock; a millisecond of slack below ours.
    let since = wall_clock_ms() - 1;
    ok(
        CASE,
        "a1",
        store.append_messages(&a, &[Message::user("one")]).await,
    );
    let two = [Message::user("two"), Message::assistant("three", vec![])];
    ok(CASE, "b", store.append_messages(&b, &two).await);
    ok(
        CASE,
        "a2",
        store.append_messages(&a, &[Message::user("four")]).await,
    );
    let ours = |all: Vec<StoredMessage>| -> Vec<StoredMessage> {
        all.into_iter()
            .filter(|m| m.conversation == a || m.conversation == b)
            .collect()
    };
    let got = ours(ok(
        CASE,
        "since",
        store.messages_since(since, usize::MAX).await,
    ));
    let summary: Vec<(&str, &str)> = got
        .iter()
        .map(|m| (m.conversation.as_str(), m.message.content.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (a.as_str(), "one"),
            (b.as_str(), "two"),
            (b.as_str(), "three"),
            (a.as_str(), "four")
        ],
        "[{CASE}] across conversations, oldest first"
    );
    assert_eq!(
        got[2].message,
        Message::assistant("three", vec![]),
        "[{CASE}]"
    );
    assert!(got.iter().all(|m| m.at_ms >= since), "[{CASE}] times");
    assert!(
        got.windows(2).all(|w| w[0].at_ms <= w[1].at_ms),
        "[{CASE}] ordered"
    );
    let later = ours(ok(CASE, "future", store.messages_since(i64::MAX, 10).await));
    assert!(later.is_empty(), "[{CASE}] nothing after the future");
    assert_eq!(
        ok(CASE, "limit", store.messages_since(since, 1).await).len(),
        1
    );
    assert!(ok(CASE, "zero", store.messages_since(since, 0).await).is_empty());
}
