//! Contract cases for `TurnRequestStore`: round trip of every field, replace on save, pruning
//! by age, and the input limits.

use super::{fresh_conversation, fresh_namespace, ok, refused};
use crate::{Store, TurnRequest};

fn record(case: &str, suffix: &str, created_at_ms: i64) -> TurnRequest {
    let ns = fresh_namespace(case);
    TurnRequest {
        key: format!("{ns}{suffix}"),
        conversation: fresh_conversation(case),
        turn_id: format!("turn-{suffix}"),
        fingerprint: "f".repeat(64),
        user_stored: false,
        outcome: None,
        created_at_ms,
        updated_at_ms: created_at_ms,
    }
}

pub async fn turn_request_round_trip_and_replace(store: &dyn Store) {
    const CASE: &str = "turn_request_round_trip_and_replace";
    let mut r = record(CASE, "a", 1_000);
    assert_eq!(
        ok(CASE, "get missing", store.turn_request(&r.key).await),
        None,
        "[{CASE}] nothing before the first save"
    );
    ok(CASE, "save", store.save_turn_request(&r).await);
    assert_eq!(
        ok(CASE, "get", store.turn_request(&r.key).await).as_ref(),
        Some(&r),
        "[{CASE}] every field round-trips"
    );
    r.user_stored = true;
    r.outcome = Some(r#"[{"type":"final","text":"ünïcode ✓"}]"#.into());
    r.updated_at_ms = 2_000;
    ok(CASE, "replace", store.save_turn_request(&r).await);
    assert_eq!(
        ok(CASE, "get replaced", store.turn_request(&r.key).await).as_ref(),
        Some(&r),
        "[{CASE}] a second save replaces every field"
    );
}

pub async fn turn_requests_pruned_by_age(store: &dyn Store) {
    const CASE: &str = "turn_requests_pruned_by_age";
    // Far in the past, so other cases' records (created "now") are never pruned by this one.
    let old = record(CASE, "old", -5_000_000);
    let young = record(CASE, "young", -4_000_000);
    ok(CASE, "save old", store.save_turn_request(&old).await);
    ok(CASE, "save young", store.save_turn_request(&young).await);
    let gone = ok(CASE, "prune", store.prune_turn_requests(-4_500_000).await);
    assert!(
        gone >= 1,
        "[{CASE}] the old record is pruned (gone: {gone})"
    );
    assert_eq!(
        ok(CASE, "get old", store.turn_request(&old.key).await),
        None,
        "[{CASE}] old record gone"
    );
    assert!(
        ok(CASE, "get young", store.turn_request(&young.key).await).is_some(),
        "[{CASE}] a younger record stays"
    );
}

pub async fn turn_request_input_limits(store: &dyn Store) {
    const CASE: &str = "turn_request_input_limits";
    let good = record(CASE, "k", 1);
    refused(CASE, "empty key", store.turn_request("").await, "");
    refused(CASE, "key with NUL", store.turn_request("a\0b").await, "");
    refused(
        CASE,
        "oversized key",
        store
            .save_turn_request(&TurnRequest {
                key: "k".repeat(129),
                ..good.clone()
            })
            .await,
        "",
    );
    refused(
        CASE,
        "empty turn id",
        store
            .save_turn_request(&TurnRequest {
                turn_id: String::new(),
                ..good.clone()
            })
            .await,
        "",
    );
    refused(
        CASE,
        "outcome with NUL",
        store
            .save_turn_request(&TurnRequest {
                outcome: Some("a\0b".into()),
                ..good.clone()
            })
            .await,
        "",
    );
    refused(
        CASE,
        "oversized outcome",
        store
            .save_turn_request(&TurnRequest {
                outcome: Some("x".repeat(crate::MAX_TEXT_LEN + 1)),
                ..good.clone()
            })
            .await,
        "",
    );
    assert_eq!(
        ok(
            CASE,
            "get after refusals",
            store.turn_request(&good.key).await
        ),
        None,
        "[{CASE}] a refused save stores nothing"
    );
}
