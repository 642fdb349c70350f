//! Contract cases for `EdgeStore`'s update claims and chat bindings: a claim lands once (per
//! surface, also when 20 race, also after a restart), forgetting goes by age, and a chat's
//! binding reads both ways and is replaced by a rebind; the most active chat follows the last
//! message. The sent-message cases are in `edge_messages.rs`.
//!
//! Cases share the store (and a second run shares the database), so every case uses fresh
//! keys; the forgetting case keeps its times far below any other case's, so that what it
//! forgets is only its own.

use super::{fresh_conversation, ok};
use crate::{EdgeKey, SentMessage, Store};
use std::sync::Arc;
use steward_protocol::{ConversationId, Message, Surface};

/// A time in milliseconds for the edge cases (any value is accepted; this is 2023).
pub(crate) const AT: i64 = 1_700_000_000_000;

/// A fresh key shaped like a Telegram id (digits, maybe a minus), unique per call.
pub(crate) fn fresh_key(case: &str) -> EdgeKey {
    let n = uuid::Uuid::new_v4().as_u128() % 1_000_000_000_000_000_000;
    key(case, &format!("-{n}"))
}

pub(crate) fn key(case: &str, raw: &str) -> EdgeKey {
    match EdgeKey::parse(raw) {
        Ok(k) => k,
        Err(e) => panic!("[{case}] test edge key is invalid: {e}"),
    }
}

pub async fn edge_claims_land_once_per_surface(store: &dyn Store) {
    const CASE: &str = "edge_claims_land_once_per_surface";
    let (update, other) = (fresh_key(CASE), fresh_key(CASE));
    let t = Surface::Telegram;
    assert!(ok(CASE, "first", store.claim_update(t, &update, AT).await));
    assert!(
        !ok(CASE, "again", store.claim_update(t, &update, AT + 1).await),
        "[{CASE}] a duplicate is refused, whatever its time"
    );
    assert!(
        !ok(
            CASE,
            "earlier",
            store.claim_update(t, &update, AT - 1).await
        ),
        "[{CASE}] a duplicate is refused, whatever its time"
    );
    assert!(
        ok(CASE, "other key", store.claim_update(t, &other, AT).await),
        "[{CASE}] another key is its own claim"
    );
    assert!(
        ok(
            CASE,
            "other surface",
            store.claim_update(Surface::Web, &update, AT).await
        ),
        "[{CASE}] surfaces are separate namespaces"
    );
    assert!(!ok(
        CASE,
        "web again",
        store.claim_update(Surface::Web, &update, AT).await
    ));
}

/// 20 tasks claim one key at once: exactly one gets true.
pub async fn edge_concurrent_claims_one_winner(store: Arc<dyn Store>) {
    const CASE: &str = "edge_concurrent_claims_one_winner";
    let update = fresh_key(CASE);
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let (store, update) = (Arc::clone(&store), update.clone());
            tokio::spawn(
                async move { store.claim_update(Surface::Telegram, &update, AT + i).await },
            )
        })
        .collect();
    let mut winners = 0;
    for task in tasks {
        match task.await {
            Ok(result) => winners += usize::from(ok(CASE, "claim from task", result)),
            Err(e) => panic!("[{CASE}] task failed: {e}"),
        }
    }
    assert_eq!(winners, 1, "[{CASE}] exactly one claim lands");
    let again = store.claim_update(Surface::Telegram, &update, AT).await;
    assert!(!ok(CASE, "after the race", again), "[{CASE}] and stays");
}

pub async fn edge_forgets_updates_by_age(store: &dyn Store) {
    const CASE: &str = "edge_forgets_updates_by_age";
    // Far below every other case's times, so only this case's rows are older than `BEFORE`
    // (a second run's leftover is the kept row at exactly `BEFORE`, which is not older).
    const BEFORE: i64 = -4_000_000_000_000_000;
    let t = Surface::Telegram;
    let (old, older, kept, web) = (
        fresh_key(CASE),
        fresh_key(CASE),
        fresh_key(CASE),
        fresh_key(CASE),
    );
    for (k, at) in [(&older, BEFORE - 2), (&old, BEFORE - 1), (&kept, BEFORE)] {
        assert!(ok(CASE, "claim", store.claim_update(t, k, at).await));
    }
    assert!(ok(
        CASE,
        "web",
        store.claim_update(Surface::Web, &web, BEFORE - 5).await
    ));
    assert_eq!(
        ok(CASE, "forget", store.forget_updates_before(t, BEFORE).await),
        2,
        "[{CASE}] the two claimed before the horizon"
    );
    assert_eq!(
        ok(
            CASE,
            "forget again",
            store.forget_updates_before(t, BEFORE).await
        ),
        0,
        "[{CASE}] nothing left to forget"
    );
    assert!(
        ok(
            CASE,
            "reclaim old",
            store.claim_update(t, &old, BEFORE + 9).await
        ),
        "[{CASE}] a forgotten update can be claimed again"
    );
    assert!(
        !ok(
            CASE,
            "reclaim kept",
            store.claim_update(t, &kept, BEFORE + 9).await
        ),
        "[{CASE}] the one claimed at the horizon is kept"
    );
    assert!(
        !ok(
            CASE,
            "web kept",
            store.claim_update(Surface::Web, &web, BEFORE).await
        ),
        "[{CASE}] forgetting is per surface"
    );
    // Tidy up the web row so a second run counts the same.
    ok(
        CASE,
        "tidy",
        store.forget_updates_before(Surface::Web, BEFORE).await,
    );
}

