//! Steward binary library: configuration, doctor, and the composition root used by main.

pub mod config;
pub mod doctor;
