//! Input limits for the usage ledger (`UsageStore`), so every adapter refuses and clamps the
//! same way: identifiers and names are refused when out of bounds (a recorder bug), token
//! counts and costs are clamped (a provider's number, never a reason to lose the record).

use super::approvals::bounded;
use super::{MAX_ID_LEN, MAX_NAME_LEN};
use crate::{MAX_USAGE_COST_MICRO_USD, MAX_USAGE_TOKENS, StoreError, UsageRecord};

/// Longest accepted `"provider:model"`, in bytes (Ollama and Hugging Face names run long).
pub const MAX_MODEL_LEN: usize = 256;

/// The record as it must be stored, or why it cannot be.
pub(crate) fn usage(record: &UsageRecord) -> Result<UsageRecord, StoreError> {
    if record.at_secs < 0 {
        return Err(StoreError::InvalidInput(
            "usage time is before 1970".to_owned(),
        ));
    }
    bounded("usage model", &record.model, 1, MAX_MODEL_LEN)?;
    bounded("usage genre", &record.genre, 1, MAX_NAME_LEN)?;
    if let Some(turn) = &record.turn_id {
        bounded("usage turn id", turn, 1, MAX_ID_LEN)?;
    }
    Ok(UsageRecord {
        input_tokens: record.input_tokens.min(MAX_USAGE_TOKENS),
        output_tokens: record.output_tokens.min(MAX_USAGE_TOKENS),
        cost_micro_usd: record
            .cost_micro_usd
            .map(|c| c.min(MAX_USAGE_COST_MICRO_USD)),
        ..record.clone()
    })
}
