//! One turn: load history, call the model, run the tools it asks for, repeat within the
//! budgets, persist, and report every step as a `TurnEvent`.
//!
//! Persistence rule: the user's message is stored before the model is called (a failure
//! never loses what the user said); an assistant message with tool calls is stored in the
//! same append as all its results, so no reader ever sees a call without its result.

mod deps;
mod edit;
mod failure;
mod ledger;
mod memory;
mod parts;
pub(crate) mod request;
mod tool_round;

pub(crate) use deps::{RequestLog, TurnContext, TurnDeps, TurnKind};
pub(crate) use failure::Failure;

use crate::approvals::Containment;
use crate::history::trim_history;
use crate::prompt::{NO_MODEL_MESSAGE, client_instructions_block, context_block, system_prompt};
use crate::reply::ImageDefuser;
use crate::taint::{TurnTaint, trust_of};
use edit::edit_turn;
use failure::{failed, stopped};
use ledger::CallSite;
use memory::{memory_context, read_later_shortcut, spawn_extraction};
use request::{Prior, Recorder};
use steward_llm::{ChatRequest, LlmError, ModelRef};
use steward_memory::Exchange;
use steward_protocol::{FailureKind, Inbound, Message, TurnEvent, TurnId, Usage};
use steward_store::UsagePurpose;
use steward_tools::ToolContext;
use tokio::sync::mpsc;
use tool_round::run_tool_round;
use tracing::Instrument;

/// Longest tool output echoed in a `ToolFinished` event (the model gets the full text).
pub(crate) const EVENT_OUTPUT_CHARS: usize = 2000;

