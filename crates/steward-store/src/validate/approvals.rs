//! Input limits for the approval records (actions, audit entries, patches, scores, grants), so
//! every adapter refuses the same inputs, and the one scrub (`super::text`) for their free text:
//! `action`, `patch` and `audit` return the record as it must be stored, and adapters write
//! that copy. Previews and outcomes are sanitised (NUL replaced, cut to `MAX_TEXT_LEN`), never
//! refused, so recording a tool's result cannot fail on what the tool printed. Identifiers and
//! the hash-bound payload (tool, arguments) are refused instead: rewriting them would break
//! what an approval binds to. Like the rest of `validate`, messages name the field and the
//! problem but never echo the text: arguments and outcomes may hold secrets. Action and grant
//! ids and tool names follow `steward_protocol::{ActionId, GrantId, ToolName}`, the rule
//! every surface uses.

use super::text::{storable, storable_within};
use super::{MAX_ID_LEN, MAX_NAME_LEN, MAX_TEXT_LEN, no_nul};
use crate::approvals_port::{MAX_AUDIT_BATCH, MAX_AUDIT_EVENTS};
use crate::{ActionPatch, AuditEntry, Score, StoreError};
use steward_protocol::{ActionId, Grant, GrantId, PendingAction, ToolName, ValueError};

fn refused(err: ValueError) -> StoreError {
    StoreError::InvalidInput(err.to_string())
}

pub(crate) fn action_id(raw: &str) -> Result<(), StoreError> {
    ActionId::parse(raw).map(drop).map_err(refused)
}

pub(crate) fn grant_id(raw: &str) -> Result<(), StoreError> {
    GrantId::parse(raw).map(drop).map_err(refused)
}

pub(crate) fn tool_name(raw: &str) -> Result<(), StoreError> {
    ToolName::parse(raw).map(drop).map_err(refused)
}

pub(super) fn bounded(what: &str, text: &str, min: usize, max: usize) -> Result<(), StoreError> {
    if text.len() < min {
        return Err(StoreError::InvalidInput(format!("{what} is empty")));
    }
    if text.len() > max {
        return Err(StoreError::InvalidInput(format!(
            "{what} is {} bytes; the limit is {max}",
            text.len()
        )));
    }
    no_nul(what, text)
}

/// Trace ids, payload hashes and request keys (principals are `PrincipalId`s: valid by type).
pub(crate) fn id(what: &str, text: &str) -> Result<(), StoreError> {
    bounded(what, text, 1, MAX_ID_LEN)
}

/// Score names, audit events.
fn name(what: &str, text: &str) -> Result<(), StoreError> {
    bounded(what, text, 1, MAX_NAME_LEN)
}

pub(crate) fn text(what: &str, text: &str) -> Result<(), StoreError> {
    bounded(what, text, 0, MAX_TEXT_LEN)
}

/// Free text kept shortened rather than refused (previews, outcomes).
fn kept(text: &str) -> String {
    storable_within(text, MAX_TEXT_LEN).into_owned()
}

/// The action as it is stored, or why it cannot be.
pub(crate) fn action(action: &PendingAction) -> Result<PendingAction, StoreError> {
    action_id(&action.id)?;
    tool_name(&action.tool)?;
    text("action arguments", &action.arguments)?;
    id("action payload hash", &action.payload_hash)?;
    id("action trace id", &action.trace_id)?;
    Ok(PendingAction {
        preview: kept(&action.preview),
        outcome: action.outcome.as_deref().map(kept),
        ..action.clone()
    })
}

/// The entry as it is stored, or why it cannot be.
pub(crate) fn audit(entry: &AuditEntry) -> Result<AuditEntry, StoreError> {
    action_id(&entry.action_id)?;
    name("audit event", &entry.event)?;
    let entry = AuditEntry {
        detail: storable(&entry.detail).into_owned(),
        ..entry.clone()
    };
    text("audit detail", &entry.detail)?;
    // Empty means "no detail"; otherwise readers parse it, so it must be JSON.
    if !entry.detail.is_empty()
        && serde_json::from_str::<serde::de::IgnoredAny>(&entry.detail).is_err()
    {
        return Err(StoreError::InvalidInput(
            "audit detail is neither empty nor JSON".into(),
        ));
    }
    // A "refused" entry may have no trace to refer to.
    bounded("audit trace id", &entry.trace_id, 0, MAX_ID_LEN)?;
    Ok(entry)
}

