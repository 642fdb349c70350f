//! `steward doctor` (in progress).