/// Run one turn and send its events. Always sends `Started` first and exactly one terminal
/// event last (unless the receiver is gone, in which case the turn still runs and persists).
pub(crate) async fn run_turn(
    mut ctx: TurnContext<'_>,
    inbound: Inbound,
    kind: TurnKind,
    events: mpsc::Sender<TurnEvent>,
) {
    // A keyed request may be a retry of an earlier attempt: send its end again, or resume it.
    let mut resume = false;
    let mut created_at_ms = ctx.deps.now_ms();
    if let Some(key) = &inbound.request {
        let started = |turn_id: TurnId| TurnEvent::Started {
            conversation_id: inbound.conversation.clone(),
            turn_id,
        };
        let ended = match request::prior(ctx.deps, &inbound, key).await {
            Ok(Prior::New) => None,
            Ok(Prior::Resume {
                turn_id,
                created_at_ms: created,
            }) => {
                tracing::info!(turn_id = %turn_id, "a retried request resumes its turn");
                ctx.turn_id = turn_id;
                created_at_ms = created;
                resume = true;
                None
            }
            Ok(Prior::Replay { turn_id, events }) => {
                tracing::info!(turn_id = %turn_id, "a retried request gets its turn's end again");
                let mut out = vec![started(turn_id)];
                out.extend(request::replay_events(events));
                Some(out)
            }
            Ok(Prior::Mismatch) => Some(vec![
                started(ctx.turn_id.clone()),
                failed(request::mismatch_failure()),
            ]),
            Err(f) => Some(vec![started(ctx.turn_id.clone()), failed(f)]),
        };
        if let Some(out) = ended {
            for ev in out {
                if events.send(ev).await.is_err() {
                    break;
                }
            }
            return;
        }
    }
    let recorder = inbound
        .request
        .clone()
        .map(|key| Recorder::new(key, &inbound, &ctx.turn_id, created_at_ms, resume));
    let turn_id = ctx.turn_id.clone();
    let span = tracing::info_span!(
        "turn",
        conversation = %inbound.conversation,
        surface = inbound.surface.as_str(),
        turn_id = %turn_id,
        model = tracing::field::Empty,
        rounds = tracing::field::Empty,
        input_tokens = tracing::field::Empty,
        output_tokens = tracing::field::Empty,
    );
    // Deltas come from a synchronous callback inside the model stream: buffer them in an
    // unbounded channel and forward in order, so a slow surface never stalls the model.
    let (etx, mut erx) = mpsc::unbounded_channel::<TurnEvent>();
    let keep = recorder.is_some();
    let feed = std::sync::Arc::clone(&ctx.deps.feed);
    let (feed_conversation, feed_surface) = (inbound.conversation.clone(), inbound.surface);
    let forward = async move {
        // What a keyed turn's retry would be sent again.
        let mut kept = Vec::new();
        let mut open = true;
        while let Some(ev) = erx.recv().await {
            // Every surface's subscribers see the turn, whichever surface started it.
            feed.turn(&feed_conversation, feed_surface, &ev);
            if keep && request::replayable(&ev) {
                kept.push(ev.clone());
            }
            // Once the surface went away, keep draining so the turn is unaffected.
            if open && events.send(ev).await.is_err() {
                open = false;
            }
        }
        kept
    };
    let _ = etx.send(TurnEvent::Started {
        conversation_id: inbound.conversation.clone(),
        turn_id,
    });
    let timeout = ctx.settings.turn_timeout;
    let work = async {
        let mut tool_outputs = Vec::new();
        let mut taint = TurnTaint::default();
        let how = Attempt {
            kind,
            resume,
            recorder: recorder.as_ref(),
        };
        let body = turn_body(&ctx, &inbound, how, &etx, &mut tool_outputs, &mut taint);
        // Cancelling drops the body wherever it is: a model call, a tool round (whose
        // results are stored in one append after it, so nothing half-done is kept).
        let stoppable = async {
            tokio::select! {
                r = body => r,
                () = ctx.cancel.cancelled() => Err(stopped(&ctx.deps.hard_stop)),
            }
        };
        let result = match tokio::time::timeout(timeout, stoppable).await {
            Ok(r) => r,
            Err(_) => Err(Failure {
                kind: FailureKind::Budget,
                message: format!(
                    "The turn took longer than {} s (agent.turn_timeout_secs) and was stopped.",
                    timeout.as_secs()
                ),
                retryable: true,
            }),
        };
        let terminal = match result {
            Ok(done) => done,
            Err(f) => {
                tracing::warn!(kind = ?f.kind, message = %f.message, "turn failed");
                failed(f)
            }
        };
        if let (TurnEvent::Final { text, .. }, TurnKind::User) = (&terminal, kind) {
            spawn_extraction(
                &ctx,
                CallSite {
                    conversation: inbound.conversation.clone(),
                    turn_id: ctx.turn_id.clone(),
                    surface: inbound.surface,
                    purpose: UsagePurpose::Extraction,
                },
                Exchange {
                    user: inbound.principal.as_str().to_owned(),
                    conversation: inbound.conversation.clone(),
                    user_text: inbound.text.clone(),
                    assistant_text: text.clone(),
                    tool_outputs,
                    tainted_by: taint.sources().to_vec(),
                    untrusted: taint.untrusted_texts().to_vec(),
                },
            );
        }
        let _ = etx.send(terminal);
        drop(etx);
    };
    let ((), kept) = tokio::join!(work.instrument(span), forward);
    // Recorded before the worker takes the conversation's next turn, so a retry queued
    // behind this one finds how it ended.
    if let Some(recorder) = &recorder {
        recorder.finish(ctx.deps, &kept).await;
    }
}

/// How this run of a turn came about.
#[derive(Clone, Copy)]
struct Attempt<'a> {
    kind: TurnKind,
    /// A retry continuing an earlier attempt whose user message is stored.
    resume: bool,
    recorder: Option<&'a Recorder>,
}

