//! steward-store (in progress)
