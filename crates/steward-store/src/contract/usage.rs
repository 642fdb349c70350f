//! Contract cases for `UsageStore`: records summed per bucket and model (priced and unpriced
//! apart), the time window's bounds, clamping of absurd numbers, and the input limits.
//!
//! Other cases (and earlier runs) share the store, so every case names its own models and
//! reads only their buckets.

use super::{fresh_conversation, ok, refused};
use crate::{
    MAX_MODEL_LEN, MAX_USAGE_COST_MICRO_USD, MAX_USAGE_TOKENS, Store, USAGE_BUCKET_SECS,
    UsageBucket, UsagePurpose, UsageRecord,
};

fn fresh_model(case: &str) -> String {
    format!("contract:{case}-{}", uuid::Uuid::new_v4().simple())
}

fn record(model: &str, at_secs: i64, tokens: (u64, u64), cost: Option<u64>) -> UsageRecord {
    UsageRecord {
        at_secs,
        conversation: Some(fresh_conversation("usage")),
        turn_id: Some("turn-1".into()),
        model: model.to_owned(),
        purpose: UsagePurpose::Turn,
        genre: "cli".into(),
        input_tokens: tokens.0,
        output_tokens: tokens.1,
        cost_micro_usd: cost,
    }
}

async fn buckets_of(store: &dyn Store, case: &str, models: &[&str]) -> Vec<UsageBucket> {
    ok(case, "buckets", store.usage_buckets(0, i64::MAX).await)
        .into_iter()
        .filter(|b| models.contains(&b.model.as_str()))
        .collect()
}

pub async fn usage_sums_per_bucket_and_model(store: &dyn Store) {
    const CASE: &str = "usage_sums_per_bucket_and_model";
    let (a, b) = (fresh_model(CASE), fresh_model(CASE));
    // A bucket start far from "now", so no other case's records share it.
    let t0 = 1_000_000 * USAGE_BUCKET_SECS;
    let mut extraction = record(&a, t0 + 899, (5, 6), Some(7));
    extraction.purpose = UsagePurpose::Extraction;
    extraction.conversation = None;
    extraction.turn_id = None;
    for r in [
        record(&a, t0, (100, 20), Some(300)),
        record(&a, t0 + 10, (1, 2), None),
        extraction,
        // The next bucket.
        record(&a, t0 + 900, (1, 1), Some(1)),
        record(&b, t0 + 5, (40, 4), None),
    ] {
        ok(CASE, "record", store.record_usage(&r).await);
    }
    let got = buckets_of(store, CASE, &[&a, &b]).await;
    let (first, second) = if a < b { (&a, &b) } else { (&b, &a) };
    let mut want = vec![
        UsageBucket {
            start_secs: t0,
            model: a.clone(),
            calls: 3,
            input_tokens: 106,
            output_tokens: 28,
            cost_micro_usd: 307,
            unpriced_calls: 1,
        },
        UsageBucket {
            start_secs: t0,
            model: b.clone(),
            calls: 1,
            input_tokens: 40,
            output_tokens: 4,
            cost_micro_usd: 0,
            unpriced_calls: 1,
        },
    ];
    if first != &a {
        want.swap(0, 1);
    }
    want.push(UsageBucket {
        start_secs: t0 + 900,
        model: a.clone(),
        calls: 1,
        input_tokens: 1,
        output_tokens: 1,
        cost_micro_usd: 1,
        unpriced_calls: 0,
    });
    assert_eq!(
        got, want,
        "[{CASE}] summed per bucket, then model ({first} before {second})"
    );
    // The window: since is inclusive, until exclusive.
    let window = ok(CASE, "window", store.usage_buckets(t0 + 10, t0 + 900).await);
    let mine: Vec<_> = window.iter().filter(|x| x.model == a).collect();
    assert_eq!(mine.len(), 1, "[{CASE}] only the first bucket: {window:?}");
    assert_eq!(
        (mine[0].calls, mine[0].input_tokens),
        (2, 6),
        "[{CASE}] the record at t0 is before the window"
    );
}

pub async fn usage_clamps_absurd_numbers(store: &dyn Store) {
    const CASE: &str = "usage_clamps_absurd_numbers";
    let model = fresh_model(CASE);
    let at = 1_000_010 * USAGE_BUCKET_SECS;
    for _ in 0..3 {
        let r = record(&model, at, (u64::MAX, u64::MAX), Some(u64::MAX));
        ok(CASE, "record", store.record_usage(&r).await);
    }
    let got = buckets_of(store, CASE, &[&model]).await;
    assert_eq!(got.len(), 1, "[{CASE}] {got:?}");
    assert_eq!(got[0].input_tokens, 3 * MAX_USAGE_TOKENS, "[{CASE}]");
    assert_eq!(got[0].output_tokens, 3 * MAX_USAGE_TOKENS, "[{CASE}]");
    assert_eq!(
        got[0].cost_micro_usd,
        3 * MAX_USAGE_COST_MICRO_USD,
        "[{CASE}]"
    );
}

pub async fn usage_input_limits(store: &dyn Store) {
    const CASE: &str = "usage_input_limits";
    let model = fresh_model(CASE);
    let good = record(&model, 5, (1, 1), None);
    let secret = "sk-usage-secret-1234";
    let mut r = good.clone();
    r.model = String::new();
    refused(CASE, "empty model", store.record_usage(&r).await, "");
    r.model = format!("{secret}{}", "m".repeat(MAX_MODEL_LEN));
    refused(CASE, "long model", store.record_usage(&r).await, secret);
    r.model = format!("a:{secret}\0");
    refused(CASE, "NUL in model", store.record_usage(&r).await, secret);
    let mut r = good.clone();
    r.genre = String::new();
    refused(CASE, "empty genre", store.record_usage(&r).await, "");
    let mut r = good.clone();
    r.turn_id = Some(String::new());
    refused(CASE, "empty turn id", store.record_usage(&r).await, "");
    let mut r = good.clone();
    r.at_secs = -1;
    refused(CASE, "before 1970", store.record_usage(&r).await, "");
    assert!(
        buckets_of(store, CASE, &[&model]).await.is_empty(),
        "[{CASE}] nothing refused was stored"
    );
    let mut r = good;
    r.model = format!("p:{}", "m".repeat(MAX_MODEL_LEN - 2));
    ok(CASE, "longest model", store.record_usage(&r).await);
}
