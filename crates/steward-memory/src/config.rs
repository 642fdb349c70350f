//! `MemoryConfig` (the knobs of recall, context and the gate) and `MemoryError`.
//!
//! Owns: defaults and the error vocabulary of this crate's logic. Does not own: where the
//! values come from (the config registry in the binary) or store/embedder errors themselves.

use crate::embed::EmbedError;
use crate::relevance::SimilarityFloor;
use steward_store::StoreError;

/// Tunables for recall, the context block and the quality gate.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryConfig {
    /// Hard cap on recall results, whatever a caller asks for (default 20).
    pub recall_max: usize,
    /// Token budget of the per-turn context block (default 1000; tokens ≈ ceil(chars / 4)).
    pub context_budget_tokens: usize,
    /// Minimum fused recall score for a note or summary to enter the context. The default,
    /// 1/(60+10), admits an item ranked in the top 10 of one list, or lower in both.
    pub relevance_threshold: f64,
    /// Reciprocal rank fusion constant k (default 60).
    pub rrf_k: f64,
    /// Candidates from extraction or reflection below this confidence are refused (default 0.7).
    pub min_confidence: f32,
    /// The cosine similarity under which a row found only by its vector is not recalled
    /// (default: the embedding model's measured floor, see `relevance`).
    pub similarity_floor: SimilarityFloor,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            recall_max: 20,
            context_budget_tokens: 1000,
            relevance_threshold: 1.0 / (60.0 + 10.0),
            rrf_k: 60.0,
            min_confidence: 0.7,
            similarity_floor: SimilarityFloor::ForModel,
        }
    }
}

/// Errors of the memory logic. Messages never carry stored values or keys of credentials.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("memory store: {0}")]
    Store(#[from] StoreError),
    #[error("embedder: {0}")]
    Embed(#[from] EmbedError),
    /// The model call for extraction or reflection failed, or its answer was unusable.
    #[error("memory model call: {0}")]
    Model(String),
    /// The caller passed something memory refuses (bad key, empty prefix, untrusted origin...).
    #[error("invalid memory input: {0}")]
    Invalid(String),
}
