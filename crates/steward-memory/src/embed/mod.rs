//! Embedders (in progress).