/// The patch as it is stored, or why it cannot be.
pub(crate) fn patch(patch: &ActionPatch) -> Result<ActionPatch, StoreError> {
    if patch.arguments.is_some() != patch.payload_hash.is_some() {
        return Err(StoreError::InvalidInput(
            "a patch must change arguments and payload hash together".into(),
        ));
    }
    if let Some(arguments) = &patch.arguments {
        text("patch arguments", arguments)?;
    }
    if let Some(hash) = &patch.payload_hash {
        id("patch payload hash", hash)?;
    }
    Ok(ActionPatch {
        preview: patch.preview.as_deref().map(kept),
        outcome: patch.outcome.as_deref().map(kept),
        ..patch.clone()
    })
}

pub(crate) fn score(score: &Score) -> Result<(), StoreError> {
    id("score trace id", &score.trace_id)?;
    name("score name", &score.name)?;
    if !score.value.is_finite() {
        // SQLite would store NaN as NULL; infinities mean a bug upstream either way.
        return Err(StoreError::InvalidInput("score value is not finite".into()));
    }
    if let Some(id) = &score.action_id {
        action_id(id)?;
    }
    if let Some(genre) = &score.genre {
        super::genre::genre(genre)?;
    }
    Ok(())
}

/// The ids and event names of one `first_audit_of` call.
pub(crate) fn audit_batch(action_ids: &[String], events: &[&str]) -> Result<(), StoreError> {
    if action_ids.len() > MAX_AUDIT_BATCH {
        return Err(StoreError::InvalidInput(format!(
            "at most {MAX_AUDIT_BATCH} action ids at once"
        )));
    }
    if events.is_empty() || events.len() > MAX_AUDIT_EVENTS {
        return Err(StoreError::InvalidInput(format!(
            "1 to {MAX_AUDIT_EVENTS} audit events at once"
        )));
    }
    for id in action_ids {
        action_id(id)?;
    }
    for event in events {
        name("audit event", event)?;
    }
    Ok(())
}

