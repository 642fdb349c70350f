//! The history side of the desk: how each action left `pending` (its decisive audit entry),
//! the whole trail of one action, and the pending count a badge shows.
//!
//! Owns: which audit events are decisions (`DecisionKind`, the same words `resolve.rs` writes)
//! and the trail as surfaces see it (detail parsed from its JSON). Does not own: writing the
//! trail (`resolve.rs`, `record.rs`) or how a surface shows it.

use super::record::{Approvals, store_err};
use crate::port::ApprovalError;
use std::collections::HashMap;
use steward_protocol::{ActionDecided, ActionStatus, AuditStep, DecisionKind, PendingAction};
use steward_store::{AuditEntry, MAX_AUDIT_BATCH};

/// The entry's detail as data: absent when empty. The store accepts only JSON (or nothing),
/// so text that does not parse is a record written outside Steward; it is shown as a string
/// rather than dropped.
fn detail(raw: &str) -> Option<serde_json::Value> {
    if raw.is_empty() {
        return None;
    }
    Some(serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.to_owned())))
}

fn step(entry: AuditEntry) -> AuditStep {
    AuditStep {
        detail: detail(&entry.detail),
        event: entry.event,
        by: entry.principal,
        surface: entry.surface,
        at_ms: entry.at_ms,
    }
}

fn decided(entry: AuditEntry) -> Option<ActionDecided> {
    Some(ActionDecided {
        decision: DecisionKind::from_event(&entry.event)?,
        by: entry.principal,
        surface: entry.surface,
        at_ms: entry.at_ms,
    })
}

impl Approvals {
    /// `ApprovalDesk::decisions`: one store query per `MAX_AUDIT_BATCH` decided actions.
    /// An action still pending in the slice it was listed in has no decision, even if one is
    /// made while this runs: the answer agrees with the status the caller shows.
    pub(crate) async fn decisions(
        &self,
        actions: &[PendingAction],
    ) -> Result<Vec<Option<ActionDecided>>, ApprovalError> {
        let ids: Vec<String> = actions
            .iter()
            .filter(|a| a.status != ActionStatus::Pending)
            .map(|a| a.id.clone())
            .collect();
        let events = DecisionKind::ALL.map(DecisionKind::as_str);
        let mut found: HashMap<String, ActionDecided> = HashMap::new();
        for chunk in ids.chunks(MAX_AUDIT_BATCH) {
            let entries = self
                .store
                .first_audit_of(chunk, &events)
                .await
                .map_err(store_err)?;
            for entry in entries {
                let id = entry.action_id.clone();
                if let Some(d) = decided(entry) {
                    found.insert(id, d);
                }
            }
        }
        Ok(actions
            .iter()
            .map(|a| match a.status {
                ActionStatus::Pending => None,
                _ => found.get(&a.id).cloned(),
            })
            .collect())
    }

    /// `ApprovalDesk::trail`: every entry, oldest first; an unknown action is `NotFound`.
    pub(crate) async fn trail(&self, id: &str) -> Result<Vec<AuditStep>, ApprovalError> {
        if self
            .store
            .get_action(id)
            .await
            .map_err(store_err)?
            .is_none()
        {
            return Err(ApprovalError::NotFound);
        }
        let entries = self.store.list_audit(id).await.map_err(store_err)?;
        Ok(entries.into_iter().map(step).collect())
    }

    /// `ApprovalDesk::pending_count`.
    pub(crate) async fn pending_count(&self) -> Result<u64, ApprovalError> {
        self.store
            .count_actions(ActionStatus::Pending)
            .await
            .map_err(store_err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use steward_protocol::{PrincipalId, Surface};

    #[test]
    fn detail_is_data_or_absent() {
        assert_eq!(detail(""), None);
        assert_eq!(
            detail(r#"{"was":"running"}"#),
            Some(serde_json::json!({"was": "running"}))
        );
        assert_eq!(
            detail("<script>x</script>"),
            Some(serde_json::Value::String("<script>x</script>".into()))
        );
    }

    #[test]
    fn only_the_decision_words_decide() {
        let entry = |event: &str| AuditEntry {
            action_id: "a1".into(),
            at_ms: 7,
            principal: PrincipalId::parse("ann").unwrap(),
            surface: Surface::Web,
            event: event.into(),
            detail: String::new(),
            trace_id: "t".into(),
        };
        let d = decided(entry("cancel")).unwrap();
        assert_eq!(
            (d.decision, d.by.as_str(), d.surface, d.at_ms),
            (DecisionKind::Cancel, "ann", Surface::Web, 7)
        );
        assert!(decided(entry("executed")).is_none());
        assert!(decided(entry("revise")).is_none());
    }
}
