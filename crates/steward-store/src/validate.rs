//! Input limits shared by every adapter, so that all of them refuse the same inputs with the same
//! `InvalidInput` errors. Owns the limits; does not own any storage. Error messages describe the
//! problem (sizes, positions) but never echo the offending text: it may be a secret.

mod approvals;
pub(crate) mod edge;
mod genre;
pub(crate) mod jobs;
pub(crate) mod memory;
pub(crate) mod tasks;
mod text;
pub(crate) mod usage;
pub(crate) mod vault;

pub(crate) use approvals::{
    action, action_id, audit, audit_batch, grant, grant_id, id, patch, score, text as free_text,
    tool_name,
};
pub use text::{NUL_REPLACEMENT, storable};

use crate::StoreError;
use steward_protocol::{Message, ToolCall};

/// Longest accepted KV key, in bytes.
pub const MAX_KV_KEY_LEN: usize = 512;
/// Longest accepted KV value, in bytes (1 MiB).
pub const MAX_KV_VALUE_LEN: usize = 1024 * 1024;
/// Longest accepted trace id, principal, payload hash or request key, in bytes (action,
/// grant and turn ids follow `steward_protocol`'s rules).
pub const MAX_ID_LEN: usize = 128;
/// Longest accepted score name or audit event, in bytes (tool names follow
/// `steward_protocol::ToolName`).
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

/// The messages as they are stored: every text field (content, tool-call ids, names and
/// arguments, the result's call id and tool name) through the one scrub (`text::storable`).
/// Nothing in a message is refused: a stray NUL from a model or a tool must never fail a turn.
pub(crate) fn messages(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .map(|m| Message {
            role: m.role,
            content: storable(&m.content).into_owned(),
            tool_calls: m
                .tool_calls
                .iter()
                .map(|c| ToolCall {
                    id: storable(&c.id).into_owned(),
                    name: storable(&c.name).into_owned(),
                    arguments: storable(&c.arguments).into_owned(),
                })
                .collect(),
            tool_call_id: text::storable_opt(&m.tool_call_id),
            tool_name: text::storable_opt(&m.tool_name),
            // Validated values (types, names, hashes): nothing in them to scrub.
            attachments: m.attachments.clone(),
        })
        .collect()
}

pub(crate) fn no_nul(what: &str, text: &str) -> Result<(), StoreError> {
    match text.find('\0') {
        Some(at) => Err(StoreError::InvalidInput(format!(
            "{what} contains a NUL character at byte {at}; stores cannot hold NUL"
        ))),
        None => Ok(()),
    }
}

/// A turn request as it is stored, or why it cannot be.
pub(crate) fn turn_request(request: &crate::TurnRequest) -> Result<(), StoreError> {
    id("turn request key", &request.key)?;
    steward_protocol::TurnId::parse(&request.turn_id)
        .map_err(|e| StoreError::InvalidInput(e.to_string()))?;
    id("turn request fingerprint", &request.fingerprint)?;
    if let Some(outcome) = &request.outcome {
        free_text("turn request outcome", outcome)?;
    }
    Ok(())
}

/// A session's id; a session as it is stored, or why it cannot be.
pub(crate) fn session_id(raw: &str) -> Result<(), StoreError> {
    id("session id", raw)
}

/// A secret hash is a SHA-256 in lower-case hex, so a raw secret handed in by mistake is
/// refused rather than stored.
pub(crate) fn secret_hash(raw: &str) -> Result<(), StoreError> {
    let hex = raw.len() == 64 && raw.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if hex {
        Ok(())
    } else {
        Err(StoreError::InvalidInput(
            "session secret hash must be 64 lower-case hex digits (a SHA-256)".into(),
        ))
    }
}

pub(crate) fn session(session: &crate::Session) -> Result<(), StoreError> {
    session_id(&session.id)?;
    secret_hash(&session.secret_hash)?;
    if let Some(agent) = &session.user_agent {
        if agent.len() > crate::MAX_USER_AGENT_LEN {
            return Err(StoreError::InvalidInput(format!(
                "session user agent is {} bytes; the limit is {}",
                agent.len(),
                crate::MAX_USER_AGENT_LEN
            )));
        }
        no_nul("session user agent", agent)?;
    }
    Ok(())
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
    fn every_message_field_is_scrubbed_and_the_rest_kept() {
        let call = ToolCall {
            id: "c\0-1".into(),
            name: "t\0".into(),
            arguments: "{\0}".into(),
        };
        let mut tool = Message::tool_result(&call, "out\0put");
        tool.tool_name = Some("n\0".into());
        let clean = messages(&[
            Message::user("fine\0"),
            Message::assistant("", vec![call]),
            tool,
        ]);
        let r = NUL_REPLACEMENT;
        assert_eq!(clean[0].content, format!("fine{r}"));
        assert_eq!(clean[1].tool_calls[0].id, format!("c{r}-1"));
        assert_eq!(clean[1].tool_calls[0].name, format!("t{r}"));
        assert_eq!(clean[1].tool_calls[0].arguments, format!("{{{r}}}"));
        assert_eq!(clean[2].content, format!("out{r}put"));
        assert_eq!(
            clean[2].tool_call_id.as_deref(),
            Some(format!("c{r}-1").as_str())
        );
        assert_eq!(
            clean[2].tool_name.as_deref(),
            Some(format!("n{r}").as_str())
        );
        assert_eq!(clean[1].role, steward_protocol::Role::Assistant);
        let ok = [Message::user("tab\tand\u{1b}escape 🦀")];
        assert_eq!(messages(&ok), ok);
    }
}
