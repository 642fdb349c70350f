//! Pending actions: a consequential tool call (or a plan of them) parked until a human
//! decides, and how it was decided as surfaces show it (`ActionDecided`, `AuditStep`). Only
//! `Approvals::resolve` in steward-core moves an action out of `Pending`.

use crate::{ConversationId, PrincipalId, Surface};
use serde::{Deserialize, Serialize};

/// States: pending → confirmed → running → executed | failed; pending → cancelled | expired.
/// A revision keeps the action pending with a new payload. `running` is written before the
/// tool starts, so after a crash an action left `confirmed` or `running` is known to be
/// interrupted and is reported as "it may have run", never as "it was not run".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActionStatus {
    Pending,
    Confirmed,
    /// The tool has been (or is being) started; its result is not recorded yet.
    Running,
    Executed,
    Failed,
    Cancelled,
    Expired,
}

impl ActionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionStatus::Pending => "pending",
            ActionStatus::Confirmed => "confirmed",
            ActionStatus::Running => "running",
            ActionStatus::Executed => "executed",
            ActionStatus::Failed => "failed",
            ActionStatus::Cancelled => "cancelled",
            ActionStatus::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pending" => ActionStatus::Pending,
            "confirmed" => ActionStatus::Confirmed,
            "running" => ActionStatus::Running,
            "executed" => ActionStatus::Executed,
            "failed" => ActionStatus::Failed,
            "cancelled" => ActionStatus::Cancelled,
            "expired" => ActionStatus::Expired,
            _ => return None,
        })
    }

    /// Every status, in the order of the state machine (for listings and tests).
    pub const ALL: [ActionStatus; 7] = [
        ActionStatus::Pending,
        ActionStatus::Confirmed,
        ActionStatus::Running,
        ActionStatus::Executed,
        ActionStatus::Failed,
        ActionStatus::Cancelled,
        ActionStatus::Expired,
    ];

    /// No transition leaves a terminal state.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            ActionStatus::Executed
                | ActionStatus::Failed
                | ActionStatus::Cancelled
                | ActionStatus::Expired
        )
    }
}

/// What kind of thing awaits approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// One tool call: `tool` + `arguments`.
    Tool,
    /// A plan of several consequential steps; `arguments` is `{"steps":[{"tool","arguments"}...]}`.
    Plan,
}

/// A human's decision on a pending action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run the action as shown. `revision` is the revision of the card the surface
    /// displayed (`ActionCard::revision`): approval binds to the effect the owner saw, so a
    /// card revised since then is not confirmed (the surface gets the current card back).
    Confirm {
        revision: u32,
    },
    Cancel,
    /// Replace the arguments; re-checked by the originating tool's validator; stays pending.
    Revise {
        arguments: serde_json::Value,
    },
}

impl Decision {
    pub fn name(&self) -> &'static str {
        match self {
            Decision::Confirm { .. } => "confirm",
            Decision::Cancel => "cancel",
            Decision::Revise { .. } => "revise",
        }
    }
}

/// How an action left `pending`: the decisive line of its audit trail. Exactly one such line
/// exists for every action that is no longer pending (the compare-and-set out of `pending`
/// writes it), so what ran, failed or was interrupted afterwards is the action's `status` and
/// `outcome`, not another decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// Someone confirmed it (it then ran, or failed, or was interrupted).
    Confirm,
    /// Someone cancelled it.
    Cancel,
    /// Nobody decided in time (the sweep, or a late decision that found it overdue).
    Expire,
}

impl DecisionKind {
    pub const ALL: [DecisionKind; 3] = [
        DecisionKind::Confirm,
        DecisionKind::Cancel,
        DecisionKind::Expire,
    ];

    /// The audit trail's word for it: the resolve path writes exactly these events.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Confirm => "confirm",
            DecisionKind::Cancel => "cancel",
            DecisionKind::Expire => "expire",
        }
    }

    /// The decision an audit event records, if it records one.
    pub fn from_event(event: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.as_str() == event)
    }
}

/// Who took an action out of `pending`, how, where and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionDecided {
    pub decision: DecisionKind,
    /// `system` for an expiry the sweep made.
    pub by: PrincipalId,
    pub surface: Surface,
    pub at_ms: i64,
}

