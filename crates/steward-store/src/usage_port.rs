//! The `UsageStore` port: the usage ledger, one record per model call that answered, and its
//! read side by time. Owns the storage semantics (documented here, enforced by `contract`);
//! does not own prices (steward-llm's `PriceTable`, applied by the recorder), what a day is
//! (steward-core's roll-up, in the owner's time zone) or when a call is recorded (core).
//!
//! Limits (every adapter refuses the rest with `InvalidInput`): `at_secs` ≥ 0; model 1..=256
//! bytes, genre 1..=64, turn id 1..=128, all without NUL. Token counts and costs are a
//! provider's word, so they are clamped to `MAX_USAGE_TOKENS` / `MAX_USAGE_COST_MICRO_USD`
//! rather than refused: a record is never lost to an absurd number.

use crate::StoreError;
use std::sync::Arc;
use steward_protocol::ConversationId;

/// Width of one `UsageBucket`, in seconds. Every time zone's offset from UTC, and every
/// change of offset, falls on a quarter hour, so a bucket never straddles a local midnight
/// and a roll-up into local days from buckets is exact.
pub const USAGE_BUCKET_SECS: i64 = 900;

/// Most tokens one record keeps per direction (2^40, about 10^12); more is clamped.
pub const MAX_USAGE_TOKENS: u64 = 1 << 40;

/// Most micro-USD one record keeps (2^43, about 8.8 million dollars); more is clamped.
pub const MAX_USAGE_COST_MICRO_USD: u64 = 1 << 43;

/// What a model call was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UsagePurpose {
    /// A round of a turn (answering the owner, or a follow-up after an approved action).
    Turn,
    /// Post-turn fact extraction.
    Extraction,
}

impl UsagePurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            UsagePurpose::Turn => "turn",
            UsagePurpose::Extraction => "extraction",
        }
    }

    pub fn parse(s: &str) -> Option<UsagePurpose> {
        match s {
            "turn" => Some(UsagePurpose::Turn),
            "extraction" => Some(UsagePurpose::Extraction),
            _ => None,
        }
    }
}

/// One model call's usage, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageRecord {
    /// Unix seconds of the answer, by the recorder's clock.
    pub at_secs: i64,
    /// None for work outside a conversation (scheduled jobs, later).
    pub conversation: Option<ConversationId>,
    /// The turn (also its trace id); None outside a turn.
    pub turn_id: Option<String>,
    /// `"provider:model"` that answered (the fallback's name after a fallback).
    pub model: String,
    pub purpose: UsagePurpose,
    /// The turn's surface (`cli`, `http`, ...); a job's genre once jobs exist.
    pub genre: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// None: the model has no price (shown as "no price", never as $0).
    pub cost_micro_usd: Option<u64>,
}

/// The records of one model in one `USAGE_BUCKET_SECS` window, summed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageBucket {
    /// Unix seconds where the window starts (a multiple of `USAGE_BUCKET_SECS`).
    pub start_secs: i64,
    pub model: String,
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Sum over the priced calls only.
    pub cost_micro_usd: u64,
    /// Calls whose model had no price.
    pub unpriced_calls: u64,
}

#[async_trait::async_trait]
pub trait UsageStore: Send + Sync {
    /// Append one record (token counts and cost clamped, see the module header).
    async fn record_usage(&self, record: &UsageRecord) -> Result<(), StoreError>;
    /// Records with `since_secs <= at_secs < until_secs`, summed per bucket and model,
    /// ordered by bucket start, then model.
    async fn usage_buckets(
        &self,
        since_secs: i64,
        until_secs: i64,
    ) -> Result<Vec<UsageBucket>, StoreError>;
}

#[async_trait::async_trait]
impl<T: UsageStore + ?Sized> UsageStore for Arc<T> {
    async fn record_usage(&self, record: &UsageRecord) -> Result<(), StoreError> {
        (**self).record_usage(record).await
    }

    async fn usage_buckets(
        &self,
        since_secs: i64,
        until_secs: i64,
    ) -> Result<Vec<UsageBucket>, StoreError> {
        (**self).usage_buckets(since_secs, until_secs).await
    }
}
