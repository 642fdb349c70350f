//! Contract cases for facts: insert / update / unchanged, the source-trust table (a user fact is
//! never overwritten by an extracted or reflected one, a user edit overwrites anything), trust
//! under concurrency, listing, deletion and input limits.

use super::{T0, fresh_user, new_fact, provenance_for};
use crate::contract::{ok, refused};
use crate::{FactWrite, Store};
use std::sync::Arc;
use steward_protocol::FactSource;

const SOURCES: [FactSource; 3] = [
    FactSource::User,
    FactSource::Extracted,
    FactSource::Reflection,
];

pub async fn fact_insert_update_unchanged(store: &dyn Store) {
    const CASE: &str = "fact_insert_update_unchanged";
    let user = fresh_user(CASE);
    let mut new = new_fact("home_city", "Oslo", FactSource::Extracted);
    new.expires_at_ms = Some(T0 + 1_000_000);
    let inserted = match ok(CASE, "insert", store.upsert_fact(&user, &new, T0).await) {
        FactWrite::Inserted(f) => f,
        other => panic!("[{CASE}] first write: expected Inserted, got {other:?}"),
    };
    assert!(inserted.id > 0, "[{CASE}] id assigned");
    assert_eq!(
        (
            inserted.user.as_str(),
            inserted.key.as_str(),
            inserted.value.as_str()
        ),
        (user.as_str(), "home_city", "Oslo"),
        "[{CASE}]"
    );
    assert_eq!(inserted.source, FactSource::Extracted, "[{CASE}]");
    assert_eq!(inserted.confidence, 0.875, "[{CASE}] confidence round trip");
    assert_eq!((inserted.first_seen_ms, inserted.last_seen_ms), (T0, T0));
    assert_eq!(inserted.expires_at_ms, Some(T0 + 1_000_000), "[{CASE}]");
    assert_eq!(inserted.provenance, new.provenance, "[{CASE}]");
    let got = ok(CASE, "get", store.get_fact(&user, "home_city").await);
    assert_eq!(got.as_ref(), Some(&inserted), "[{CASE}] get = inserted");

    let mut again = new.clone();
    again.confidence = 0.5;
    let unchanged = match ok(
        CASE,
        "same",
        store.upsert_fact(&user, &again, T0 + 10).await,
    ) {
        FactWrite::Unchanged(f) => f,
        other => panic!("[{CASE}] same value: expected Unchanged, got {other:?}"),
    };
    assert_eq!(unchanged.id, inserted.id, "[{CASE}] same row");
    assert_eq!(
        (unchanged.first_seen_ms, unchanged.last_seen_ms),
        (T0, T0 + 10),
        "[{CASE}] last_seen bumped, first_seen kept"
    );
    assert_eq!(unchanged.confidence, 0.5, "[{CASE}] confidence follows");

    let mut changed = new_fact("home_city", "Bergen", FactSource::Extracted);
    changed.expires_at_ms = None;
    let updated = match ok(
        CASE,
        "change",
        store.upsert_fact(&user, &changed, T0 + 20).await,
    ) {
        FactWrite::Updated(f) => f,
        other => panic!("[{CASE}] new value: expected Updated, got {other:?}"),
    };
    assert_eq!(updated.id, inserted.id, "[{CASE}] same row");
    assert_eq!(updated.value, "Bergen", "[{CASE}]");
    assert_eq!((updated.first_seen_ms, updated.last_seen_ms), (T0, T0 + 20));
    assert_eq!(updated.expires_at_ms, None, "[{CASE}] expiry follows");
    assert_eq!(
        ok(CASE, "get", store.get_fact(&user, "home_city").await),
        Some(updated),
        "[{CASE}] get after update"
    );
    let other_user = fresh_user(CASE);
    assert_eq!(
        ok(
            CASE,
            "other",
            store.get_fact(&other_user, "home_city").await
        ),
        None,
        "[{CASE}] facts are per user"
    );
}

