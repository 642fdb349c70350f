//! Memory: what Steward remembers about its user, and how it is found again.
//!
//! Owns: embedders (local MiniLM, remote APIs), hybrid recall (FTS5 + vectors fused by
//! reciprocal rank), the per-turn context block under a token budget (fenced as data), fact
//! extraction through a quality gate in code, source trust, reflection and retention.
//! Does not own: SQL (steward-store), chat prompts (steward-core), tools (steward-tools).

mod browse;
pub mod config;
pub mod context;
mod curate;
pub mod embed;
pub mod fusion;
pub mod gate;
pub mod memory;
pub mod recall;
pub mod relevance;

pub use config::{MemoryConfig, MemoryError};
pub use memory::Memory;
pub use recall::{RecallHit, RecallMode, RecallOptions};
pub use relevance::{SimilarityFloor, Strength};
pub mod candidates;
pub mod extract;
pub mod reflect;
pub mod retention;

pub use candidates::{FactCounts, Refusal};
pub use extract::{Exchange, ExtractionReport};
pub use reflect::ReflectionReport;
pub use retention::{RetentionPlan, RetentionReport};
