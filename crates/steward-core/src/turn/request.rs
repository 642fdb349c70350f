//! Keyed requests: a client's retry of a request is the same turn. The earlier attempt's end
//! is sent again when it ended for good (an answer, or a failure a retry cannot fix); a turn
//! that stopped on a failure worth retrying after the user's message was stored is resumed
//! from the stored history, so the message is never stored twice, a finished model call is
//! never repeated, and a tool that ran never runs again (its result is in the history).
//!
//! Owns: deriving keys (`idempotency_key`, `retry_key`, `fresh_retry_key`), the decision
//! between replay, resume and a new turn (`prior`), and recording each keyed turn
//! (`Recorder`). Does not own: which transport headers mark a retry (the surface) or the
//! records' storage (`steward_store::TurnRequestStore`).

use super::Failure;
use super::TurnDeps;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicBool, Ordering};
use steward_protocol::{
    ConversationId, FailureKind, Inbound, Message, Replay, RequestKey, Role, Surface, TurnEvent,
    TurnId,
};
use steward_store::{TurnRequest, storable};

/// How long an `Idempotency-Key` names its request.
const KEY_LIFETIME_MS: i64 = 24 * 60 * 60 * 1000;
/// How long a marked retry without a key may still be the earlier request.
const RETRY_WINDOW_MS: i64 = 10 * 60 * 1000;
/// Pruning runs at most this often.
const PRUNE_EVERY_MS: i64 = 60 * 60 * 1000;

/// The key for a client-named request (`Idempotency-Key`): the same key is the same request.
pub fn idempotency_key(client_key: &str) -> RequestKey {
    keyed(&["idempotency-key", client_key], Replay::Always)
}

/// The key for a request in a known conversation: its retry (`retry` true) is the same turn
/// when the earlier attempt is recent; a first attempt only records itself.
pub fn retry_key(
    surface: Surface,
    conversation: &ConversationId,
    text: &str,
    instructions: Option<&str>,
    retry: bool,
) -> RequestKey {
    let replay = if retry {
        Replay::IfRecent
    } else {
        Replay::Never
    };
    keyed(
        &[
            "content",
            surface.as_str(),
            conversation.as_str(),
            text,
            instructions.unwrap_or(""),
        ],
        replay,
    )
}

/// The key for a request that chose no conversation, from everything it sent (`request`,
/// e.g. the whole message list): its retry finds the conversation the first attempt made
/// (`Steward::conversation_of`).
pub fn fresh_retry_key(surface: Surface, request: &str, retry: bool) -> RequestKey {
    let replay = if retry {
        Replay::IfRecent
    } else {
        Replay::Never
    };
    keyed(&["fresh", surface.as_str(), request], replay)
}

fn keyed(parts: &[&str], replay: Replay) -> RequestKey {
    RequestKey::from_digest(&digest_bytes(parts), replay)
}

fn digest_bytes(parts: &[&str]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        // Length-prefixed, so ("ab","c") and ("a","bc") differ.
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().into()
}

/// What the inbound's content is, for telling a reused key from a retry.
fn fingerprint(inbound: &Inbound) -> String {
    let mut parts = vec![
        inbound.conversation.as_str(),
        &inbound.text,
        inbound.instructions.as_deref().unwrap_or(""),
    ];
    // The same key with other parts is another request; without parts the digest is what
    // it always was, so records written before parts existed still match.
    parts.extend(
        inbound
            .attachments
            .iter()
            .map(|u| u.attachment().blob().as_str()),
    );
    RequestKey::from_digest(&digest_bytes(&parts), Replay::Never)
        .id()
        .to_owned()
}

/// What to do with a keyed inbound, given the earlier attempt (if any).
pub(crate) enum Prior {
    /// No earlier attempt counts: run a new turn.
    New,
    /// The earlier attempt ended for good: send its events again; nothing runs.
    Replay {
        turn_id: TurnId,
        events: Vec<TurnEvent>,
    },
    /// The earlier attempt stored the user's message and stopped before a lasting end:
    /// continue it under its turn id.
    Resume { turn_id: TurnId, created_at_ms: i64 },
    /// The key was used for a different request.
    Mismatch,
}

