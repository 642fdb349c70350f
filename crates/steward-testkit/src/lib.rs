//! steward-testkit (in progress)
