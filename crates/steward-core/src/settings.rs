//! Settings the agent loop reads on every turn, and `Live`: the one way a setting changes
//! while Steward runs.
//!
//! Owns: the plain settings structs and the shared cell they live in. Does not own: where a
//! new value comes from or whether it is valid (the binary's config registry checks it before
//! it calls `Steward::set_agent_settings` / `set_binding`).

use std::sync::RwLock;
use std::time::Duration;
use steward_llm::{ModelRef, PriceTable};

/// A value that may be replaced at runtime. Readers take a copy (a turn reads its settings
/// once, at its start, so a change never lands in the middle of one); a writer replaces the
/// whole value. A poisoned lock still holds a whole value (the writer only assigns), so it is
/// used as is.
#[derive(Debug, Default)]
pub(crate) struct Live<T>(RwLock<T>);

impl<T: Clone> Live<T> {
    pub(crate) fn new(value: T) -> Self {
        Self(RwLock::new(value))
    }

    pub(crate) fn get(&self) -> T {
        match self.0.read() {
            Ok(v) => v.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub(crate) fn set(&self, value: T) {
        match self.0.write() {
            Ok(mut v) => *v = value,
            Err(poisoned) => *poisoned.into_inner() = value,
        }
    }
}

/// Budgets and sizes for one turn. Read per turn: `Steward::set_agent_settings` changes them
/// from the next turn on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSettings {
    /// Model calls per turn (each round may run tools).
    pub max_rounds: u32,
    /// Input + output tokens per turn, summed over rounds.
    pub max_turn_tokens: u64,
    /// Wall clock for the whole turn.
    pub turn_timeout: Duration,
    /// Messages of history sent with each turn (trimmed so tool calls keep their results).
    pub history_messages: usize,
    pub max_output_tokens: u32,
    /// The owner's IANA time zone for the context line and time tools; None = UTC.
    pub timezone: Option<String>,
    /// What each model call costs, applied when its usage is recorded (`turn/ledger.rs`).
    pub prices: PriceTable,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            max_rounds: 8,
            max_turn_tokens: 200_000,
            turn_timeout: Duration::from_secs(300),
            history_messages: 40,
            max_output_tokens: 4096,
            timezone: None,
            prices: PriceTable::builtin(),
        }
    }
}

/// Which model answers. Read per turn, so it can change at runtime without a restart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelBinding {
    pub primary: Option<ModelRef>,
    pub fallback: Option<ModelRef>,
}

/// Memory in the turn: context injection before, fact extraction after.
#[derive(Clone)]
pub struct MemoryWiring {
    pub memory: std::sync::Arc<steward_memory::Memory>,
    /// Extract facts after each exchange (one extra model call, off the user's path).
    pub extract: bool,
    /// The model for extraction; None = the turn's primary model.
    pub extraction_model: Option<ModelRef>,
}