async fn turn_body(
    ctx: &TurnContext<'_>,
    inbound: &Inbound,
    how: Attempt<'_>,
    events: &mpsc::UnboundedSender<TurnEvent>,
    tool_outputs: &mut Vec<(String, String)>,
    taint: &mut TurnTaint,
) -> Result<TurnEvent, Failure> {
    let deps = ctx.deps;
    let settings = &ctx.settings;
    let kind = how.kind;
    // A resumed attempt already went through the shortcuts that answer without the model.
    let first = kind == TurnKind::User && !how.resume;
    if inbound.text.trim().is_empty() && inbound.attachments.is_empty() {
        return Err(Failure::new(FailureKind::Input, "The message is empty."));
    }
    // Before any shortcut that answers without the model: with no model, a message (a bare
    // link too) is refused and nothing is stored.
    let Some(primary) = ctx.binding.primary.clone() else {
        return Err(Failure::new(FailureKind::NoModel, NO_MODEL_MESSAGE));
    };
    // Parts the model cannot take, or too big, are refused before anything is stored.
    parts::admit(deps, &primary, inbound)?;
    // The shortcuts answer from the text alone: a message with parts always reaches the
    // model, so no photo is dropped into read-later or taken for an edit in words.
    let shortcut = first && inbound.attachments.is_empty();
    if shortcut && let Some(done) = read_later_shortcut(deps, inbound).await? {
        return Ok(done);
    }
    let conversation = &inbound.conversation;
    if shortcut && let Some(done) = edit_turn(ctx, inbound, events).await? {
        return Ok(done);
    }
    let stored = deps
        .store
        .recent_messages(conversation, settings.history_messages)
        .await?;
    let mut messages = trim_history(&stored, settings.history_messages);
    // A resumed attempt: its user message and what followed (tool rounds that ran) are
    // stored; the request is rebuilt around them and nothing that ran runs again.
    let resumed = if how.resume {
        request::split_at_user(&messages, &inbound.text)
    } else {
        None
    };
    let mut after = Vec::new();
    if let Some((before, rest)) = resumed {
        messages = before;
        after = rest;
    } else {
        // What the user said is saved before anything can fail (the store scrubs what it keeps);
        // its parts' blobs first, so a stored message never names a missing blob.
        parts::store(deps, inbound).await?;
        let said = Message::user_with(inbound.text.clone(), parts::attachments(inbound));
        deps.store.append_messages(conversation, &[said]).await?;
        if let Some(recorder) = how.recorder {
            recorder.user_stored(deps).await;
        }
    }
    taint.add_history(&messages, &deps.tools);
    match kind {
        TurnKind::User => taint.add_owner(&inbound.text),
        TurnKind::FollowUp => taint.add_follow_up(&inbound.text, &deps.tools),
    }
    if let Some(instructions) = &inbound.instructions {
        taint.add_owner(instructions);
    }
    taint.add_history(&after, &deps.tools);
    let context = context_block(deps.now_unix(), settings.timezone.as_deref());
    let instructions = inbound
        .instructions
        .as_deref()
        .filter(|i| !i.trim().is_empty())
        .map(client_instructions_block)
        .unwrap_or_default();
    let remembered = if kind == TurnKind::User {
        let block = memory_context(deps, inbound).await;
        for source in &block.tainted_by {
            taint.add_source(&format!("unconfirmed memory from {source}"));
        }
        block.text
    } else {
        String::new()
    };
    messages.push(Message::user_with(
        format!("{context}{instructions}{remembered}{}", inbound.text),
        parts::attachments(inbound),
    ));
    messages.extend(after);
    // Only the parts this request sends are read back (`history::parts_to_send`).
    let part_bytes = parts::bytes_for(deps, &primary, &messages, inbound).await;

    let mut request = ChatRequest {
        system: system_prompt().to_owned(),
        messages,
        // Core tools + the tool index + what this conversation loaded (steward-tools `index`).
        tools: deps.tools.offer(conversation),
        max_output_tokens: Some(settings.max_output_tokens),
        temperature: None,
        parts: part_bytes,
    };
    let mut tool_ctx = ToolContext::new(
        conversation.clone(),
        inbound.principal.clone(),
        settings.timezone.clone(),
    )
    .from_turn(inbound.surface, ctx.turn_id.as_str());
    let mut usage = Usage::default();
    // Model-written images are never fetched by a surface that renders the reply: the
    // classic markdown-image exfiltration channel is closed here, once for every surface.
    let defuser = std::sync::Mutex::new(ImageDefuser::default());
    let on_text = |t: &str| {
        let safe = match defuser.lock() {
            Ok(mut d) => d.push(t),
            Err(poisoned) => poisoned.into_inner().push(t),
        };
        if !safe.is_empty() {
            let _ = events.send(TurnEvent::TextDelta { text: safe });
        }
    };
    let site = CallSite {
        conversation: conversation.clone(),
        turn_id: ctx.turn_id.clone(),
        surface: inbound.surface,
        purpose: UsagePurpose::Turn,
    };
    for round in 1..=settings.max_rounds {
        let mut response = call_model(ctx, &site, &primary, &request, &on_text, round).await?;
        let held = match defuser.lock() {
            Ok(mut d) => d.finish(),
            Err(poisoned) => poisoned.into_inner().finish(),
        };
        if !held.is_empty() {
            let _ = events.send(TurnEvent::TextDelta { text: held });
        }
        // Stored text is scrubbed by the store; this copy also reaches the surfaces.
        response.text = crate::reply::defuse_images(&scrub(&response.text));
        usage.add(response.usage);
        let span = tracing::Span::current();
        span.record("model", response.model.as_str());
        span.record("rounds", round);
        span.record("input_tokens", usage.input_tokens);
        span.record("output_tokens", usage.output_tokens);

        if response.tool_calls.is_empty() {
            deps.store
                .append_messages(
                    conversation,
                    &[Message::assistant(response.text.clone(), vec![])],
                )
                .await?;
            return Ok(TurnEvent::Final {
                text: response.text,
                usage,
                model: response.model,
            });
        }

        let assistant = Message::assistant(response.text, response.tool_calls.clone());
        let mut group = vec![assistant];
        tool_ctx.tainted_by = taint.sources().to_vec();
        let containment = Containment {
            taint,
            private: &deps.private,
        };
        let results = run_tool_round(
            ctx,
            inbound,
            &response.tool_calls,
            &tool_ctx,
            &containment,
            events,
        )
        .await?;
        for m in &results {
            let name = m.tool_name.as_deref().unwrap_or_default();
            taint.add_result(name, &m.content, trust_of(&deps.tools, name));
        }
        tool_outputs.extend(
            results
                .iter()
                .map(|m| (m.tool_name.clone().unwrap_or_default(), m.content.clone())),
        );
        group.extend(results);
        deps.store.append_messages(conversation, &group).await?;
        request.messages.extend(group);
        // An on-demand tool the model called (or loaded) now stays offered with its schema.
        deps.tools.note_calls(
            conversation,
            response.tool_calls.iter().map(|c| c.name.as_str()),
        );
        request.tools = deps.tools.offer(conversation);

        if usage.total() >= settings.max_turn_tokens {
            return Err(Failure::new(
                FailureKind::Budget,
                format!(
                    "The turn used {} tokens, over its budget of {} (agent.max_turn_tokens), before reaching an answer.",
                    usage.total(),
                    settings.max_turn_tokens
                ),
            ));
        }
    }
    Err(Failure::new(
        FailureKind::Budget,
        format!(
            "The turn stopped after {} model calls without a final answer (agent.max_rounds).",
            settings.max_rounds
        ),
    ))
}

