//! Recording each model call's usage in the store's ledger, priced at record time: a turn's
//! every round (`turn/mod.rs`) and the post-turn extraction call (`turn/memory.rs`).
//!
//! Owns: what a record holds and that recording never fails the work it records (a store
//! error is logged and the turn goes on). Does not own: prices (the `PriceTable` in
//! `AgentSettings`), the table (steward-store) or the roll-ups (`crate::usage`).

use steward_llm::PriceTable;
use steward_protocol::{ConversationId, Surface, TurnId, Usage};
use steward_store::{UsagePurpose, UsageRecord, UsageStore};

/// Where a model call happened.
#[derive(Debug, Clone)]
pub(crate) struct CallSite {
    pub(crate) conversation: ConversationId,
    pub(crate) turn_id: TurnId,
    pub(crate) surface: Surface,
    pub(crate) purpose: UsagePurpose,
}

/// Record one call that answered: `model` is the `"provider:model"` that did (the fallback
/// after a fallback), `usage` what it reported. Never fails.
pub(crate) async fn record(
    store: &dyn UsageStore,
    prices: &PriceTable,
    now_secs: i64,
    site: &CallSite,
    model: &str,
    usage: Usage,
) {
    let record = UsageRecord {
        at_secs: now_secs,
        conversation: Some(site.conversation.clone()),
        turn_id: Some(site.turn_id.as_str().to_owned()),
        model: model.to_owned(),
        purpose: site.purpose,
        genre: site.surface.as_str().to_owned(),
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cost_micro_usd: prices.cost_micro_usd(model, usage),
    };
    if let Err(e) = store.record_usage(&record).await {
        tracing::warn!(error = %e, purpose = site.purpose.as_str(), "model usage not recorded");
    }
}
