//! Memory: what Steward remembers about its user, and how it is found again.
//!
//! Owns: embedders (local MiniLM, remote APIs), hybrid recall (FTS5 + vectors fused by
//! reciprocal rank), the per-turn context block under a token budget (fenced as data), fact
//! extraction through a quality gate in code, source trust, reflection and retention.
//! Does not own: SQL (steward-store), chat prompts (steward-core), tools (steward-tools).

pub mod embed;
