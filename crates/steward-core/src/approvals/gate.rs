//! The gate between a model's tool calls and their execution. Each call is checked
//! (schema + validator), then policy decides: allow → run; refuse → an error for the model;
//! ask → unless a live grant covers it, it is parked as a pending action and the model gets
//! a sentinel saying it has NOT run. Two or more parked calls in one response become one
//! plan card instead (the plan gate); each step still asks when it is later attempted.
//!
//! Before policy, the taint rule (`crate::taint`) reviews what the call would touch: a
//! review forces a card (showing why) even for a read or memory tool, is never skipped by a
//! grant, and refuses where nobody can approve. Only the explicit terminal auto-approve
//! lets it run unasked, as it does every other consequential call.

use super::payload::{canonical, payload_hash};
use super::policy::{PolicyDecision, decide};
use super::record::Approvals;
use crate::taint::{PrivateValues, Review, TurnTaint};
use steward_protocol::{ActionKind, ActionStatus, Effect, Inbound, PendingAction, ToolCall};
use steward_store::StoreError;
use steward_tools::{PreparedCall, ToolContext, ToolOutcome};

/// What to do with one call.
pub(crate) enum CallPlan {
    Run(PreparedCall),
    /// Not run: this text goes back to the model as the call's result.
    Done(ToolOutcome),
    /// Parked for approval: the sentinel goes back to the model; no tool events.
    Parked(ToolOutcome),
}

pub(crate) struct GateOutcome {
    /// One entry per call, in the model's order.
    pub plans: Vec<CallPlan>,
    /// Actions created by this gate, to be shown as cards.
    pub parked: Vec<PendingAction>,
}

fn sentinel(action: &PendingAction) -> String {
    format!(
        "[APPROVAL_PENDING:{}] This action has NOT run. It is waiting for the user to approve it on an approval card. \
         Tell the user in one or two sentences what it will do once approved; never say it has been done.",
        action.id
    )
}

fn plan_sentinel(action: &PendingAction, step: usize, steps: usize) -> String {
    format!(
        "[PLAN_PENDING:{}] Step {step} of {steps} of a plan awaiting the user's approval. Nothing has run. \
         Summarise the plan for the user; once they approve it, carry out the steps one at a time (each will ask again).",
        action.id
    )
}

/// What the gate knows about an action before it is stored.
struct Draft<'a> {
    kind: ActionKind,
    tool: &'a str,
    arguments: String,
    preview: String,
    ttl: std::time::Duration,
}

impl Approvals {
    fn new_action(&self, inbound: &Inbound, trace_id: &str, draft: Draft<'_>) -> PendingAction {
        let Draft {
            kind,
            tool,
            arguments,
            preview,
            ttl,
        } = draft;
        let now = self.now_ms();
        PendingAction {
            id: uuid::Uuid::new_v4().to_string(),
            kind,
            tool: tool.to_owned(),
            payload_hash: payload_hash(tool, &arguments),
            arguments,
            preview,
            trace_id: trace_id.to_owned(),
            conversation: inbound.conversation.clone(),
            surface: inbound.surface,
            principal: inbound.principal.id().clone(),
            created_at_ms: now,
            expires_at_ms: now.saturating_add(ttl.as_millis() as i64),
            status: ActionStatus::Pending,
            revision: 0,
            awaiting_edit: false,
            outcome: None,
            updated_at_ms: now,
        }
    }

    /// The tool's own dry run, under the taint review when there is one.
    async fn preview_text(
        &self,
        prepared: &PreparedCall,
        review: Option<&Review>,
        ctx: &ToolContext,
    ) -> String {
        let own = match self.tools.preview(prepared, ctx).await {
            Some(Ok(p)) => p,
            Some(Err(e)) => format!("preview failed: {e}"),
            None => String::new(),
        };
        match review {
            Some(r) if own.is_empty() => r.text.clone(),
            Some(r) => format!("{}\n\n{own}", r.text),
            None => own,
        }
    }

    fn ttl_of(&self, prepared: &PreparedCall) -> std::time::Duration {
        prepared
            .tool
            .approval_ttl()
            .unwrap_or(self.settings.default_ttl)
    }
}

/// The turn's trust state, for the taint review of each call.
pub(crate) struct Containment<'a> {
    pub taint: &'a TurnTaint,
    pub private: &'a PrivateValues,
}