/// Every (stored source, new source) pair, with a changed value and with the same value.
pub async fn user_fact_trust_table(store: &dyn Store) {
    const CASE: &str = "user_fact_trust_table";
    let user = fresh_user(CASE);
    for stored_source in SOURCES {
        for new_source in SOURCES {
            for same_value in [false, true] {
                let key = format!(
                    "{}.then.{}.{}",
                    stored_source.as_str(),
                    new_source.as_str(),
                    if same_value { "same" } else { "changed" }
                );
                let step = |s: &str| format!("{key}: {s}");
                let first = new_fact(&key, "stored", stored_source);
                let stored = ok(
                    CASE,
                    &step("first"),
                    store.upsert_fact(&user, &first, T0).await,
                )
                .fact()
                .clone();
                let value = if same_value { "stored" } else { "new" };
                let second = new_fact(&key, value, new_source);
                let write = ok(
                    CASE,
                    &step("second"),
                    store.upsert_fact(&user, &second, T0 + 5).await,
                );
                let now = ok(CASE, &step("get"), store.get_fact(&user, &key).await);
                let refused = stored_source == FactSource::User && new_source != FactSource::User;
                if refused {
                    assert_eq!(
                        write,
                        FactWrite::KeptUserFact(stored.clone()),
                        "[{CASE}] {key}: a user fact must be kept, untouched"
                    );
                    assert_eq!(now, Some(stored), "[{CASE}] {key}: nothing changed");
                    continue;
                }
                let expected_kind = matches!(
                    (&write, same_value),
                    (FactWrite::Unchanged(_), true) | (FactWrite::Updated(_), false)
                );
                assert!(expected_kind, "[{CASE}] {key}: got {write:?}");
                let fact = write.fact();
                assert_eq!(
                    (fact.value.as_str(), fact.source, fact.last_seen_ms),
                    (value, new_source, T0 + 5),
                    "[{CASE}] {key}: the new write applies"
                );
                assert_eq!(
                    fact.provenance,
                    provenance_for(new_source),
                    "[{CASE}] {key}"
                );
                assert_eq!(
                    now.as_ref(),
                    Some(fact),
                    "[{CASE}] {key}: stored = returned"
                );
            }
        }
    }
}

/// A user fact, then 50 concurrent extracted / reflected upserts of other values: every one is
/// refused and the user's value stands.
pub async fn user_fact_survives_concurrent_extraction(store: Arc<dyn Store>) {
    const CASE: &str = "user_fact_survives_concurrent_extraction";
    let user = fresh_user(CASE);
    let mine = new_fact("diet", "vegetarian", FactSource::User);
    let stored = ok(CASE, "user", store.upsert_fact(&user, &mine, T0).await)
        .fact()
        .clone();
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let (store, user) = (Arc::clone(&store), user.clone());
            let source = if i % 2 == 0 {
                FactSource::Extracted
            } else {
                FactSource::Reflection
            };
            tokio::spawn(async move {
                let guess = new_fact("diet", &format!("guess {i}"), source);
                store.upsert_fact(&user, &guess, T0 + 1 + i).await
            })
        })
        .collect();
    for task in tasks {
        let write = match task.await {
            Ok(result) => ok(CASE, "extracted upsert", result),
            Err(e) => panic!("[{CASE}] task failed: {e}"),
        };
        assert_eq!(
            write,
            FactWrite::KeptUserFact(stored.clone()),
            "[{CASE}] every extraction is refused"
        );
    }
    assert_eq!(
        ok(CASE, "get", store.get_fact(&user, "diet").await),
        Some(stored),
        "[{CASE}] the user's fact stands"
    );
}

