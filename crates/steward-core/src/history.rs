//! History trimming: the window of past messages sent with a turn.
//!
//! A model API rejects a tool result whose call it has not seen, and a tool call without
//! its result; Anthropic and Gemini also require the first message to be the user's. So the
//! window is cut by message count, then repaired by dropping whole broken groups, never by
//! separating a call from its result. A message keeps its parts (attachments) whatever is
//! cut: they are part of the message.
//!
//! Which parts are sent again as data (`parts_to_send`): those of the newest two user
//! messages — the one being answered and the one before it, so "and what is behind the
//! car?" still sees the photo — and no older ones, which the model reads as a placeholder
//! (`[image: photo.jpg, 120 KB]`). An image costs about as many tokens as a page of text on
//! every call it is sent, and the window holds up to `agent.history_messages` messages.

use std::collections::HashSet;
use steward_protocol::{Attachment, Message, Role};

/// How many of the newest user messages have their parts sent as data.
pub(crate) const PARTS_RESENT_USER_MESSAGES: usize = 2;

/// The attachments whose bytes go with a request built from `messages` (oldest first): the
/// parts of the newest `PARTS_RESENT_USER_MESSAGES` user messages; every other attachment is
/// sent as its placeholder text.
pub(crate) fn parts_to_send(messages: &[Message]) -> Vec<&Attachment> {
    messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::User)
        .take(PARTS_RESENT_USER_MESSAGES)
        .flat_map(|m| m.attachments.iter())
        .collect()
}

