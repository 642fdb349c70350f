//! Contract cases for the read side of `ConversationStore`: one conversation's summary,
//! paging a history backwards, titles, and deleting a conversation with its messages.

use super::{fresh_conversation, ok};
use crate::{Store, TurnRequest};
use steward_protocol::{ConversationTitle, Message};

fn texts(n: std::ops::Range<usize>) -> Vec<Message> {
    n.map(|i| Message::user(format!("message {i}"))).collect()
}

pub async fn history_pages_walk_backwards(store: &dyn Store) {
    const CASE: &str = "history_pages_walk_backwards";
    let conv = fresh_conversation(CASE);
    ok(
        CASE,
        "append",
        store.append_messages(&conv, &texts(0..7)).await,
    );
    let last = ok(CASE, "page 1", store.history_page(&conv, None, 3).await);
    let seqs: Vec<u64> = last.iter().map(|i| i.seq).collect();
    assert_eq!(seqs, [4, 5, 6], "[{CASE}] the newest page, oldest first");
    assert_eq!(last[2].message.content, "message 6", "[{CASE}]");
    assert!(last.iter().all(|i| i.at_ms > 0), "[{CASE}] times set");
    let before = ok(CASE, "page 2", store.history_page(&conv, Some(4), 3).await);
    assert_eq!(
        before.iter().map(|i| i.seq).collect::<Vec<_>>(),
        [1, 2, 3],
        "[{CASE}]"
    );
    let first = ok(CASE, "page 3", store.history_page(&conv, Some(1), 3).await);
    assert_eq!(
        first.iter().map(|i| i.seq).collect::<Vec<_>>(),
        [0],
        "[{CASE}]"
    );
    assert!(
        ok(
            CASE,
            "past the start",
            store.history_page(&conv, Some(0), 3).await
        )
        .is_empty(),
        "[{CASE}]"
    );
    assert!(
        ok(CASE, "limit 0", store.history_page(&conv, None, 0).await).is_empty(),
        "[{CASE}]"
    );
    let other = fresh_conversation(CASE);
    assert!(
        ok(CASE, "unknown", store.history_page(&other, None, 10).await).is_empty(),
        "[{CASE}] an unknown conversation has no history"
    );
    assert_eq!(
        ok(CASE, "summary of unknown", store.conversation(&other).await),
        None,
        "[{CASE}]"
    );
    let summary = ok(CASE, "summary", store.conversation(&conv).await).expect("exists");
    assert_eq!(summary.message_count, 7, "[{CASE}]");
    assert_eq!(summary.title, None, "[{CASE}] untitled at first");
}

pub async fn titles_are_set_cleared_and_listed(store: &dyn Store) {
    const CASE: &str = "titles_are_set_cleared_and_listed";
    let conv = fresh_conversation(CASE);
    let title = ConversationTitle::parse("Trip to Oslo ✈").expect("valid");
    assert!(
        !ok(
            CASE,
            "title of unknown",
            store.set_title(&conv, Some(&title)).await
        ),
        "[{CASE}] no conversation, nothing titled"
    );
    ok(
        CASE,
        "append",
        store.append_messages(&conv, &texts(0..1)).await,
    );
    assert!(
        ok(CASE, "set", store.set_title(&conv, Some(&title)).await),
        "[{CASE}]"
    );
    let got = ok(CASE, "summary", store.conversation(&conv).await).expect("exists");
    assert_eq!(got.title.as_ref(), Some(&title), "[{CASE}]");
    let listed = ok(CASE, "list", store.list_conversations(1000).await);
    let mine = listed.iter().find(|s| s.id == conv).expect("listed");
    assert_eq!(
        mine.title.as_ref(),
        Some(&title),
        "[{CASE}] the list carries it"
    );
    assert!(
        ok(CASE, "clear", store.set_title(&conv, None).await),
        "[{CASE}]"
    );
    let got = ok(CASE, "summary", store.conversation(&conv).await).expect("exists");
    assert_eq!(got.title, None, "[{CASE}] cleared");
}

pub async fn deleting_a_conversation_takes_its_messages_only(store: &dyn Store) {
    const CASE: &str = "deleting_a_conversation_takes_its_messages_only";
    let (gone, kept) = (fresh_conversation(CASE), fresh_conversation(CASE));
    ok(
        CASE,
        "append gone",
        store.append_messages(&gone, &texts(0..3)).await,
    );
    ok(
        CASE,
        "append kept",
        store.append_messages(&kept, &texts(0..2)).await,
    );
    let key = format!("{}", uuid::Uuid::new_v4().simple());
    let record = TurnRequest {
        key: key.clone(),
        conversation: gone.clone(),
        turn_id: "t".into(),
        fingerprint: "f".into(),
        user_stored: true,
        outcome: None,
        created_at_ms: 1,
        updated_at_ms: 1,
    };
    ok(
        CASE,
        "request record",
        store.save_turn_request(&record).await,
    );
    assert!(
        ok(CASE, "delete", store.delete_conversation(&gone).await),
        "[{CASE}]"
    );
    assert_eq!(
        ok(CASE, "summary", store.conversation(&gone).await),
        None,
        "[{CASE}]"
    );
    assert!(
        ok(CASE, "messages", store.recent_messages(&gone, 10).await).is_empty(),
        "[{CASE}]"
    );
    assert_eq!(
        ok(CASE, "request", store.turn_request(&key).await),
        None,
        "[{CASE}] its request records go too (a retry cannot resurrect it)"
    );
    assert_eq!(
        ok(CASE, "other", store.recent_messages(&kept, 10).await).len(),
        2,
        "[{CASE}] other conversations untouched"
    );
    assert!(
        !ok(CASE, "delete again", store.delete_conversation(&gone).await),
        "[{CASE}]"
    );
    // A deleted conversation can start again from nothing.
    ok(
        CASE,
        "append again",
        store.append_messages(&gone, &texts(0..1)).await,
    );
    let page = ok(CASE, "page", store.history_page(&gone, None, 10).await);
    assert_eq!(
        page.iter().map(|i| i.seq).collect::<Vec<_>>(),
        [0],
        "[{CASE}]"
    );
}
