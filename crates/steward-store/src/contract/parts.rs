//! Contract cases for message parts: attachments stored with their message and read back by
//! every reader (`recent_messages`, `history_page`, `messages_since`), and the `BlobStore`
//! port (round trip, limits checked before anything is written, unknown blobs).

use super::{fresh_conversation, ok};
use crate::{BlobError, BlobStore, Store};
use steward_protocol::{
    Attachment, BlobRef, FileName, Message, MimeType, PartError, ToolCall, Upload,
};

fn attachment(mime: &str, name: Option<&str>, bytes: &[u8]) -> Attachment {
    Attachment::new(
        MimeType::parse(mime).unwrap(),
        bytes.len() as u64,
        name.map(|n| FileName::parse(n).unwrap()),
        BlobRef::of(bytes),
    )
}

pub async fn attachments_round_trip_with_their_message(store: &dyn Store) {
    const CASE: &str = "attachments_round_trip_with_their_message";
    let id = fresh_conversation(CASE);
    let photo = attachment("image/jpeg", Some("Zürich 🦀.jpg"), b"jpeg bytes");
    let voice = attachment("audio/ogg", None, b"ogg bytes");
    let call = ToolCall {
        id: "c1".into(),
        name: "noop".into(),
        arguments: "{}".into(),
    };
    let messages = vec![
        Message::user_with("what is this?", vec![photo.clone(), voice.clone()]),
        Message::assistant("", vec![call.clone()]),
        Message::tool_result(&call, "done"),
        // A part with no text at all is a message too.
        Message::user_with("", vec![photo.clone()]),
        Message::user("plain"),
    ];
    ok(CASE, "append", store.append_messages(&id, &messages).await);
    let back = ok(CASE, "recent", store.recent_messages(&id, usize::MAX).await);
    assert_eq!(back, messages, "[{CASE}] recent_messages");
    let page = ok(CASE, "page", store.history_page(&id, None, 10).await);
    let paged: Vec<Message> = page.into_iter().map(|i| i.message).collect();
    assert_eq!(paged, messages, "[{CASE}] history_page");
    let since = ok(CASE, "since", store.messages_since(0, usize::MAX).await);
    let mine: Vec<&Message> = since
        .iter()
        .filter(|m| m.conversation == id)
        .map(|m| &m.message)
        .collect();
    assert_eq!(mine.len(), messages.len(), "[{CASE}] messages_since");
    assert_eq!(mine[0].attachments, vec![photo, voice], "[{CASE}] since");
}

/// Every `BlobStore` adapter: `limits` must allow at least 64 bytes a part, 2 parts, and
/// must refuse a part of `limits().max_part_bytes + 1`.
pub async fn run_blobs(blobs: &dyn BlobStore) {
    const CASE: &str = "blob_store";
    let unique = uuid::Uuid::new_v4().to_string();
    let data = format!("photo bytes {unique}").into_bytes();
    let png = MimeType::parse("image/png").unwrap();
    let up = Upload::new(png, None, data.clone()).unwrap();
    let blob = up.attachment().blob().clone();
    assert!(
        matches!(blobs.get(&blob).await, Err(BlobError::NotFound(_))),
        "[{CASE}] an unknown blob is NotFound"
    );
    let put = blobs.put_all(std::slice::from_ref(&up)).await;
    assert!(put.is_ok(), "[{CASE}] put: {put:?}");
    // The same bytes again (a retried message) are fine and change nothing.
    let again = blobs.put_all(&[up.clone(), up.clone()]).await;
    assert!(again.is_ok(), "[{CASE}] put again: {again:?}");
    match blobs.get(&blob).await {
        Ok(back) => assert_eq!(&*back, &data[..], "[{CASE}] bytes round trip"),
        Err(e) => panic!("[{CASE}] get: {e}"),
    }

    // One part over the limit refuses the whole message: the small part is not written.
    let limit = blobs.limits().max_part_bytes;
    let small = Upload::new(png, None, format!("small {unique}").into_bytes()).unwrap();
    let big = Upload::new(png, None, vec![7u8; (limit + 1) as usize]).unwrap();
    match blobs.put_all(&[small.clone(), big.clone()]).await {
        Err(BlobError::Refused(PartError::PartTooLarge { size, .. })) => {
            assert_eq!(size, limit + 1, "[{CASE}] refusal names the size")
        }
        other => panic!("[{CASE}] oversized part: expected Refused, got {other:?}"),
    }
    for refused in [small.attachment().blob(), big.attachment().blob()] {
        assert!(
            matches!(blobs.get(refused).await, Err(BlobError::NotFound(_))),
            "[{CASE}] nothing of a refused message is stored"
        );
    }
}