pub(crate) async fn prior(
    deps: &TurnDeps,
    inbound: &Inbound,
    key: &RequestKey,
) -> Result<Prior, Failure> {
    if key.replay == Replay::Never {
        return Ok(Prior::New);
    }
    let Some(record) = deps.store.turn_request(key.id()).await? else {
        return Ok(Prior::New);
    };
    let now = deps.now_ms();
    let lifetime = match key.replay {
        Replay::Always => KEY_LIFETIME_MS,
        Replay::IfRecent | Replay::Never => RETRY_WINDOW_MS,
    };
    if now.saturating_sub(record.created_at_ms) > lifetime {
        return Ok(Prior::New);
    }
    if record.fingerprint != fingerprint(inbound) {
        return Ok(if key.replay == Replay::Always {
            Prior::Mismatch
        } else {
            Prior::New
        });
    }
    let events: Option<Vec<TurnEvent>> = record
        .outcome
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok());
    let lasting = events.as_ref().is_some_and(|evs| match evs.last() {
        Some(TurnEvent::Final { .. }) => true,
        Some(TurnEvent::Failed { retryable, .. }) => !retryable,
        _ => false,
    });
    // The store checked the id on the way in; a row that no longer holds one is corrupt.
    let turn_id = TurnId::parse(&record.turn_id).map_err(|_| {
        tracing::error!("a stored request record holds an invalid turn id");
        Failure::new(FailureKind::Store, "Storage failed; see the log.")
    })?;
    if lasting {
        return Ok(Prior::Replay {
            turn_id,
            events: events.unwrap_or_default(),
        });
    }
    if record.user_stored {
        return Ok(Prior::Resume {
            turn_id,
            created_at_ms: record.created_at_ms,
        });
    }
    Ok(Prior::New)
}

pub(crate) fn mismatch_failure() -> Failure {
    Failure::new(
        FailureKind::Input,
        "This Idempotency-Key was already used for a different request (another conversation \
         or text). Use a new key for a new request.",
    )
}

/// The events a replay sends again: not `Started` (the replay sends its own) and not the
/// deltas (the terminal `Final` carries the whole text).
pub(crate) fn replayable(event: &TurnEvent) -> bool {
    !matches!(
        event,
        TurnEvent::Started { .. } | TurnEvent::TextDelta { .. }
    )
}

/// The replay of an ended attempt: its events, with the final text as one delta first so a
/// streaming client shows it.
pub(crate) fn replay_events(events: Vec<TurnEvent>) -> Vec<TurnEvent> {
    let mut out = Vec::with_capacity(events.len() + 1);
    for ev in events {
        if let TurnEvent::Final { text, .. } = &ev
            && !text.is_empty()
        {
            out.push(TurnEvent::TextDelta { text: text.clone() });
        }
        out.push(ev);
    }
    out
}

/// Records one keyed turn: once the user's message is stored, and when the turn ends.
pub(crate) struct Recorder {
    key: RequestKey,
    conversation: ConversationId,
    turn_id: TurnId,
    fingerprint: String,
    created_at_ms: i64,
    stored: AtomicBool,
}

impl Recorder {
    pub(crate) fn new(
        key: RequestKey,
        inbound: &Inbound,
        turn_id: &TurnId,
        created_at_ms: i64,
        user_stored: bool,
    ) -> Self {
        Self {
            key,
            conversation: inbound.conversation.clone(),
            turn_id: turn_id.clone(),
            fingerprint: fingerprint(inbound),
            created_at_ms,
            stored: AtomicBool::new(user_stored),
        }
    }

    fn record(&self, now: i64, outcome: Option<String>) -> TurnRequest {
        TurnRequest {
            key: self.key.id().to_owned(),
            conversation: self.conversation.clone(),
            turn_id: self.turn_id.to_string(),
            fingerprint: self.fingerprint.clone(),
            user_stored: self.stored.load(Ordering::SeqCst),
            outcome,
            created_at_ms: self.created_at_ms,
            updated_at_ms: now,
        }
    }

