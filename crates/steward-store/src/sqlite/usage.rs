//! `UsageStore` for SQLite. Owns the model_usage SQL; limits and clamping are in
//! `crate::validate::usage` so every adapter treats records alike.
//!
//! Sums use `TOTAL()` (a float, which never overflows) rather than `SUM()` (which raises an
//! error past i64): integer sums are exact in a float up to 2^53, far beyond any real ledger,
//! and a provider that reports absurd numbers cannot make the roll-up fail.

use super::{SqliteStore, decode_err};
use crate::{StoreError, USAGE_BUCKET_SECS, UsageBucket, UsageRecord, UsageStore, validate};
use rusqlite::params;

const INSERT: &str = "INSERT INTO model_usage \
     (at_secs, conversation_id, turn_id, model, purpose, genre, input_tokens, output_tokens, \
      cost_micro_usd) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";

// `at_secs` is never negative (CHECK), so `%` rounds down to the bucket's start.
const BUCKETS: &str = "SELECT at_secs - (at_secs % ?3) AS start, model, COUNT(*), \
     TOTAL(input_tokens), TOTAL(output_tokens), TOTAL(cost_micro_usd), \
     TOTAL(cost_micro_usd IS NULL) \
     FROM model_usage WHERE at_secs >= ?1 AND at_secs < ?2 \
     GROUP BY start, model ORDER BY start, model";

/// Stored counts are clamped far below i64::MAX, so these conversions never saturate in
/// practice; a negative count (never written) reads as 0.
fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// A `TOTAL()` of non-negative integers back to an integer (float-to-int `as` saturates).
fn total(v: f64) -> u64 {
    v.round() as u64
}

#[async_trait::async_trait]
impl UsageStore for SqliteStore {
    async fn record_usage(&self, record: &UsageRecord) -> Result<(), StoreError> {
        let r = validate::usage::usage(record)?;
        let int = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        self.run(move |conn| {
            conn.prepare_cached(INSERT)?.execute(params![
                r.at_secs,
                r.conversation.as_ref().map(|c| c.as_str().to_owned()),
                r.turn_id,
                r.model,
                r.purpose.as_str(),
                r.genre,
                int(r.input_tokens),
                int(r.output_tokens),
                r.cost_micro_usd.map(int),
            ])?;
            Ok(())
        })
        .await
    }

    async fn usage_buckets(
        &self,
        since_secs: i64,
        until_secs: i64,
    ) -> Result<Vec<UsageBucket>, StoreError> {
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(BUCKETS)?;
            let rows = stmt.query_map(params![since_secs, until_secs, USAGE_BUCKET_SECS], |r| {
                Ok(UsageBucket {
                    start_secs: r.get(0)?,
                    model: r.get(1)?,
                    calls: count(r.get(2)?),
                    input_tokens: total(r.get(3)?),
                    output_tokens: total(r.get(4)?),
                    cost_micro_usd: total(r.get(5)?),
                    unpriced_calls: total(r.get(6)?),
                })
            })?;
            rows.collect::<Result<Vec<_>, _>>()
                .map_err(|e| decode_err("usage bucket", e))
        })
        .await
    }
}
