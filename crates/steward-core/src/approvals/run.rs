//! Running an approved action, minus the bookkeeping: the defence-in-depth payload check, the
//! registry call with the card's preview in the context (`approved_preview`), the new card an
//! effect that changed since approval gets, a revision's re-validated payload, the outcome
//! texts a record may carry, and the crash failpoints (compiled only with the test feature
//! `failpoints`; without it `failpoint` is empty).
//!
//! Owns no status change: every compare-and-set (confirmed → running → executed | failed,
//! and the recovery of interrupted actions) stays in `resolve.rs`, which calls these helpers.

use super::payload::{canonical, payload_hash};
use super::record::Approvals;
use crate::port::ApprovalError;
use steward_protocol::{ActionKind, ActionStatus, PendingAction, Principal};
use steward_tools::{ApprovedRun, ToolContext};

/// Test-only crash injection. With `STEWARD_TEST_FAILPOINT=after_confirm` the process aborts
/// right after an action is confirmed and before it is marked running; with `while_running`
/// it aborts after the tool has run and before its result is recorded (the action is left
/// `running`, its effect done). The crash-safety tests kill Steward at exactly those moments.
/// Only a build with the feature `failpoints` reads it (see `failpoints_built_in`).
pub const FAILPOINT_ENV: &str = "STEWARD_TEST_FAILPOINT";

/// Whether this build carries the failpoints (feature `failpoints`: test builds only).
pub fn failpoints_built_in() -> bool {
    cfg!(feature = "failpoints")
}

/// Outcome text stored on an action a restart interrupted (left `confirmed` or `running`).
/// Never "it was not run": once confirmed, nobody can be sure the effect did not happen.
pub const INTERRUPTED: &str = "interrupted — it may have run: Steward stopped after this action was approved and before its result was recorded. Steward did not retry it; check whether it took effect before asking again.";

/// Outcome text of an approved action whose effect was no longer the one on its card.
pub const EFFECT_CHANGED: &str = "the effect changed since you approved it; nothing was changed.";

/// Outcome stored when the tool's own output could not be recorded even sanitised.
pub(crate) const UNRECORDABLE: &str =
    "the tool finished but its output could not be recorded; check its effects";

/// Aborts the process when the failpoint `name` is armed (see `FAILPOINT_ENV`).
#[cfg(feature = "failpoints")]
pub(crate) fn failpoint(name: &str) {
    if std::env::var(FAILPOINT_ENV).as_deref() == Ok(name) {
        std::process::abort();
    }
}

/// Without the feature a failpoint is nothing: no environment read, no abort.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn failpoint(_name: &str) {}

/// The outcome and audit detail of an action whose effect changed, naming its new card.
pub(crate) fn effect_changed_record(reissued: Option<&PendingAction>) -> (String, String) {
    match reissued {
        Some(a) => (
            format!(
                "{EFFECT_CHANGED} A new card (id {}) shows what it would do now.",
                a.id
            ),
            serde_json::json!({ "reissued": a.id }).to_string(),
        ),
        None => (
            format!("{EFFECT_CHANGED} Ask again to see what it would do now."),
            String::new(),
        ),
    }
}

/// What running an approved action came to.
pub(crate) enum RunResult {
    Done {
        ok: bool,
        output: String,
    },
    /// The tool refused: what it would do now (`preview`) is not what the owner saw.
    EffectChanged {
        preview: String,
    },
}

impl Approvals {
    /// Run the action's stored payload (an action marked `running`) through the registry,
    /// acting for `principal`: the one who confirmed it, whose action it is.
    pub(crate) async fn run_action(
        &self,
        action: &PendingAction,
        principal: &Principal,
    ) -> RunResult {
        let done = |ok: bool, output: String| RunResult::Done { ok, output };
        if action.kind == ActionKind::Plan {
            return done(
                true,
                "plan approved; each consequential step will still ask for approval".to_owned(),
            );
        }
        // Defence in depth: the stored payload must still be the approved one.
        if payload_hash(&action.tool, &action.arguments) != action.payload_hash {
            return done(
                false,
                "error: the payload does not match what was approved; not run".into(),
            );
        }
        let args: serde_json::Value = match serde_json::from_str(&action.arguments) {
            Ok(v) => v,
            Err(e) => return done(false, format!("error: stored arguments are not JSON: {e}")),
        };
        let prepared = match self.tools.prepare_value(&action.tool, args) {
            Ok(p) => p,
            Err(outcome) => return done(false, outcome.output),
        };
        let mut ctx = ToolContext::new(
            action.conversation.clone(),
            principal.clone(),
            self.agent.get().timezone,
        )
        .from_turn(action.surface, &action.trace_id);
        // The tool compares what it would do now with what the owner saw on the card.
        ctx.approved_preview = Some(action.preview.clone());
        match self.tools.run_approved(&prepared, &ctx).await {
            ApprovedRun::Ran(outcome) => done(outcome.ok, outcome.output),
            ApprovedRun::EffectChanged { preview } => RunResult::EffectChanged { preview },
        }
    }

    /// A revision's new payload, re-checked by the originating tool's own validator:
    /// canonical arguments, their hash and the tool's fresh preview.
    pub(crate) async fn revised_payload(
        &self,
        action: &PendingAction,
        arguments: serde_json::Value,
        principal: &Principal,
    ) -> Result<(String, String, String), ApprovalError> {
        if action.kind == ActionKind::Plan {
            return Err(ApprovalError::Invalid(
                "a plan cannot be revised; cancel it and ask again".into(),
            ));
        }
        let prepared = self
            .tools
            .prepare_value(&action.tool, arguments)
            .map_err(|o| ApprovalError::Invalid(o.output))?;
        let text = canonical(&prepared.args);
        let hash = payload_hash(&action.tool, &text);
        let ctx = ToolContext::new(
            action.conversation.clone(),
            principal.clone(),
            self.agent.get().timezone,
        )
        .from_turn(action.surface, &action.trace_id);
        let preview = match self.tools.preview(&prepared, &ctx).await {
            Some(Ok(p)) => p,
            Some(Err(e)) => format!("preview failed: {e}"),
            None => String::new(),
        };
        Ok((text, hash, preview))
    }

    /// A new pending card for `old`'s exact payload, showing the effect it would have now.
    pub(crate) fn reissue(&self, old: &PendingAction, preview: String) -> PendingAction {
        let ttl = self
            .tools
            .get(&old.tool)
            .and_then(|t| t.approval_ttl())
            .unwrap_or(self.settings.default_ttl);
        let now = self.now_ms();
        PendingAction {
            id: uuid::Uuid::new_v4().to_string(),
            preview,
            created_at_ms: now,
            expires_at_ms: now.saturating_add(ttl.as_millis() as i64),
            status: ActionStatus::Pending,
            revision: 0,
            awaiting_edit: false,
            outcome: None,
            updated_at_ms: now,
            ..old.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interrupted_text_never_claims_the_action_did_not_run() {
        assert!(INTERRUPTED.starts_with("interrupted — it may have run"));
        assert!(!INTERRUPTED.contains("not run"), "{INTERRUPTED}");
        assert!(EFFECT_CHANGED.contains("nothing was changed"));
    }
}