    /// The user's message is stored: from now on a retry resumes rather than restarts.
    pub(crate) async fn user_stored(&self, deps: &TurnDeps) {
        self.stored.store(true, Ordering::SeqCst);
        let record = self.record(deps.now_ms(), None);
        if let Err(e) = deps.store.save_turn_request(&record).await {
            // The turn goes on; a retry of it may then run it again, which the log says.
            tracing::warn!(error = %e, "could not record the turn's request; a retry may repeat it");
        }
    }

    /// The turn ended with these (replayable) events.
    pub(crate) async fn finish(&self, deps: &TurnDeps, events: &[TurnEvent]) {
        let outcome = match serde_json::to_string(events) {
            Ok(json) => Some(storable(&json).into_owned()),
            Err(e) => {
                tracing::warn!(error = %e, "could not encode the turn's outcome");
                None
            }
        };
        let record = self.record(deps.now_ms(), outcome);
        if let Err(e) = deps.store.save_turn_request(&record).await {
            tracing::warn!(error = %e, "could not record how the turn's request ended");
        }
        maybe_prune(deps).await;
    }
}

/// Prune records past their lifetime, at most every `PRUNE_EVERY_MS` (one caller claims it).
async fn maybe_prune(deps: &TurnDeps) {
    let now = deps.now_ms();
    if !deps.requests.claim_prune(now, PRUNE_EVERY_MS) {
        return;
    }
    match deps.store.prune_turn_requests(now - KEY_LIFETIME_MS).await {
        Ok(gone) if gone > 0 => tracing::debug!(gone, "old turn requests pruned"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "could not prune old turn requests"),
    }
}

/// For a resumed turn: the stored history split around the user's message of the earlier
/// attempt (the last user message with this text), so the turn rebuilds its request as the
/// first attempt did. None when it is no longer in the window.
pub(crate) fn split_at_user(
    messages: &[Message],
    text: &str,
) -> Option<(Vec<Message>, Vec<Message>)> {
    let stored = storable(text);
    let at = messages
        .iter()
        .rposition(|m| m.role == Role::User && m.content == stored.as_ref())?;
    Some((messages[..at].to_vec(), messages[at + 1..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_valid_and_distinct() {
        let c = ConversationId::parse("c").unwrap();
        let a = retry_key(Surface::OpenAiApi, &c, "yes", None, true);
        let b = retry_key(Surface::OpenAiApi, &c, "yes", Some(""), true);
        assert_eq!(
            a, b,
            "no instructions and empty instructions are the same request"
        );
        assert_ne!(a, retry_key(Surface::OpenAiApi, &c, "yes ", None, true));
        assert_ne!(a.id(), idempotency_key("yes").id());
        assert_eq!(a.replay, Replay::IfRecent);
        assert_eq!(
            retry_key(Surface::OpenAiApi, &c, "yes", None, false).replay,
            Replay::Never
        );
        assert_eq!(idempotency_key("k").replay, Replay::Always);
        // Length prefixes: moving a boundary changes the key.
        assert_ne!(digest_bytes(&["ab", "c"]), digest_bytes(&["a", "bc"]));
    }

    #[test]
    fn split_finds_the_last_matching_user_message() {
        let msgs = vec![
            Message::user("hi"),
            Message::assistant("hello", vec![]),
            Message::user("hi"),
            Message::assistant("calling", vec![]),
        ];
        let (before, after) = split_at_user(&msgs, "hi").unwrap();
        assert_eq!(before.len(), 2);
        assert_eq!(after.len(), 1);
        assert!(split_at_user(&msgs, "other").is_none());
    }

    #[test]
    fn replay_puts_the_text_before_the_final() {
        let out = replay_events(vec![TurnEvent::Final {
            text: "done".into(),
            usage: Default::default(),
            model: "m".into(),
        }]);
        assert!(matches!(&out[0], TurnEvent::TextDelta { text } if text == "done"));
        assert!(matches!(&out[1], TurnEvent::Final { .. }));
    }
}