/// One line of an action's audit trail as surfaces show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditStep {
    /// "created", "confirm", "running", "executed", "revise", "expire", ... (the trail's
    /// words: the same as the event feed's `event`).
    pub event: String,
    pub by: PrincipalId,
    pub surface: Surface,
    pub at_ms: i64,
    /// What the entry adds (a revision's arguments, `{"was": ...}` for an interruption);
    /// absent when it adds nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<serde_json::Value>,
}

/// A parked action as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PendingAction {
    /// Opaque id (a UUID).
    pub id: String,
    pub kind: ActionKind,
    /// Tool name (for a plan: "plan").
    pub tool: String,
    /// Canonical JSON text of the arguments: exactly what will run.
    pub arguments: String,
    /// SHA-256 (hex) of `tool` + NUL + `arguments`: approval binds to this.
    pub payload_hash: String,
    /// Human-readable preview (dry-run consequences when the tool offers them).
    pub preview: String,
    /// Trace id of the turn that created it; scores and audit refer to it.
    pub trace_id: String,
    pub conversation: ConversationId,
    pub surface: Surface,
    pub principal: PrincipalId,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
    pub status: ActionStatus,
    /// Times the payload was revised.
    pub revision: u32,
    /// Set while the user is expected to describe an edit in words.
    pub awaiting_edit: bool,
    /// Tool output (executed) or the reason (failed, expired, cancelled). Stored sanitised:
    /// the store replaces bytes it cannot keep (NUL) and cuts text over its limit.
    pub outcome: Option<String>,
    pub updated_at_ms: i64,
}

/// What a surface shows for a pending action. Produced by steward-core's card renderer:
/// invisible and confusable characters are made visible; a card that cannot be shown whole
/// on a surface says so and is not confirmable there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionCard {
    pub action_id: String,
    pub kind: ActionKind,
    pub tool: String,
    /// The whole card text, escaped for display.
    pub text: String,
    pub expires_at_ms: i64,
    /// False when the card is too long to show whole on this surface.
    pub confirmable: bool,
    /// The action's revision this card shows; a confirm sends it back
    /// (`Decision::Confirm { revision }`), so only what was displayed can run.
    pub revision: u32,
}

/// "Allow this tool in this conversation until `expires_at_ms`": scoped, time-limited,
/// visible and revocable. Never global.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Grant {
    pub id: String,
    pub conversation: ConversationId,
    pub tool: String,
    pub principal: PrincipalId,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
    pub revoked: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_round_trips_through_its_spelling_and_serde() {
        for status in ActionStatus::ALL {
            assert_eq!(ActionStatus::parse(status.as_str()), Some(status));
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
        assert_eq!(
            serde_json::to_string(&ActionStatus::Running).unwrap(),
            "\"running\""
        );
        assert!(!ActionStatus::Running.is_terminal());
        assert!(!ActionStatus::Confirmed.is_terminal());
    }

    #[test]
    fn each_decision_is_one_audit_event_and_nothing_else_is() {
        for kind in DecisionKind::ALL {
            assert_eq!(DecisionKind::from_event(kind.as_str()), Some(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
        for other in [
            "created", "running", "executed", "revise", "Confirm", "", "confirm ",
        ] {
            assert_eq!(DecisionKind::from_event(other), None, "{other:?}");
        }
    }

    #[test]
    fn an_audit_step_without_detail_leaves_the_field_out() {
        let step = AuditStep {
            event: "created".into(),
            by: PrincipalId::parse("ann").unwrap(),
            surface: Surface::Http,
            at_ms: 5,
            detail: None,
        };
        let json = serde_json::to_value(&step).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"event": "created", "by": "ann", "surface": "http", "at_ms": 5})
        );
    }

    #[test]
    fn a_confirm_carries_the_revision_it_binds_to() {
        let d: Decision = serde_json::from_str(r#"{"decision":"confirm","revision":2}"#).unwrap();
        assert_eq!(d, Decision::Confirm { revision: 2 });
        assert!(serde_json::from_str::<Decision>(r#"{"decision":"confirm"}"#).is_err());
    }
}