pub async fn edge_chat_bindings_read_both_ways(store: &dyn Store) {
    const CASE: &str = "edge_chat_bindings_read_both_ways";
    let t = Surface::Telegram;
    let (a, b, c) = (fresh_key(CASE), fresh_key(CASE), fresh_key(CASE));
    let (x, y) = (fresh_conversation(CASE), fresh_conversation(CASE));
    let chat_of =
        async |conv: &ConversationId| ok(CASE, "chat", store.conversation_chat(t, conv).await);
    let conv_of = async |chat: &EdgeKey| ok(CASE, "conv", store.chat_conversation(t, chat).await);
    assert_eq!(conv_of(&a).await, None, "[{CASE}] an unbound chat");
    assert_eq!(chat_of(&x).await, None, "[{CASE}] an unbound conversation");

    ok(CASE, "bind a-x", store.bind_chat(t, &a, &x, AT).await);
    assert_eq!(
        conv_of(&a).await,
        Some(x.clone()),
        "[{CASE}] chat → conversation"
    );
    assert_eq!(
        chat_of(&x).await,
        Some(a.clone()),
        "[{CASE}] conversation → chat"
    );

    // `/new`: the chat moves to a new conversation; the old one still reaches the chat it
    // lived in (a reminder set there is delivered there).
    ok(
        CASE,
        "rebind a-y",
        store.bind_chat(t, &a, &y, AT + 10).await,
    );
    assert_eq!(
        conv_of(&a).await,
        Some(y.clone()),
        "[{CASE}] the rebind replaced"
    );
    assert_eq!(
        chat_of(&x).await,
        Some(a.clone()),
        "[{CASE}] x keeps the chat it lived in"
    );
    assert_eq!(chat_of(&y).await, Some(a.clone()), "[{CASE}] y has it");

    // Several chats on one conversation: the most recent binding delivers, ties by call.
    ok(CASE, "bind b-y", store.bind_chat(t, &b, &y, AT + 20).await);
    assert_eq!(
        chat_of(&y).await,
        Some(b.clone()),
        "[{CASE}] the later binding"
    );
    ok(CASE, "bind c-y", store.bind_chat(t, &c, &y, AT + 20).await);
    assert_eq!(
        chat_of(&y).await,
        Some(c.clone()),
        "[{CASE}] same time: the later call"
    );
    ok(
        CASE,
        "rebind a-y",
        store.bind_chat(t, &a, &y, AT + 30).await,
    );
    assert_eq!(
        chat_of(&y).await,
        Some(a.clone()),
        "[{CASE}] a rebind is recent again"
    );
    assert_eq!(
        conv_of(&b).await,
        Some(y.clone()),
        "[{CASE}] b is still bound"
    );

    // The same chat id on another surface is another chat.
    let z = fresh_conversation(CASE);
    ok(
        CASE,
        "bind web",
        store.bind_chat(Surface::Web, &a, &z, AT + 40).await,
    );
    assert_eq!(
        conv_of(&a).await,
        Some(y.clone()),
        "[{CASE}] telegram's binding kept"
    );
    let web = ok(
        CASE,
        "web conv",
        store.chat_conversation(Surface::Web, &a).await,
    );
    assert_eq!(web, Some(z.clone()), "[{CASE}] web's own binding");
    assert_eq!(chat_of(&z).await, None, "[{CASE}] z has no telegram chat");
    let web_chat = ok(
        CASE,
        "web chat",
        store.conversation_chat(Surface::Web, &y).await,
    );
    assert_eq!(web_chat, None, "[{CASE}] y has no web chat");
}

