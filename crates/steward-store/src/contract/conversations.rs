//! Contract cases for `ConversationStore`: round trips, ordering, limits, atomicity, isolation,
//! listing and concurrency.

use super::{fresh_conversation, join_all, ok};
use crate::Store;
use std::collections::HashSet;
use std::sync::Arc;
use steward_protocol::{ConversationId, Message, ToolCall};

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

fn numbered(range: std::ops::Range<usize>) -> Vec<Message> {
    range.map(|i| Message::user(format!("m{i}"))).collect()
}

fn contents(messages: &[Message]) -> Vec<&str> {
    messages.iter().map(|m| m.content.as_str()).collect()
}

async fn all_messages(store: &dyn Store, case: &str, id: &ConversationId) -> Vec<Message> {
    ok(
        case,
        "recent_messages(all)",
        store.recent_messages(id, usize::MAX).await,
    )
}

pub async fn round_trip_all_roles(store: &dyn Store) {
    const CASE: &str = "round_trip_all_roles";
    let id = fresh_conversation(CASE);
    let weather = call("call_1", "weather", r#"{"city": "Zürich", "unit": "°C"}"#);
    // Models do emit broken JSON; it must come back byte for byte so the error reaches them.
    let broken = call("call_2", "search", r#"{"query": "unterminated"#);
    let empty_args = call("", "noop", "");
    let mut orphan_tool = Message::user("tool output with no ids");
    orphan_tool.role = steward_protocol::Role::Tool;
    let messages = vec![
        Message::user(
            "héllo 🦀 — \t tab, \r\n crlf, \u{1b}[31m escape, \u{7f} del, \u{200b}\u{202e} bidi",
        ),
        Message::assistant(
            "",
            vec![weather.clone(), broken.clone(), empty_args.clone()],
        ),
        Message::tool_result(&weather, r#"{"temp": 21.5, "sky": "☀️"}"#),
        Message::tool_result(&broken, "error: arguments are not valid JSON"),
        Message::tool_result(&empty_args, ""),
        orphan_tool,
        Message::assistant("Il fait 21,5 °C à Zürich. 日本語も大丈夫。", Vec::new()),
        Message::user("   leading and trailing whitespace   \n"),
    ];
    ok(CASE, "append", store.append_messages(&id, &messages).await);
    let back = all_messages(store, CASE, &id).await;
    assert_eq!(
        back, messages,
        "[{CASE}] messages did not round-trip exactly"
    );
}

pub async fn large_message_round_trip(store: &dyn Store) {
    const CASE: &str = "large_message_round_trip";
    let id = fresh_conversation(CASE);
    // A few MiB, e.g. a long tool output; with multibyte chars so truncation would show.
    let big = "größer 🦀 ".repeat(300_000);
    let call = call(
        "c",
        "read_file",
        &format!("{{\"pad\": \"{}\"}}", "x".repeat(100_000)),
    );
    let messages = vec![
        Message::assistant("", vec![call.clone()]),
        Message::tool_result(&call, big),
    ];
    ok(CASE, "append", store.append_messages(&id, &messages).await);
    let back = all_messages(store, CASE, &id).await;
    assert!(
        back == messages,
        "[{CASE}] large messages did not round-trip exactly"
    );
}

pub async fn ordering_across_many_appends(store: &dyn Store) {
    const CASE: &str = "ordering_across_many_appends";
    let id = fresh_conversation(CASE);
    let mut next = 0;
    for round in 0..25 {
        let batch = numbered(next..next + 1 + round % 4);
        next += batch.len();
        ok(CASE, "append", store.append_messages(&id, &batch).await);
    }
    let back = all_messages(store, CASE, &id).await;
    let expected: Vec<String> = (0..next).map(|i| format!("m{i}")).collect();
    assert_eq!(
        contents(&back),
        expected,
        "[{CASE}] wrong order or missing messages"
    );
}

pub async fn recent_limit_returns_last_n_oldest_first(store: &dyn Store) {
    const CASE: &str = "recent_limit_returns_last_n_oldest_first";
    let id = fresh_conversation(CASE);
    ok(
        CASE,
        "append",
        store.append_messages(&id, &numbered(0..6)).await,
    );
    ok(
        CASE,
        "append",
        store.append_messages(&id, &numbered(6..10)).await,
    );
    for (limit, from) in [(3, 7), (1, 9), (0, 10), (10, 0)] {
        let back = ok(
            CASE,
            "recent_messages",
            store.recent_messages(&id, limit).await,
        );
        assert_eq!(back, numbered(from..10), "[{CASE}] limit {limit}");
    }
    for limit in [11, 1000, usize::MAX] {
        let back = ok(
            CASE,
            "recent_messages",
            store.recent_messages(&id, limit).await,
        );
        assert_eq!(
            back,
            numbered(0..10),
            "[{CASE}] limit {limit} should return everything"
        );
    }
}

pub async fn unknown_conversation_is_empty(store: &dyn Store) {
    const CASE: &str = "unknown_conversation_is_empty";
    let id = fresh_conversation(CASE);
    let back = ok(
        CASE,
        "recent_messages",
        store.recent_messages(&id, 50).await,
    );
    assert!(back.is_empty(), "[{CASE}] got {} messages", back.len());
    let listed = ok(CASE, "list", store.list_conversations(usize::MAX).await);
    assert!(
        listed.iter().all(|c| c.id != id),
        "[{CASE}] reading a conversation must not create it"
    );
}

pub async fn empty_append_is_a_no_op(store: &dyn Store) {
    const CASE: &str = "empty_append_is_a_no_op";
    let id = fresh_conversation(CASE);
    ok(CASE, "append []", store.append_messages(&id, &[]).await);
    let listed = ok(CASE, "list", store.list_conversations(usize::MAX).await);
    assert!(
        listed.iter().all(|c| c.id != id),
        "[{CASE}] an empty append created the conversation"
    );
    ok(
        CASE,
        "append",
        store.append_messages(&id, &numbered(0..2)).await,
    );
    ok(CASE, "append []", store.append_messages(&id, &[]).await);
    assert_eq!(
        all_messages(store, CASE, &id).await,
        numbered(0..2),
        "[{CASE}]"
    );
}

/// NUL cannot be stored by every backend, so the port keeps every text field of a message
/// with NUL replaced by U+FFFD (the one scrub, `validate::storable`) instead of refusing the
/// append: a stray byte from a model or a tool never fails a turn, and the whole batch lands.
pub async fn nul_in_any_message_field_is_stored_scrubbed(store: &dyn Store) {
    const CASE: &str = "nul_in_any_message_field_is_stored_scrubbed";
    let r = crate::NUL_REPLACEMENT;
    let hostile = call("c\0&1", "run_\0code", "{\"code\":\"\0\"}");
    let mut result = Message::tool_result(&hostile, "out\0put");
    result.tool_name = Some("run_\0code".into());
    let mut batch = numbered(0..2);
    batch.push(Message::user("user\0text"));
    batch.push(Message::assistant("said\0", vec![hostile]));
    batch.push(result);
    batch.extend(numbered(2..3));

    let id = fresh_conversation(CASE);
    ok(
        CASE,
        "append with NUL",
        store.append_messages(&id, &batch).await,
    );
    let cleaned = call(
        &format!("c{r}&1"),
        &format!("run_{r}code"),
        &format!("{{\"code\":\"{r}\"}}"),
    );
    let mut cleaned_result = Message::tool_result(&cleaned, format!("out{r}put"));
    cleaned_result.tool_name = Some(format!("run_{r}code"));
    let mut want = numbered(0..2);
    want.push(Message::user(format!("user{r}text")));
    want.push(Message::assistant(format!("said{r}"), vec![cleaned]));
    want.push(cleaned_result);
    want.extend(numbered(2..3));
    let back = all_messages(store, CASE, &id).await;
    assert_eq!(back, want, "[{CASE}] every field scrubbed, nothing dropped");
    assert!(
        back.iter().all(|m| !m.content.contains('\0')),
        "[{CASE}] no NUL kept"
    );
    // A call and its result still pair up: both ids went through the same scrub.
    assert_eq!(
        back[3].tool_calls[0].id,
        back[4].tool_call_id.clone().unwrap()
    );
}

pub async fn conversations_are_isolated(store: &dyn Store) {
    const CASE: &str = "conversations_are_isolated";
    let a = fresh_conversation(CASE);
    let b = fresh_conversation(CASE);
    for i in 0..5 {
        ok(
            CASE,
            "append a",
            store
                .append_messages(&a, &[Message::user(format!("a{i}"))])
                .await,
        );
        ok(
            CASE,
            "append b",
            store
                .append_messages(&b, &[Message::user(format!("b{i}"))])
                .await,
        );
    }
    let only_a = all_messages(store, CASE, &a).await;
    assert_eq!(
        contents(&only_a),
        ["a0", "a1", "a2", "a3", "a4"],
        "[{CASE}] a"
    );
    let last_b = ok(CASE, "recent b", store.recent_messages(&b, 2).await);
    assert_eq!(contents(&last_b), ["b3", "b4"], "[{CASE}] b");
}

pub async fn list_conversations_most_recent_first(store: &dyn Store) {
    const CASE: &str = "list_conversations_most_recent_first";
    let [a, b, c] = [0, 1, 2].map(|_| fresh_conversation(CASE));
    // Appends in quick succession often share a millisecond: order must still be exact.
    ok(
        CASE,
        "append a",
        store.append_messages(&a, &numbered(0..1)).await,
    );
    ok(
        CASE,
        "append b",
        store.append_messages(&b, &numbered(0..3)).await,
    );
    ok(
        CASE,
        "append c",
        store.append_messages(&c, &numbered(0..1)).await,
    );
    ok(
        CASE,
        "append a again",
        store.append_messages(&a, &numbered(1..2)).await,
    );

    let listed = ok(CASE, "list", store.list_conversations(3).await);
    let ids: Vec<&ConversationId> = listed.iter().map(|s| &s.id).collect();
    assert_eq!(ids, [&a, &c, &b], "[{CASE}] wrong order");
    let counts: Vec<u64> = listed.iter().map(|s| s.message_count).collect();
    assert_eq!(counts, [2, 1, 3], "[{CASE}] wrong message counts");
    for s in &listed {
        assert!(s.created_at_ms > 0, "[{CASE}] created_at_ms not set: {s:?}");
        assert!(
            s.updated_at_ms >= s.created_at_ms,
            "[{CASE}] updated before created: {s:?}"
        );
    }
    let first = ok(CASE, "list(1)", store.list_conversations(1).await);
    assert_eq!(first.len(), 1, "[{CASE}] limit 1");
    assert_eq!(first[0].id, a, "[{CASE}] limit 1");
    assert!(
        ok(CASE, "list(0)", store.list_conversations(0).await).is_empty(),
        "[{CASE}] limit 0"
    );
}

/// Concurrent multi-message appends to one conversation: every batch lands whole and
/// contiguous, in its own order.
pub async fn concurrent_batches_do_not_interleave(store: &dyn Store) {
    const CASE: &str = "concurrent_batches_do_not_interleave";
    let id = fresh_conversation(CASE);
    let batches: Vec<Vec<Message>> = (0..20)
        .map(|b| (0..3).map(|i| Message::user(format!("b{b}.{i}"))).collect())
        .collect();
    let results = join_all(
        batches
            .iter()
            .map(|batch| store.append_messages(&id, batch))
            .collect(),
    )
    .await;
    for result in results {
        ok(CASE, "concurrent append", result);
    }
    let back = all_messages(store, CASE, &id).await;
    assert_eq!(back.len(), 60, "[{CASE}] expected 60 messages");
    let mut seen = HashSet::new();
    for chunk in back.chunks(3) {
        let batch = chunk[0]
            .content
            .split('.')
            .next()
            .unwrap_or_default()
            .to_owned();
        let expected: Vec<String> = (0..3).map(|i| format!("{batch}.{i}")).collect();
        assert_eq!(contents(chunk), expected, "[{CASE}] batches interleaved");
        assert!(
            seen.insert(batch.clone()),
            "[{CASE}] batch {batch} appears twice"
        );
    }
}

/// 50 appends from 50 tokio tasks: all present, each exactly once.
pub async fn concurrent_appends_from_tasks(store: Arc<dyn Store>) {
    const CASE: &str = "concurrent_appends_from_tasks";
    let id = fresh_conversation(CASE);
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let (store, id) = (Arc::clone(&store), id.clone());
            tokio::spawn(async move {
                store
                    .append_messages(&id, &[Message::user(format!("t{i}"))])
                    .await
            })
        })
        .collect();
    for task in tasks {
        match task.await {
            Ok(result) => ok(CASE, "append from task", result),
            Err(e) => panic!("[{CASE}] task failed: {e}"),
        }
    }
    let back = all_messages(&*store, CASE, &id).await;
    let got: HashSet<&str> = contents(&back).into_iter().collect();
    let want: Vec<String> = (0..50).map(|i| format!("t{i}")).collect();
    assert_eq!(back.len(), 50, "[{CASE}] expected 50 messages");
    assert!(
        want.iter().all(|w| got.contains(w.as_str())),
        "[{CASE}] missing messages"
    );
}
