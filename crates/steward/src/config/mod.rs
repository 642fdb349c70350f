//! Configuration registry (in progress).