pub(crate) fn grant(grant: &Grant) -> Result<(), StoreError> {
    grant_id(&grant.id)?;
    tool_name(&grant.tool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use steward_protocol::{ActionKind, ActionStatus, ConversationId, PrincipalId, Surface};

    fn sample() -> PendingAction {
        PendingAction {
            id: "a1".into(),
            kind: ActionKind::Tool,
            tool: "send_email".into(),
            arguments: "{}".into(),
            payload_hash: "ab".repeat(32),
            preview: String::new(),
            trace_id: "t1".into(),
            conversation: ConversationId::parse("c1").unwrap(),
            surface: Surface::Cli,
            principal: PrincipalId::parse("owner").unwrap(),
            created_at_ms: 0,
            expires_at_ms: 1,
            status: ActionStatus::Pending,
            revision: 0,
            awaiting_edit: false,
            outcome: None,
            updated_at_ms: 0,
        }
    }

    fn entry() -> AuditEntry {
        AuditEntry {
            action_id: "a1".into(),
            at_ms: 0,
            principal: PrincipalId::parse("owner").unwrap(),
            surface: Surface::Http,
            event: "confirm".into(),
            detail: String::new(),
            trace_id: String::new(),
        }
    }

    #[test]
    fn limits_are_inclusive_at_the_boundary() {
        let mut a = sample();
        a.id = "i".repeat(MAX_ID_LEN);
        a.tool = "t".repeat(MAX_NAME_LEN);
        assert!(action(&a).is_ok());
        a.id.push('i');
        assert!(action(&a).is_err());
        let mut a = sample();
        a.tool.push_str(&"t".repeat(MAX_NAME_LEN));
        assert!(action(&a).is_err());
        let mut a = sample();
        a.tool.clear();
        assert!(action(&a).is_err());
        let mut a = sample();
        a.arguments = "p".repeat(MAX_TEXT_LEN + 1);
        assert!(action(&a).is_err());
        let mut a = sample();
        a.arguments = "{\"a\":\"\0\"}".into();
        assert!(
            action(&a).is_err(),
            "the hash-bound payload is refused, not rewritten"
        );
    }

    #[test]
    fn previews_and_outcomes_are_sanitised_not_refused() {
        let mut a = sample();
        a.preview = "p".repeat(MAX_TEXT_LEN + 10);
        a.outcome = Some("out\0put".into());
        let stored = action(&a).unwrap();
        assert!(stored.preview.len() <= MAX_TEXT_LEN);
        assert!(stored.preview.contains("more bytes not stored"));
        assert_eq!(stored.outcome.as_deref(), Some("out\u{FFFD}put"));
        assert_eq!(stored.arguments, a.arguments);
        let p = ActionPatch {
            outcome: Some("x\0".repeat(MAX_TEXT_LEN)),
            preview: Some("y\0".into()),
            ..ActionPatch::default()
        };
        let stored = patch(&p).unwrap();
        let outcome = stored.outcome.unwrap();
        assert!(outcome.len() <= MAX_TEXT_LEN && !outcome.contains('\0'));
        assert_eq!(stored.preview.as_deref(), Some("y\u{FFFD}"));
    }

    #[test]
    fn audit_detail_must_be_empty_or_json_and_errors_do_not_echo_it() {
        let mut e = entry();
        assert!(audit(&e).is_ok());
        e.detail = r#"{"reason":"late"}"#.into();
        assert!(audit(&e).is_ok());
        e.detail = "sk-live-secret not json".into();
        let msg = audit(&e).unwrap_err().to_string();
        assert!(!msg.contains("sk-live"), "{msg}");
        e.detail = "{\"a\":1}\0".into();
        assert!(
            audit(&e).is_err(),
            "scrubbed, a trailing NUL is still not JSON"
        );
        e.detail = String::new();
        e.event = "e".repeat(MAX_NAME_LEN + 1);
        assert!(audit(&e).is_err());
    }

    #[test]
    fn an_audit_batch_is_bounded_and_each_part_checked() {
        let ids = |n: usize| (0..n).map(|i| format!("a{i}")).collect::<Vec<_>>();
        assert!(audit_batch(&[], &["confirm"]).is_ok());
        assert!(audit_batch(&ids(MAX_AUDIT_BATCH), &["confirm", "cancel"]).is_ok());
        assert!(audit_batch(&ids(MAX_AUDIT_BATCH + 1), &["confirm"]).is_err());
        assert!(audit_batch(&ids(1), &[]).is_err());
        assert!(audit_batch(&ids(1), &["e"; MAX_AUDIT_EVENTS + 1]).is_err());
        assert!(audit_batch(&["../x".to_owned()], &["confirm"]).is_err());
        assert!(audit_batch(&ids(1), &[""]).is_err());
        let long = "e".repeat(MAX_NAME_LEN + 1);
        assert!(audit_batch(&ids(1), &[long.as_str()]).is_err());
    }

    #[test]
    fn patch_arguments_and_hash_go_together() {
        assert!(patch(&ActionPatch::default()).is_ok());
        let half = ActionPatch {
            arguments: Some("{}".into()),
            ..ActionPatch::default()
        };
        assert!(patch(&half).is_err());
        let other_half = ActionPatch {
            payload_hash: Some("h".into()),
            ..ActionPatch::default()
        };
        assert!(patch(&other_half).is_err());
        let whole = ActionPatch {
            arguments: Some("{}".into()),
            payload_hash: Some("h".into()),
            ..ActionPatch::default()
        };
        assert!(patch(&whole).is_ok());
        let nul = ActionPatch {
            arguments: Some("{\0}".into()),
            payload_hash: Some("h".into()),
            ..ActionPatch::default()
        };
        assert!(patch(&nul).is_err());
    }

    #[test]
    fn scores_must_be_finite() {
        let mut s = Score {
            trace_id: "t".into(),
            name: "user_approval".into(),
            value: 1.0,
            action_id: None,
            genre: None,
            at_ms: 0,
        };
        assert!(score(&s).is_ok());
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            s.value = bad;
            assert!(score(&s).is_err());
        }
    }
}