pub(crate) async fn gate_calls(
    approvals: &Approvals,
    calls: &[ToolCall],
    inbound: &Inbound,
    trace_id: &str,
    ctx: &ToolContext,
    containment: &Containment<'_>,
) -> Result<GateOutcome, StoreError> {
    let mut plans: Vec<Option<CallPlan>> = Vec::with_capacity(calls.len());
    let mut asks: Vec<(usize, PreparedCall, Option<Review>)> = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let prepared = match approvals.tools.prepare(call) {
            Ok(p) => p,
            Err(outcome) => {
                plans.push(Some(CallPlan::Done(outcome)));
                continue;
            }
        };
        let reach = prepared.tool.reach(&prepared.args);
        let review = containment
            .taint
            .review(&reach, containment.private, inbound.principal.as_str())
            .await;
        if let Some(review) = review {
            // Asking because of what the call touches, whatever its effect: decided as an
            // outbound (External) call would be on this surface, and no grant skips it.
            match decide(Effect::External, inbound.surface, &approvals.settings) {
                PolicyDecision::Allow => plans.push(Some(CallPlan::Run(prepared))),
                PolicyDecision::Refuse => plans.push(Some(CallPlan::Done(ToolOutcome::failure(format!(
                    "refused: `{}` needs the owner's approval here (it reads or sends private data, or follows                      untrusted content), and nobody can approve on the {} surface",
                    prepared.name,
                    inbound.surface.as_str()
                ))))),
                PolicyDecision::Ask => {
                    plans.push(None);
                    asks.push((i, prepared, Some(review)));
                }
            }
            continue;
        }
        match decide(prepared.effect, inbound.surface, &approvals.settings) {
            PolicyDecision::Allow => plans.push(Some(CallPlan::Run(prepared))),
            PolicyDecision::Refuse => {
                plans.push(Some(CallPlan::Done(ToolOutcome::failure(format!(
                    "refused: `{}` ({:?} effect) is not allowed from the {} surface",
                    prepared.name,
                    prepared.effect,
                    inbound.surface.as_str()
                )))))
            }
            PolicyDecision::Ask => {
                let grant = approvals
                    .store
                    .active_grant(&inbound.conversation, &prepared.name, approvals.now_ms())
                    .await?;
                // A grant for a tool that asks every time (one stored before that rule,
                // or written by hand) does not apply.
                if grant.is_some() && prepared.tool.grantable() {
                    plans.push(Some(CallPlan::Run(prepared)));
                } else {
                    plans.push(None);
                    asks.push((i, prepared, None));
                }
            }
        }
    }

    let mut parked = Vec::new();
    if asks.len() == 1 {
        if let Some((i, prepared, review)) = asks.pop() {
            let preview = approvals
                .preview_text(&prepared, review.as_ref(), ctx)
                .await;
            let action = approvals.new_action(
                inbound,
                trace_id,
                Draft {
                    kind: ActionKind::Tool,
                    tool: &prepared.name,
                    arguments: canonical(&prepared.args),
                    preview,
                    ttl: approvals.ttl_of(&prepared),
                },
            );
            approvals.create(&action).await?;
            plans[i] = Some(CallPlan::Parked(ToolOutcome {
                ok: false,
                output: sentinel(&action),
            }));
            parked.push(action);
        }
    } else if asks.len() >= 2 {
        let mut steps = Vec::with_capacity(asks.len());
        let mut previews = Vec::with_capacity(asks.len());
        let mut ttl = approvals.settings.default_ttl;
        for (n, (_, prepared, review)) in asks.iter().enumerate() {
            steps.push(serde_json::json!({"tool": prepared.name, "arguments": prepared.args}));
            let p = approvals.preview_text(prepared, review.as_ref(), ctx).await;
            if !p.is_empty() {
                previews.push(format!("{}. {}: {p}", n + 1, prepared.name));
            }
            ttl = ttl.min(approvals.ttl_of(prepared));
        }
        let action = approvals.new_action(
            inbound,
            trace_id,
            Draft {
                kind: ActionKind::Plan,
                tool: "plan",
                arguments: canonical(&serde_json::json!({ "steps": steps })),
                preview: previews.join("\n"),
                ttl,
            },
        );
        approvals.create(&action).await?;
        let total = asks.len();
        for (n, (i, _, _)) in asks.iter().enumerate() {
            plans[*i] = Some(CallPlan::Parked(ToolOutcome {
                ok: false,
                output: plan_sentinel(&action, n + 1, total),
            }));
        }
        parked.push(action);
    }
    Ok(GateOutcome {
        plans: plans
            .into_iter()
            .map(|p| {
                p.unwrap_or_else(|| {
                    CallPlan::Done(ToolOutcome::failure("internal: call not gated"))
                })
            })
            .collect(),
        parked,
    })
}
