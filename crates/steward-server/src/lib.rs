//! steward-server (in progress)
