//! One round of tool calls: through the approval gate, then run what may run. Parked calls
//! produce an approval card and a sentinel result for the model; nothing else about them
//! runs until a human decides through `resolve`.

use super::{EVENT_OUTPUT_CHARS, Failure, TurnContext, shorten};
use crate::approvals::{Containment, GateOutcome, card::render_card, gate_calls};
use steward_protocol::{Inbound, Message, ToolCall, TurnEvent};
use steward_tools::ToolContext;
use tokio::sync::mpsc;
use tracing::Instrument;

/// Runs the round and returns the tool-result messages, one per call, in order.
pub(crate) async fn run_tool_round(
    ctx: &TurnContext<'_>,
    inbound: &Inbound,
    calls: &[ToolCall],
    tool_ctx: &ToolContext,
    containment: &Containment<'_>,
    events: &mpsc::UnboundedSender<TurnEvent>,
) -> Result<Vec<Message>, Failure> {
    let deps = ctx.deps;
    let GateOutcome { plans, parked } = gate_calls(
        &deps.approvals,
        calls,
        inbound,
        ctx.turn_id.as_str(),
        tool_ctx,
        containment,
    )
    .await?;
    let mut results = Vec::with_capacity(calls.len());
    for (call, plan) in calls.iter().zip(plans) {
        use crate::approvals::CallPlan;
        let outcome = match plan {
            CallPlan::Parked(outcome) => outcome,
            CallPlan::Done(outcome) => {
                announce_start(events, call, None);
                announce_finish(events, call, outcome.ok, &outcome.output);
                outcome
            }
            CallPlan::Run(prepared) => {
                let touched = prepared.tool.reach(&prepared.args).summary;
                announce_start(events, call, touched);
                let outcome = deps
                    .tools
                    .run_prepared(&prepared, tool_ctx)
                    .instrument(
                        tracing::info_span!("tool_call", tool = %call.name, call_id = %call.id),
                    )
                    .await;
                announce_finish(events, call, outcome.ok, &outcome.output);
                outcome
            }
        };
        // The store scrubs what it keeps (NUL included): the output goes as it came.
        results.push(Message::tool_result(call, outcome.output));
    }
    for action in &parked {
        let _ = events.send(TurnEvent::ApprovalRequired {
            card: render_card(action, None),
        });
    }
    Ok(results)
}

fn announce_start(
    events: &mpsc::UnboundedSender<TurnEvent>,
    call: &ToolCall,
    touched: Option<String>,
) {
    let _ = events.send(TurnEvent::ToolStarted {
        call_id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        touched,
    });
}

fn announce_finish(
    events: &mpsc::UnboundedSender<TurnEvent>,
    call: &ToolCall,
    ok: bool,
    output: &str,
) {
    let _ = events.send(TurnEvent::ToolFinished {
        call_id: call.id.clone(),
        name: call.name.clone(),
        ok,
        output: shorten(output, EVENT_OUTPUT_CHARS),
    });
}
