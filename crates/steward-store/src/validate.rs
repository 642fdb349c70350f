//! Input limits shared by every adapter, so that all of them refuse the same inputs with the same
//! `InvalidInput` errors. Owns the limits; does not own any storage. Error messages describe the
//! problem (sizes, positions) but never echo the offending text: it may be a secret.

mod approvals;
pub(crate) mod memory;

pub(crate) use approvals::{action, audit, grant, id, name, patch, score};

use crate::StoreError;
use steward_protocol::Message;

/// Longest accepted KV key, in bytes.
pub const MAX_KV_KEY_LEN: usize = 512;
/// Longest accepted KV value, in bytes (1 MiB).
pub const MAX_KV_VALUE_LEN: usize = 1024 * 1024;
/// Longest accepted id (action, grant, trace, principal), in bytes.
pub const MAX_ID_LEN: usize = 128;
/// Longest accepted tool name, score name or audit event, in bytes.
pub const MAX_NAME_LEN: usize = 64;
/// Longest accepted free text of an action or audit entry (arguments, preview, outcome,
/// detail), in bytes (1 MiB).
pub const MAX_TEXT_LEN: usize = 1024 * 1024;

pub(crate) fn kv_key(key: &str) -> Result<(), StoreError> {
    key_like("kv key", key)
}

/// A prefix follows the key rules (anything else could never match), and must not be empty.
pub(crate) fn kv_prefix(prefix: &str) -> Result<(), StoreError> {
    key_like("kv prefix", prefix)
}

fn key_like(what: &str, key: &str) -> Result<(), StoreError> {
    if key.is_empty() {
        return Err(StoreError::InvalidInput(format!("{what} is empty")));
    }
    if key.len() > MAX_KV_KEY_LEN {
        return Err(StoreError::InvalidInput(format!(
            "{what} is {} bytes; the limit is {MAX_KV_KEY_LEN}",
            key.len()
        )));
    }
    no_nul(what, key)
}

pub(crate) fn kv_value(value: &str) -> Result<(), StoreError> {
    if value.len() > MAX_KV_VALUE_LEN {
        return Err(StoreError::InvalidInput(format!(
            "kv value is {} bytes; the limit is {MAX_KV_VALUE_LEN}",
            value.len()
        )));
    }
    no_nul("kv value", value)
}

/// Checks every text field of every message, before any of them is written.
pub(crate) fn messages(messages: &[Message]) -> Result<(), StoreError> {
    for (i, m) in messages.iter().enumerate() {
        let field = |name: &str| format!("message {i} {name}");
        no_nul(&field("content"), &m.content)?;
        for (j, call) in m.tool_calls.iter().enumerate() {
            no_nul(&field(&format!("tool call {j} id")), &call.id)?;
            no_nul(&field(&format!("tool call {j} name")), &call.name)?;
            no_nul(&field(&format!("tool call {j} arguments")), &call.arguments)?;
        }
        if let Some(id) = &m.tool_call_id {
            no_nul(&field("tool_call_id"), id)?;
        }
        if let Some(name) = &m.tool_name {
            no_nul(&field("tool_name"), name)?;
        }
    }
    Ok(())
}

pub(crate) fn no_nul(what: &str, text: &str) -> Result<(), StoreError> {
    match text.find('\0') {
        Some(at) => Err(StoreError::InvalidInput(format!(
            "{what} contains a NUL character at byte {at}; stores cannot hold NUL"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use steward_protocol::ToolCall;

    #[test]
    fn key_limits_are_inclusive_at_the_boundary() {
        assert!(kv_key(&"k".repeat(MAX_KV_KEY_LEN)).is_ok());
        assert!(kv_key(&"k".repeat(MAX_KV_KEY_LEN + 1)).is_err());
        assert!(kv_key("").is_err());
        assert!(kv_key("a\0b").is_err());
        assert!(kv_value(&"v".repeat(MAX_KV_VALUE_LEN)).is_ok());
        assert!(kv_value(&"v".repeat(MAX_KV_VALUE_LEN + 1)).is_err());
        assert!(kv_value("").is_ok());
    }

    #[test]
    fn errors_never_echo_the_input() {
        let secret = format!("sk-live-{}", "x".repeat(MAX_KV_VALUE_LEN));
        let msg = kv_value(&secret).map(|_| ()).unwrap_err().to_string();
        assert!(!msg.contains("sk-live"), "{msg}");
        let msg = kv_key("sk-live\0").unwrap_err().to_string();
        assert!(!msg.contains("sk-live"), "{msg}");
    }

    #[test]
    fn nul_is_found_in_any_message_field() {
        let call = ToolCall {
            id: "c1".into(),
            name: "t".into(),
            arguments: "{\0}".into(),
        };
        let bad = [Message::user("fine"), Message::assistant("", vec![call])];
        let msg = messages(&bad).unwrap_err().to_string();
        assert!(msg.contains("message 1 tool call 0 arguments"), "{msg}");
        let mut tool = Message::user("x");
        tool.tool_name = Some("n\0".into());
        assert!(messages(&[tool]).is_err());
        assert!(messages(&[Message::user("tab\tand\u{1b}escape 🦀")]).is_ok());
    }
}
