//! Input limits for the edge records (`EdgeStore`), so every adapter refuses the same inputs:
//! the fields of a sent message (an `EdgeKey`'s one rule is its type's, in `edge_port.rs`). Like the rest of `validate`,
//! messages name the field and the problem, never the text.

use super::approvals::{action_id, id};
use super::genre::genre;
use crate::{SentMessage, StoreError};

/// A sent message as it is stored, or why it cannot be (its keys are valid by type).
pub(crate) fn sent(sent: &SentMessage) -> Result<(), StoreError> {
    id("sent message trace id", &sent.trace_id)?;
    genre(&sent.genre)?;
    if let Some(action) = &sent.action_id {
        action_id(action)?;
    }
    Ok(())
}