/// One round's model call; the answer's usage goes to the ledger before the round goes on.
async fn call_model(
    ctx: &TurnContext<'_>,
    site: &CallSite,
    primary: &ModelRef,
    request: &ChatRequest,
    on_text: &(dyn Fn(&str) + Send + Sync),
    round: u32,
) -> Result<steward_llm::ChatResponse, Failure> {
    let span = tracing::info_span!("model_round", round, model = %primary);
    let deps = ctx.deps;
    let response = deps
        .models
        .chat(
            primary,
            ctx.binding.fallback.as_ref(),
            request,
            Some(on_text),
            &ctx.cancel,
        )
        .instrument(span)
        .await
        .map_err(|e| match e {
            LlmError::Cancelled => stopped(&ctx.deps.hard_stop),
            other => Failure::from(other),
        })?;
    let (prices, now) = (&ctx.settings.prices, deps.now_unix());
    ledger::record(
        &*deps.store,
        prices,
        now,
        site,
        &response.model,
        response.usage,
    )
    .await;
    Ok(response)
}

/// NUL has no meaning in a chat: it becomes U+FFFD in text shown to surfaces. What is
/// stored goes through the store's own scrub (`steward_store::storable`), the one boundary.
pub(crate) fn scrub(s: &str) -> String {
    s.replace('\0', "\u{FFFD}")
}

pub(crate) fn shorten(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}
