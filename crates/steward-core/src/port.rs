//! The port every surface talks to. A surface hands in an `Inbound` and projects the
//! `TurnEvent`s it gets back; it never calls the model, tools or store itself.

use steward_protocol::{Inbound, TurnEvent};
use tokio::sync::mpsc;

/// The events of one turn: exactly one `Started` first, exactly one terminal event
/// (`Final` or `Failed`) last, then the channel closes.
pub type TurnStream = mpsc::Receiver<TurnEvent>;

/// What a surface needs from the assistant.
pub trait Assistant: Send + Sync + 'static {
    /// Queue a turn. Never blocks: turns in one conversation run one at a time in the
    /// order `submit` was called; different conversations run concurrently.
    fn submit(&self, inbound: Inbound) -> TurnStream;
}
