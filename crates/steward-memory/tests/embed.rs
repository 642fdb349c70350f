//! Embedder tests: the local MiniLM against reference values and semantic sanity checks, and
//! the remote embedders against small HTTP servers on 127.0.0.1.
//!
//! Owns: behaviour of `steward_memory::embed`. Does not own: recall quality over a corpus
//! (tests/retrieval_eval.rs). The local tests need scripts/fetch-model.sh to have run; they
//! fail (never skip) when the model is absent.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[cfg(feature = "local-embed")]
#[path = "embed/local.rs"]
mod local;
#[path = "embed/remote.rs"]
mod remote;