/// The most active chat: the one whose conversations (also one it left) hold the message
/// appended last, with its conversation now; an empty conversation does not count; surfaces
/// are apart. Other cases bind chats too: each step appends after them, so the newest
/// message is this case's.
pub async fn edge_most_active_chat_follows_the_last_message(store: &dyn Store) {
    const CASE: &str = "edge_most_active_chat_follows_the_last_message";
    let t = Surface::Telegram;
    let (a, b) = (fresh_key(CASE), fresh_key(CASE));
    let (x, y, z) = (
        fresh_conversation(CASE),
        fresh_conversation(CASE),
        fresh_conversation(CASE),
    );
    let say = async |conv: &ConversationId, text: &str| {
        ok(
            CASE,
            "append",
            store
                .append_messages(conv, &[Message::user(text.to_owned())])
                .await,
        )
    };
    let most_active = async || ok(CASE, "most active", store.most_active_chat(t).await);
    ok(CASE, "bind a-x", store.bind_chat(t, &a, &x, AT).await);
    ok(CASE, "bind b-y", store.bind_chat(t, &b, &y, AT).await);
    say(&x, "in a").await;
    say(&y, "in b").await;
    assert_eq!(
        most_active().await,
        Some((b.clone(), y.clone())),
        "[{CASE}] b holds the last message"
    );
    say(&x, "a again").await;
    assert_eq!(
        most_active().await,
        Some((a.clone(), x.clone())),
        "[{CASE}] a speaks last"
    );
    // `/new` in a: an empty conversation; a is still the most active chat (through the
    // conversation it left), and the answer is the conversation it is bound to now.
    ok(
        CASE,
        "rebind a-z",
        store.bind_chat(t, &a, &z, AT + 10).await,
    );
    assert_eq!(
        most_active().await,
        Some((a.clone(), z.clone())),
        "[{CASE}] a, bound to z now"
    );
    // Another surface's chat with a newer message does not count for Telegram.
    let (w, web_conv) = (fresh_key(CASE), fresh_conversation(CASE));
    ok(
        CASE,
        "bind web",
        store.bind_chat(Surface::Web, &w, &web_conv, AT).await,
    );
    say(&web_conv, "on the web").await;
    assert_eq!(
        most_active().await,
        Some((a.clone(), z.clone())),
        "[{CASE}] surfaces are apart"
    );
    assert_eq!(
        ok(CASE, "web", store.most_active_chat(Surface::Web).await),
        Some((w, web_conv)),
        "[{CASE}] the web chat on its own surface"
    );
}

/// What `edge_records_before_restart` wrote, for `edge_records_after_restart` to find.
#[derive(Debug, Clone)]
pub struct EdgeRestartProbe {
    update: EdgeKey,
    chat: EdgeKey,
    conversation: ConversationId,
    sent: SentMessage,
}

/// The first half of the restart case: claims, binds and records, then the adapter test
/// closes the store and opens the same database again.
pub async fn edge_records_before_restart(store: &dyn Store) -> EdgeRestartProbe {
    const CASE: &str = "edge_records_before_restart";
    let probe = EdgeRestartProbe {
        update: fresh_key(CASE),
        chat: fresh_key(CASE),
        conversation: fresh_conversation(CASE),
        sent: SentMessage {
            surface: Surface::Telegram,
            chat: fresh_key(CASE),
            message: fresh_key(CASE),
            trace_id: super::approvals::fresh_id("trace"),
            genre: "approval".into(),
            action_id: Some(super::approvals::fresh_id("act")),
            at_ms: AT,
        },
    };
    let t = Surface::Telegram;
    assert!(ok(
        CASE,
        "claim",
        store.claim_update(t, &probe.update, AT).await
    ));
    ok(
        CASE,
        "bind",
        store
            .bind_chat(t, &probe.chat, &probe.conversation, AT)
            .await,
    );
    ok(CASE, "record", store.record_sent(&probe.sent).await);
    probe
}

/// The second half, against the reopened database: every record is still there.
pub async fn edge_records_after_restart(store: &dyn Store, probe: &EdgeRestartProbe) {
    const CASE: &str = "edge_records_after_restart";
    let t = Surface::Telegram;
    assert!(
        !ok(
            CASE,
            "claim",
            store.claim_update(t, &probe.update, AT + 1).await
        ),
        "[{CASE}] an update claimed before the restart is a duplicate after it"
    );
    let conv = ok(CASE, "conv", store.chat_conversation(t, &probe.chat).await);
    assert_eq!(
        conv.as_ref(),
        Some(&probe.conversation),
        "[{CASE}] binding kept"
    );
    let chat = ok(
        CASE,
        "chat",
        store.conversation_chat(t, &probe.conversation).await,
    );
    assert_eq!(chat.as_ref(), Some(&probe.chat), "[{CASE}] binding kept");
    let s = &probe.sent;
    let found = ok(
        CASE,
        "sent",
        store.sent_message(t, &s.chat, &s.message).await,
    );
    assert_eq!(found.as_ref(), Some(s), "[{CASE}] sent message kept");
}
