//! steward-tools (in progress)
