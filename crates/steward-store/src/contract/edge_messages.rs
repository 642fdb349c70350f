//! Contract cases for `EdgeStore`'s sent messages and the input limits of the edge records:
//! every field round-trips (with and without an approval card), a re-record replaces in
//! place, `card_messages` is oldest first, capped at the newest `MAX_CARD_MESSAGES` and per
//! surface, hostile text is kept byte for byte, and the limits of keys, genres, trace and
//! action ids. Every case uses fresh chats, messages and action ids.

use super::approvals::fresh_id;
use super::edge::{AT, fresh_key, key};
use super::{ok, refused};
use crate::{EdgeKey, MAX_CARD_MESSAGES, MAX_EDGE_GENRE_LEN, MAX_EDGE_KEY_LEN, SentMessage, Store};
use steward_protocol::Surface;

fn sent(case: &str, action_id: Option<&str>, at_ms: i64) -> SentMessage {
    SentMessage {
        surface: Surface::Telegram,
        chat: fresh_key(case),
        message: fresh_key(case),
        trace_id: fresh_id("trace"),
        genre: if action_id.is_some() {
            "approval"
        } else {
            "chat"
        }
        .into(),
        action_id: action_id.map(str::to_owned),
        at_ms,
    }
}

async fn find(store: &dyn Store, case: &str, s: &SentMessage) -> Option<SentMessage> {
    ok(
        case,
        "sent_message",
        store.sent_message(s.surface, &s.chat, &s.message).await,
    )
}

pub async fn edge_sent_messages_round_trip(store: &dyn Store) {
    const CASE: &str = "edge_sent_messages_round_trip";
    let plain = sent(CASE, None, AT);
    let action = fresh_id("act");
    let card = sent(CASE, Some(&action), AT + 1);
    for s in [&plain, &card] {
        ok(CASE, "record", store.record_sent(s).await);
        assert_eq!(
            find(store, CASE, s).await.as_ref(),
            Some(s),
            "[{CASE}] every field"
        );
    }
    // The same message id in another chat, or on another surface, is another message.
    let elsewhere = SentMessage {
        chat: fresh_key(CASE),
        ..plain.clone()
    };
    assert_eq!(
        find(store, CASE, &elsewhere).await,
        None,
        "[{CASE}] other chat"
    );
    let web = SentMessage {
        surface: Surface::Web,
        ..plain.clone()
    };
    assert_eq!(
        find(store, CASE, &web).await,
        None,
        "[{CASE}] other surface"
    );
    ok(CASE, "record web", store.record_sent(&web).await);
    assert_eq!(
        find(store, CASE, &plain).await.as_ref(),
        Some(&plain),
        "[{CASE}] apart"
    );

    // A re-record of (surface, chat, message) replaces every other field.
    let replaced = SentMessage {
        trace_id: fresh_id("trace"),
        genre: "briefing".into(),
        action_id: None,
        at_ms: AT + 99,
        ..card.clone()
    };
    ok(CASE, "replace", store.record_sent(&replaced).await);
    assert_eq!(
        find(store, CASE, &card).await,
        Some(replaced),
        "[{CASE}] replaced"
    );
    let cards = ok(
        CASE,
        "cards",
        store.card_messages(Surface::Telegram, &action).await,
    );
    assert!(
        cards.is_empty(),
        "[{CASE}] the card is gone with it: {cards:?}"
    );
}

pub async fn edge_card_messages_order_limit_and_surface(store: &dyn Store) {
    const CASE: &str = "edge_card_messages_order_limit_and_surface";
    let (action, other) = (fresh_id("act"), fresh_id("act"));
    let t = Surface::Telegram;
    // 25 cards, recorded out of time order; then two that share a time (kept in record order).
    let times: Vec<i64> = (0..25).map(|i| AT + (i * 7) % 25).collect();
    let mut all = Vec::new();
    for (n, at) in times.iter().enumerate() {
        let mut s = sent(CASE, Some(&action), *at);
        s.genre = if n % 2 == 0 { "approval" } else { "reminder" }.into();
        ok(CASE, "record", store.record_sent(&s).await);
        all.push(s);
    }
    let tie_first = sent(CASE, Some(&action), AT + 30);
    let tie_second = sent(CASE, Some(&action), AT + 30);
    for s in [&tie_first, &tie_second] {
        ok(CASE, "record tie", store.record_sent(s).await);
    }
    all.push(tie_first);
    all.push(tie_second);
    // Noise: another action's card, a plain message, the same action on the web.
    ok(
        CASE,
        "other",
        store.record_sent(&sent(CASE, Some(&other), AT)).await,
    );
    ok(
        CASE,
        "plain",
        store.record_sent(&sent(CASE, None, AT)).await,
    );
    let mut web = Vec::new();
    for i in 0..3 {
        let mut s = sent(CASE, Some(&action), AT + 100 - i);
        s.surface = Surface::Web;
        ok(CASE, "web", store.record_sent(&s).await);
        web.push(s);
    }

    let got = ok(CASE, "cards", store.card_messages(t, &action).await);
    all.sort_by_key(|s| s.at_ms); // stable: ties stay in record order
    let want = &all[all.len() - MAX_CARD_MESSAGES..];
    assert_eq!(got.len(), MAX_CARD_MESSAGES, "[{CASE}] capped");
    assert_eq!(
        got, want,
        "[{CASE}] the newest, oldest first, ties in record order"
    );
    web.reverse();
    let got_web = ok(
        CASE,
        "web cards",
        store.card_messages(Surface::Web, &action).await,
    );
    assert_eq!(got_web, web, "[{CASE}] the web's own, oldest first");
    let got_other = ok(CASE, "other cards", store.card_messages(t, &other).await);
    assert_eq!(got_other.len(), 1, "[{CASE}] the other action's one card");
    let none = ok(
        CASE,
        "unknown",
        store.card_messages(t, &fresh_id("act")).await,
    );
    assert!(none.is_empty(), "[{CASE}] an action with no card");
}

