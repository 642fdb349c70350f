//! The desk's read-later, learning and reminder operations over a real in-memory store: each
//! principal sees and changes only their own rows (another's id is not found and changes
//! nothing), unknown ids are not found, and tags are held to the one rule.

use super::*;
use std::sync::Arc;
use steward_memory::{Memory, MemoryConfig};
use steward_protocol::PrincipalId;
use steward_store::{Store, StoreConfig};

fn principal(id: &str) -> Principal {
    Principal::authenticated(PrincipalId::parse(id).unwrap())
}

fn desk() -> (MemoryService, Arc<dyn Store>) {
    let store = steward_store::open(&StoreConfig::in_memory()).unwrap();
    let memory = Arc::new(Memory::new(store.clone(), None, MemoryConfig::default()));
    (MemoryService::new(memory), store)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn read_later_is_listed_marked_and_deleted_for_its_owner_only() {
    let (desk, store) = desk();
    let (ann, bob) = (principal("ann"), principal("bob"));
    let tags = strings(&["rust"]);
    let a = store
        .add_read_later("ann", "https://a.example", "<script>x</script>", &tags, 1)
        .await
        .unwrap();
    let b = store
        .add_read_later("ann", "https://b.example", "Cooking", &[], 2)
        .await
        .unwrap();
    let theirs = store
        .add_read_later("bob", "https://c.example", "bob's", &[], 3)
        .await
        .unwrap();

    let ids = |items: Vec<ReadLater>| items.into_iter().map(|i| i.id).collect::<Vec<_>>();
    let listed = desk.read_later(&ann, &[], false, 10).await.unwrap();
    assert_eq!(ids(listed), [b.id, a.id]);
    let by_tag = desk
        .read_later(&ann, &strings(&[" Rust "]), false, 10)
        .await;
    assert_eq!(
        ids(by_tag.unwrap()),
        [a.id],
        "tags as typed, folded by the rule"
    );
    let bad_tag = desk
        .read_later(&ann, &strings(&["no spaces"]), false, 10)
        .await;
    assert!(
        matches!(bad_tag, Err(MemoryDeskError::Invalid(_))),
        "{bad_tag:?}"
    );
    assert_eq!(desk.read_later(&ann, &[], false, 1).await.unwrap().len(), 1);

    let read = desk.mark_read_later(&ann, a.id, true).await.unwrap();
    assert!(read.read_at_ms.is_some());
    assert_eq!(read.title, "<script>x</script>", "kept verbatim");
    let unread = desk.read_later(&ann, &[], false, 10).await.unwrap();
    assert_eq!(ids(unread), [b.id], "read items leave the default listing");
    let everything = desk.read_later(&ann, &[], true, 10).await.unwrap();
    assert_eq!(ids(everything), [b.id, a.id]);
    let again = desk.mark_read_later(&ann, a.id, false).await.unwrap();
    assert_eq!(again.read_at_ms, None);

    let not_found = Err(MemoryDeskError::NotFound(Missing::ReadLater));
    assert_eq!(desk.mark_read_later(&ann, theirs.id, true).await, not_found);
    assert_eq!(
        desk.delete_read_later(&ann, theirs.id).await,
        Err(MemoryDeskError::NotFound(Missing::ReadLater))
    );
    assert_eq!(desk.mark_read_later(&ann, 0, true).await, not_found);
    assert_eq!(desk.mark_read_later(&ann, i64::MAX, true).await, not_found);
    let kept = desk.read_later(&bob, &[], true, 10).await.unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].read_at_ms, None, "bob's item untouched");

    desk.delete_read_later(&ann, a.id).await.unwrap();
    assert_eq!(
        desk.delete_read_later(&ann, a.id).await,
        Err(MemoryDeskError::NotFound(Missing::ReadLater))
    );
    assert_eq!(
        ids(desk.read_later(&ann, &[], true, 10).await.unwrap()),
        [b.id]
    );
}

#[tokio::test]
async fn learnings_are_listed_and_deleted_for_their_owner_only() {
    let (desk, store) = desk();
    let (ann, bob) = (principal("ann"), principal("bob"));
    let often = store.bump_learning("ann", "Prefers tea", 1).await.unwrap();
    store.bump_learning("ann", "prefers tea", 2).await.unwrap();
    let once = store
        .bump_learning("ann", "Lives in Lyon", 3)
        .await
        .unwrap();
    let theirs = store.bump_learning("bob", "Bob's habit", 4).await.unwrap();

    let listed = desk.learnings(&ann, 10).await.unwrap();
    let summary: Vec<(i64, u32)> = listed.iter().map(|l| (l.id, l.recurrence)).collect();
    assert_eq!(
        summary,
        [(often.id, 2), (once.id, 1)],
        "most recurrent first"
    );
    assert_eq!(desk.learnings(&ann, 1).await.unwrap().len(), 1);

    let not_found = Err(MemoryDeskError::NotFound(Missing::Learning));
    assert_eq!(desk.delete_learning(&ann, theirs.id).await, not_found);
    assert_eq!(
        desk.learnings(&bob, 10).await.unwrap().len(),
        1,
        "bob's kept"
    );
    desk.delete_learning(&ann, often.id).await.unwrap();
    assert_eq!(desk.delete_learning(&ann, often.id).await, not_found);
    let left = desk.learnings(&ann, 10).await.unwrap();
    assert_eq!(left.iter().map(|l| l.id).collect::<Vec<_>>(), [once.id]);
}

#[tokio::test]
async fn reminders_are_marked_done_reopened_and_deleted_for_their_owner_only() {
    let (desk, store) = desk();
    let (ann, bob) = (principal("ann"), principal("bob"));
    let call = store
        .add_intention("ann", "Call the plumber", Some(50), 1)
        .await
        .unwrap();
    let theirs = store
        .add_intention("bob", "Bob's errand", None, 2)
        .await
        .unwrap();

    let done = desk.mark_reminder(&ann, call.id, true).await.unwrap();
    assert!(!done.open);
    assert!(desk.reminders(&ann, false).await.unwrap().is_empty());
    assert_eq!(desk.reminders(&ann, true).await.unwrap().len(), 1);
    let reopened = desk.mark_reminder(&ann, call.id, false).await.unwrap();
    assert_eq!(reopened, call, "open again, as it was");

    let not_found = Err(MemoryDeskError::NotFound(Missing::Reminder));
    assert_eq!(desk.mark_reminder(&ann, theirs.id, true).await, not_found);
    assert_eq!(
        desk.delete_reminder(&ann, theirs.id).await,
        Err(MemoryDeskError::NotFound(Missing::Reminder))
    );
    let bobs = desk.reminders(&bob, false).await.unwrap();
    assert_eq!(bobs.len(), 1, "bob's still open");

    desk.delete_reminder(&ann, call.id).await.unwrap();
    assert_eq!(
        desk.delete_reminder(&ann, call.id).await,
        Err(MemoryDeskError::NotFound(Missing::Reminder))
    );
    assert_eq!(desk.mark_reminder(&ann, call.id, true).await, not_found);
    assert!(desk.reminders(&ann, true).await.unwrap().is_empty());
}