/// 20 tasks mixing user and extracted upserts on one fresh key: once a user write lands no
/// extraction replaces it, so the final fact is one of the user's values with source user.
pub async fn concurrent_mixed_upserts_end_as_user(store: Arc<dyn Store>) {
    const CASE: &str = "concurrent_mixed_upserts_end_as_user";
    let user = fresh_user(CASE);
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let (store, user) = (Arc::clone(&store), user.clone());
            tokio::spawn(async move {
                let source = if i % 4 == 0 {
                    FactSource::User
                } else {
                    FactSource::Extracted
                };
                let fact = new_fact("coffee", &format!("{} {i}", source.as_str()), source);
                store.upsert_fact(&user, &fact, T0 + i).await
            })
        })
        .collect();
    for task in tasks {
        match task.await {
            Ok(result) => drop(ok(CASE, "upsert", result)),
            Err(e) => panic!("[{CASE}] task failed: {e}"),
        }
    }
    let last = ok(CASE, "get", store.get_fact(&user, "coffee").await);
    let Some(last) = last else {
        panic!("[{CASE}] the fact is missing");
    };
    assert_eq!(last.source, FactSource::User, "[{CASE}] {last:?}");
    assert!(last.value.starts_with("user "), "[{CASE}] {last:?}");
}

pub async fn fact_listing_and_deletion(store: &dyn Store) {
    const CASE: &str = "fact_listing_and_deletion";
    let user = fresh_user(CASE);
    for key in ["b", "a", "c", "_b", "a.b"] {
        let fact = new_fact(key, &format!("value of {key}"), FactSource::Extracted);
        ok(CASE, "insert", store.upsert_fact(&user, &fact, T0).await);
    }
    let keys = |facts: Vec<steward_protocol::Fact>| -> Vec<String> {
        facts.into_iter().map(|f| f.key).collect()
    };
    let all = ok(CASE, "list", store.list_facts(&user, 100, 0).await);
    assert_eq!(
        keys(all),
        ["_b", "a", "a.b", "b", "c"],
        "[{CASE}] bytewise key order"
    );
    let page = ok(CASE, "page", store.list_facts(&user, 2, 2).await);
    assert_eq!(keys(page), ["a.b", "b"], "[{CASE}] limit + offset");
    assert!(ok(CASE, "zero", store.list_facts(&user, 0, 0).await).is_empty());
    assert!(
        ok(CASE, "delete", store.delete_fact(&user, "a").await),
        "[{CASE}]"
    );
    assert!(
        !ok(CASE, "again", store.delete_fact(&user, "a").await),
        "[{CASE}]"
    );
    assert_eq!(ok(CASE, "get", store.get_fact(&user, "a").await), None);
    let rest = ok(CASE, "list", store.list_facts(&user, 100, 0).await);
    assert_eq!(keys(rest), ["_b", "a.b", "b", "c"], "[{CASE}] after delete");
    let other = fresh_user(CASE);
    assert!(
        !ok(CASE, "other user", store.delete_fact(&other, "b").await),
        "[{CASE}] deleting is per user"
    );
    assert!(ok(CASE, "empty", store.list_facts(&other, 10, 0).await).is_empty());
}

pub async fn fact_input_limits(store: &dyn Store) {
    const CASE: &str = "fact_input_limits";
    let user = fresh_user(CASE);
    let secret = "sk-live-4f9a";
    let nul = new_fact("token", &format!("{secret}\0"), FactSource::User);
    refused(
        CASE,
        "NUL value",
        store.upsert_fact(&user, &nul, T0).await,
        secret,
    );
    let empty = new_fact("", "v", FactSource::User);
    refused(
        CASE,
        "empty key",
        store.upsert_fact(&user, &empty, T0).await,
        "",
    );
    let long = new_fact(
        &"k".repeat(steward_protocol::MAX_FACT_KEY_LEN + 1),
        "v",
        FactSource::User,
    );
    refused(
        CASE,
        "long key",
        store.upsert_fact(&user, &long, T0).await,
        "",
    );
    for confidence in [f32::NAN, -0.5, 1.5] {
        let mut bad = new_fact("k", "v", FactSource::User);
        bad.confidence = confidence;
        refused(
            CASE,
            "confidence",
            store.upsert_fact(&user, &bad, T0).await,
            "",
        );
    }
    let fine = new_fact("k", "v", FactSource::User);
    refused(
        CASE,
        "empty user",
        store.upsert_fact("", &fine, T0).await,
        "",
    );
    refused(CASE, "get empty key", store.get_fact(&user, "").await, "");
    assert!(
        ok(CASE, "nothing stored", store.list_facts(&user, 10, 0).await).is_empty(),
        "[{CASE}] refused writes store nothing"
    );
}