pub async fn edge_hostile_values_are_kept_verbatim(store: &dyn Store) {
    const CASE: &str = "edge_hostile_values_are_kept_verbatim";
    let salt = uuid::Uuid::new_v4().simple().to_string();
    let hostile = [
        format!("'; DROP TABLE edge_messages; -- {salt}"),
        format!("1 OR 1=1 /* {salt} */"),
        format!("%_\\\"{salt}\""),
        format!("чат 💬 \u{202e}{salt}\u{200b}"),
        format!("{salt}{}", "é".repeat((MAX_EDGE_KEY_LEN - 32) / 2)),
    ];
    let t = Surface::Telegram;
    for raw in &hostile {
        let k = key(CASE, raw);
        assert_eq!(k.as_str(), raw, "[{CASE}] the key is the text");
        assert!(ok(CASE, "claim", store.claim_update(t, &k, AT).await));
        assert!(!ok(CASE, "reclaim", store.claim_update(t, &k, AT).await));
        let conv = super::fresh_conversation(CASE);
        ok(CASE, "bind", store.bind_chat(t, &k, &conv, AT).await);
        let back = ok(CASE, "chat", store.conversation_chat(t, &conv).await);
        assert_eq!(
            back.as_ref().map(EdgeKey::as_str),
            Some(raw.as_str()),
            "[{CASE}]"
        );
        let s = SentMessage {
            chat: k.clone(),
            message: k.clone(),
            trace_id: format!("'; DELETE FROM edge_chats; -- ✓ \"{salt}\" чат"),
            ..sent(CASE, None, AT)
        };
        ok(CASE, "record", store.record_sent(&s).await);
        assert_eq!(
            find(store, CASE, &s).await,
            Some(s.clone()),
            "[{CASE}] verbatim"
        );
    }
    // A LIKE-ish key matches only itself.
    let pattern = key(CASE, &format!("%{salt}%"));
    let s = sent(CASE, None, AT);
    let probe = SentMessage {
        message: pattern,
        ..s.clone()
    };
    ok(CASE, "record", store.record_sent(&s).await);
    assert_eq!(
        find(store, CASE, &probe).await,
        None,
        "[{CASE}] no pattern match"
    );
}

pub async fn edge_input_limits(store: &dyn Store) {
    const CASE: &str = "edge_input_limits";
    let secret = "tg-secret-4242";
    refused(CASE, "empty key", EdgeKey::parse(""), "");
    refused(
        CASE,
        "129 bytes",
        EdgeKey::parse(&format!("{secret}{}", "9".repeat(MAX_EDGE_KEY_LEN))),
        secret,
    );
    assert_eq!(
        ok(
            CASE,
            "128 bytes",
            EdgeKey::parse(&"9".repeat(MAX_EDGE_KEY_LEN))
        )
        .as_str()
        .len(),
        MAX_EDGE_KEY_LEN
    );
    for c in ['\0', '\n', '\r', '\t', '\u{1b}', '\u{7f}', '\u{9b}'] {
        let step = format!("control {:?}", c);
        refused(CASE, &step, EdgeKey::parse(&format!("{secret}{c}")), secret);
    }

    let good = sent(CASE, Some(&fresh_id("act")), AT);
    let mut bad_genres = vec![
        String::new(),
        "Chat".into(),
        "chat2".into(),
        "chat-x".into(),
        "chät".into(),
        "a".repeat(MAX_EDGE_GENRE_LEN + 1),
    ];
    bad_genres.push(format!("{secret}\0"));
    for genre in bad_genres {
        let s = SentMessage {
            genre,
            ..good.clone()
        };
        refused(CASE, "genre", store.record_sent(&s).await, secret);
    }
    for trace_id in [String::new(), "t".repeat(129), format!("{secret}\0")] {
        let s = SentMessage {
            trace_id,
            ..good.clone()
        };
        refused(CASE, "trace id", store.record_sent(&s).await, secret);
    }
    for action in [String::new(), format!("{secret}_x"), "a".repeat(129)] {
        let s = SentMessage {
            action_id: Some(action.clone()),
            ..good.clone()
        };
        refused(CASE, "action id", store.record_sent(&s).await, secret);
        let cards = store.card_messages(Surface::Telegram, &action).await;
        refused(CASE, "cards of a bad id", cards, secret);
    }
    assert_eq!(
        find(store, CASE, &good).await,
        None,
        "[{CASE}] nothing refused was stored"
    );

    let longest = SentMessage {
        genre: "a".repeat(MAX_EDGE_GENRE_LEN),
        trace_id: "t".repeat(128),
        ..good.clone()
    };
    ok(CASE, "the longest", store.record_sent(&longest).await);
    assert_eq!(
        find(store, CASE, &good).await,
        Some(longest),
        "[{CASE}] at the limits"
    );
}