/// The last `max` messages of `messages`, minus anything that would break pairing:
/// orphan tool results, assistant tool calls lacking a result, and everything before the
/// first user message.
pub fn trim_history(messages: &[Message], max: usize) -> Vec<Message> {
    let window = &messages[messages.len().saturating_sub(max)..];
    let mut out: Vec<Message> = Vec::with_capacity(window.len());
    let mut i = 0;
    while i < window.len() {
        let m = &window[i];
        match m.role {
            // A result whose call is not right before it: its call was cut off.
            Role::Tool => i += 1,
            Role::Assistant if !m.tool_calls.is_empty() => {
                let mut j = i + 1;
                while j < window.len() && window[j].role == Role::Tool {
                    j += 1;
                }
                let results = &window[i + 1..j];
                let answered = |id: &str| {
                    results
                        .iter()
                        .any(|r| r.tool_call_id.as_deref() == Some(id))
                };
                if m.tool_calls.iter().all(|c| answered(&c.id)) {
                    out.push(m.clone());
                    let mut seen = HashSet::new();
                    for r in results {
                        let Some(id) = r.tool_call_id.as_deref() else {
                            continue;
                        };
                        if m.tool_calls.iter().any(|c| c.id == id) && seen.insert(id) {
                            out.push(r.clone());
                        }
                    }
                }
                i = j;
            }
            _ => {
                out.push(m.clone());
                i += 1;
            }
        }
    }
    let first_user = out
        .iter()
        .position(|m| m.role == Role::User)
        .unwrap_or(out.len());
    out.drain(..first_user);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use steward_protocol::{BlobRef, MimeType, ToolCall};

    fn photo(n: usize) -> Attachment {
        let bytes = format!("photo {n}");
        Attachment::new(
            MimeType::parse("image/jpeg").unwrap(),
            bytes.len() as u64,
            None,
            BlobRef::of(bytes.as_bytes()),
        )
    }

    fn call(id: usize) -> ToolCall {
        ToolCall {
            id: format!("c{id}"),
            name: "t".into(),
            arguments: "{}".into(),
        }
    }

    /// Checks every pairing invariant on a trimmed history.
    fn assert_well_formed(h: &[Message]) {
        if let Some(first) = h.first() {
            assert_eq!(first.role, Role::User, "first message must be the user's");
        }
        let mut i = 0;
        while i < h.len() {
            let m = &h[i];
            assert_ne!(m.role, Role::Tool, "tool result at {i} without its call");
            if m.role == Role::Assistant && !m.tool_calls.is_empty() {
                let mut j = i + 1;
                while j < h.len() && h[j].role == Role::Tool {
                    let id = h[j].tool_call_id.as_deref().unwrap_or("");
                    assert!(
                        m.tool_calls.iter().any(|c| c.id == id),
                        "result {id} not for this call"
                    );
                    j += 1;
                }
                for c in &m.tool_calls {
                    assert!(
                        h[i + 1..j]
                            .iter()
                            .any(|r| r.tool_call_id.as_deref() == Some(&c.id)),
                        "call {} lost its result",
                        c.id
                    );
                }
                i = j;
            } else {
                i += 1;
            }
        }
    }

    /// A well-formed conversation: turns of user, (assistant calls + results)*, assistant answer.
    fn conversation() -> impl Strategy<Value = Vec<Message>> {
        prop::collection::vec(prop::collection::vec(1usize..4, 0..3), 0..8).prop_map(|turns| {
            let mut next = 0;
            let mut msgs = Vec::new();
            for (t, rounds) in turns.into_iter().enumerate() {
                // Every other user message carries a photo: trimming must keep it with its message.
                if t % 2 == 0 {
                    msgs.push(Message::user_with("q", vec![photo(t)]));
                } else {
                    msgs.push(Message::user("q"));
                }
                for n in rounds {
                    let calls: Vec<ToolCall> = (0..n)
                        .map(|_| {
                            next += 1;
                            call(next)
                        })
                        .collect();
                    msgs.push(Message::assistant("", calls.clone()));
                    for c in &calls {
                        msgs.push(Message::tool_result(c, "r"));
                    }
                }
                msgs.push(Message::assistant("a", vec![]));
            }
            msgs
        })
    }

    /// Arbitrary, possibly broken sequences (as a damaged store could hold).
    fn any_messages() -> impl Strategy<Value = Vec<Message>> {
        prop::collection::vec((0u8..4, 0usize..6, 0usize..3), 0..30).prop_map(|items| {
            items
                .into_iter()
                .map(|(kind, id, n)| match kind {
                    0 => Message::user("q"),
                    1 => Message::assistant("a", vec![]),
                    2 => Message::assistant("", (0..n).map(|k| call(id + k)).collect()),
                    _ => Message::tool_result(&call(id), "r"),
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn trimming_a_good_history_keeps_a_suffix_with_pairs(msgs in conversation(), max in 0usize..40) {
            let h = trim_history(&msgs, max);
            assert_well_formed(&h);
            prop_assert!(h.len() <= max);
            prop_assert!(msgs.ends_with(&h), "a well-formed history is only cut at the front");
            // Nothing is lost needlessly: if the window starts at a user message it is kept whole.
            let start = msgs.len().saturating_sub(max);
            if msgs.get(start).map(|m| m.role) == Some(Role::User) {
                prop_assert_eq!(h.len(), msgs.len() - start);
            }
        }

        #[test]
        fn trimming_any_history_never_separates_calls_and_results(msgs in any_messages(), max in 0usize..40) {
            let h = trim_history(&msgs, max);
            assert_well_formed(&h);
            prop_assert!(h.len() <= max);
        }
    }

    #[test]
    fn a_cut_through_a_tool_group_drops_the_whole_group() {
        let c = call(1);
        let msgs = vec![
            Message::user("first"),
            Message::assistant("", vec![c.clone()]),
            Message::tool_result(&c, "r"),
            Message::assistant("done", vec![]),
            Message::user("second"),
            Message::assistant("ok", vec![]),
        ];
        // The window of 4 starts at the tool result: it and the answer before "second" go.
        let h = trim_history(&msgs, 4);
        assert_eq!(h, msgs[4..].to_vec());
        assert_eq!(trim_history(&msgs, 6), msgs);
    }

    #[test]
    fn only_the_newest_two_user_messages_send_their_parts() {
        let c = call(1);
        let msgs = vec![
            Message::user_with("oldest", vec![photo(0)]),
            Message::assistant("a", vec![]),
            Message::user_with("previous", vec![photo(1), photo(2)]),
            Message::assistant("", vec![c.clone()]),
            Message::tool_result(&c, "r"),
            Message::assistant("b", vec![]),
            Message::user_with("current", vec![photo(3)]),
        ];
        let sent: Vec<&Attachment> = parts_to_send(&msgs);
        assert_eq!(sent, vec![&photo(3), &photo(1), &photo(2)]);
        // A current message without parts still lets the previous one's photo through.
        let mut plain = msgs.clone();
        plain[6] = Message::user("and behind the car?");
        assert_eq!(parts_to_send(&plain), vec![&photo(1), &photo(2)]);
        assert!(parts_to_send(&msgs[..2]).contains(&&photo(0)));
        // Trimming keeps every part with its message.
        let trimmed = trim_history(&msgs, 5);
        assert_eq!(trimmed[0].attachments, vec![photo(1), photo(2)]);
    }
}
