//! Memory around the turn: the bare-link shortcut (a message that is only a link is saved to
//! read-later without running the agent), the remembered-context block added to the user
//! turn, and fact extraction after the exchange — spawned so the user never waits for it, its
//! model call recorded in the usage ledger.

use super::ledger::{CallSite, record};
use super::{Failure, scrub};
use super::{TurnContext, TurnDeps};
use steward_memory::Exchange;
use steward_memory::context::ContextBlock;
use steward_protocol::{Inbound, Message, TurnEvent, Usage};
use tracing::Instrument;

const MAX_URL_LEN: usize = 2048;

/// The message is nothing but one http(s) link.
pub(crate) fn bare_url(text: &str) -> Option<&str> {
    let t = text.trim();
    let rest = t
        .strip_prefix("https://")
        .or_else(|| t.strip_prefix("http://"))?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let ok = !host.is_empty()
        && t.len() <= MAX_URL_LEN
        && !t.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then_some(t)
}

/// Save a bare link for later and answer without calling the model.
pub(crate) async fn read_later_shortcut(
    deps: &TurnDeps,
    inbound: &Inbound,
) -> Result<Option<TurnEvent>, Failure> {
    let (Some(wiring), Some(url)) = (deps.memory.as_ref(), bare_url(&inbound.text)) else {
        return Ok(None);
    };
    let saved = wiring
        .memory
        .read_later(inbound.principal.as_str(), url, "", Vec::new())
        .await;
    let text = match saved {
        Ok(_) => format!("Saved to read later: {url}"),
        Err(e) => {
            tracing::warn!(error = %e, "read-later save failed");
            return Ok(None);
        }
    };
    deps.store
        .append_messages(
            &inbound.conversation,
            &[
                Message::user(scrub(&inbound.text)),
                Message::assistant(text.clone(), vec![]),
            ],
        )
        .await?;
    Ok(Some(TurnEvent::Final {
        text,
        usage: Usage::default(),
        model: "steward".into(),
    }))
}

/// The remembered context for this message, fenced as data ("" when none qualifies or
/// memory is off), with the taint of any unconfirmed row it shows (only rows written in
/// this conversation can be shown). A memory failure never fails the turn.
pub(crate) async fn memory_context(deps: &TurnDeps, inbound: &Inbound) -> ContextBlock {
    let Some(wiring) = deps.memory.as_ref() else {
        return ContextBlock::default();
    };
    match wiring
        .memory
        .context_for(
            inbound.principal.as_str(),
            &inbound.conversation,
            &inbound.text,
        )
        .await
    {
        Ok(block) if block.text.is_empty() => block,
        Ok(mut block) => {
            block.text.push_str("\n\n");
            block
        }
        Err(e) => {
            tracing::warn!(error = %e, "memory context unavailable for this turn");
            ContextBlock::default()
        }
    }
}

/// After a finished exchange: extract facts through the fact quality check (steward-memory),
/// in the background, by the turn's extraction model (else its primary); the call's usage goes
/// to the ledger under `site`, priced by the turn's own settings.
pub(crate) fn spawn_extraction(ctx: &TurnContext<'_>, site: CallSite, exchange: Exchange) {
    let deps = ctx.deps;
    let primary = ctx.binding.primary.as_ref();
    let Some(wiring) = deps.memory.as_ref().filter(|w| w.extract) else {
        return;
    };
    let Some(model) = wiring.extraction_model.clone().or_else(|| primary.cloned()) else {
        return;
    };
    let memory = wiring.memory.clone();
    let models = deps.models.clone();
    let (store, prices, clock) = (
        deps.store.clone(),
        ctx.settings.prices.clone(),
        deps.clock.clone(),
    );
    let span = tracing::info_span!("post_turn_extraction");
    deps.tracker.spawn(
        async move {
            match memory.extract(&models, &model, &exchange).await {
                Ok(report) => {
                    let now = clock.now_secs();
                    record(&*store, &prices, now, &site, &report.model, report.usage).await;
                    tracing::debug!(?report, "facts extracted");
                }
                Err(e) => tracing::warn!(error = %e, "fact extraction failed"),
            }
        }
        .instrument(span),
    );
}

#[cfg(test)]
mod tests {
    use super::bare_url;

    #[test]
    fn only_a_lone_link_is_a_bare_url() {
        assert_eq!(
            bare_url(" https://example.com/a?b=1 "),
            Some("https://example.com/a?b=1")
        );
        assert_eq!(bare_url("http://x.org"), Some("http://x.org"));
        assert_eq!(bare_url("read https://example.com"), None);
        assert_eq!(bare_url("https://example.com and more"), None);
        assert_eq!(bare_url("https://"), None);
        assert_eq!(bare_url("ftp://example.com"), None);
        assert_eq!(
            bare_url(&format!("https://e.com/{}", "a".repeat(3000))),
            None
        );
    }
}
