//! Contract cases for the owner's changes to read-later items, learnings and intentions:
//! marking read and unread, closing and reopening, deleting (search index rows go too), each
//! keyed by the user as well as the id, so another user's id changes nothing.

use super::{T0, fresh_user, fts, kinds, strings};
use crate::Store;
use crate::contract::ok;
use steward_protocol::{MemoryKind, MemoryRef};

pub async fn read_later_marked_read_and_deleted_per_user(store: &dyn Store) {
    const CASE: &str = "read_later_marked_read_and_deleted_per_user";
    let (user, other) = (fresh_user(CASE), fresh_user(CASE));
    let tags = strings(&["rust"]);
    let add = |at: i64, title: &'static str| {
        let (user, tags) = (user.clone(), tags.clone());
        async move {
            let added = store.add_read_later(&user, "https://r.example/a", title, &tags, at);
            ok(CASE, "add", added.await)
        }
    };
    let first = add(T0, "Ferrous ownership").await;
    let second = add(T0 + 1, "Borrowck by example").await;
    assert_eq!(first.read_at_ms, None, "[{CASE}] new items are unread");

    let read = ok(
        CASE,
        "mark",
        store.mark_read_later(&user, first.id, true, T0 + 10).await,
    );
    assert_eq!(
        read.as_ref().map(|i| i.read_at_ms),
        Some(Some(T0 + 10)),
        "[{CASE}]"
    );
    let again = store.mark_read_later(&user, first.id, true, T0 + 20).await;
    let again = ok(CASE, "mark again", again);
    assert_eq!(
        again.and_then(|i| i.read_at_ms),
        Some(T0 + 10),
        "[{CASE}] the first time it was read is kept"
    );
    let ids = |unread_only: bool| {
        let user = user.clone();
        async move {
            let items = store.list_read_later(&user, &[], unread_only, 10).await;
            let items = ok(CASE, "list", items);
            items.into_iter().map(|i| i.id).collect::<Vec<_>>()
        }
    };
    assert_eq!(ids(true).await, [second.id], "[{CASE}] unread only");
    assert_eq!(ids(false).await, [second.id, first.id], "[{CASE}] all");
    let listed = ok(
        CASE,
        "list",
        store.list_read_later(&user, &tags, false, 10).await,
    );
    assert_eq!(listed[1], read.unwrap_or_else(|| panic!("[{CASE}]")));

    // Another user's id is not theirs: nothing changes.
    let foreign = store
        .mark_read_later(&other, second.id, true, T0 + 30)
        .await;
    assert_eq!(ok(CASE, "foreign mark", foreign), None, "[{CASE}]");
    let foreign = store.delete_read_later(&other, second.id).await;
    assert!(!ok(CASE, "foreign delete", foreign), "[{CASE}]");
    assert_eq!(ids(true).await, [second.id], "[{CASE}] untouched");
    let missing = store.mark_read_later(&user, -5, true, T0).await;
    assert_eq!(ok(CASE, "unknown id", missing), None, "[{CASE}]");

    let unread = store.mark_read_later(&user, first.id, false, T0 + 40).await;
    let unread = ok(CASE, "unread", unread);
    assert_eq!(unread.map(|i| i.read_at_ms), Some(None), "[{CASE}]");
    assert_eq!(ids(true).await.len(), 2, "[{CASE}] unread again");

    let found = fts(store, CASE, &user, "ferrous", &kinds(&[])).await;
    let r = MemoryRef {
        kind: MemoryKind::ReadLater,
        id: first.id,
    };
    assert_eq!(found, [r], "[{CASE}] searchable before the delete");
    let deleted = store.delete_read_later(&user, first.id).await;
    assert!(ok(CASE, "delete", deleted), "[{CASE}]");
    let gone = store.delete_read_later(&user, first.id).await;
    assert!(!ok(CASE, "delete again", gone), "[{CASE}]");
    assert_eq!(ids(false).await, [second.id], "[{CASE}]");
    let found = fts(store, CASE, &user, "ferrous", &kinds(&[])).await;
    assert!(found.is_empty(), "[{CASE}] its index row went with it");
}

pub async fn learnings_deleted_per_user(store: &dyn Store) {
    const CASE: &str = "learnings_deleted_per_user";
    let (user, other) = (fresh_user(CASE), fresh_user(CASE));
    let learning = ok(
        CASE,
        "bump",
        store.bump_learning(&user, "Prefers metric units", T0).await,
    );
    ok(
        CASE,
        "bump",
        store
            .bump_learning(&user, "Prefers metric units", T0 + 1)
            .await,
    );
    let foreign = store.delete_learning(&other, learning.id).await;
    assert!(!ok(CASE, "foreign delete", foreign), "[{CASE}]");
    assert_eq!(
        ok(CASE, "top", store.top_learnings(&user, 5).await).len(),
        1,
        "[{CASE}] untouched"
    );
    assert!(
        ok(
            CASE,
            "delete",
            store.delete_learning(&user, learning.id).await
        ),
        "[{CASE}]"
    );
    assert!(
        ok(CASE, "top", store.top_learnings(&user, 5).await).is_empty(),
        "[{CASE}]"
    );
    let found = fts(store, CASE, &user, "metric units", &kinds(&[])).await;
    assert!(found.is_empty(), "[{CASE}] its index row went with it");
    let again = store.bump_learning(&user, "prefers metric units", T0 + 2);
    let again = ok(CASE, "seen again", again.await);
    assert_eq!(again.recurrence, 1, "[{CASE}] starts over");
    let found = fts(store, CASE, &user, "metric units", &kinds(&[])).await;
    assert_eq!(found.len(), 1, "[{CASE}] and is indexed again");
    assert!(
        !ok(CASE, "unknown", store.delete_learning(&user, -1).await),
        "[{CASE}]"
    );
}

pub async fn intentions_closed_reopened_and_deleted_per_user(store: &dyn Store) {
    const CASE: &str = "intentions_closed_reopened_and_deleted_per_user";
    let (user, other) = (fresh_user(CASE), fresh_user(CASE));
    let add = store.add_intention(&user, "Call the plumber", Some(T0 + 99), T0);
    let intention = ok(CASE, "add", add.await);
    ok(CASE, "nudge", store.nudge_intention(intention.id).await);

    let foreign = store.set_intention_done(&other, intention.id, true).await;
    assert_eq!(ok(CASE, "foreign close", foreign), None, "[{CASE}]");
    let open = ok(CASE, "open", store.list_intentions(&user, true).await);
    assert_eq!(open.len(), 1, "[{CASE}] still open");

    let closed = store.set_intention_done(&user, intention.id, true).await;
    let closed = ok(CASE, "close", closed).unwrap_or_else(|| panic!("[{CASE}] not found"));
    assert!(!closed.open, "[{CASE}]");
    assert_eq!(closed.nudges, 1, "[{CASE}] nudges kept");
    let open = ok(CASE, "open", store.list_intentions(&user, true).await);
    assert!(open.is_empty(), "[{CASE}]");
    let reopened = store.set_intention_done(&user, intention.id, false).await;
    let reopened = ok(CASE, "reopen", reopened).unwrap_or_else(|| panic!("[{CASE}]"));
    assert_eq!(
        reopened,
        crate::Intention {
            nudges: 1,
            ..intention.clone()
        },
        "[{CASE}] open again, nothing else changed"
    );
    let missing = store.set_intention_done(&user, -3, true).await;
    assert_eq!(ok(CASE, "unknown", missing), None, "[{CASE}]");

    let foreign = store.delete_intention(&other, intention.id).await;
    assert!(!ok(CASE, "foreign delete", foreign), "[{CASE}]");
    assert!(
        ok(
            CASE,
            "delete",
            store.delete_intention(&user, intention.id).await
        ),
        "[{CASE}]"
    );
    let all = ok(CASE, "all", store.list_intentions(&user, false).await);
    assert!(all.is_empty(), "[{CASE}]");
    let found = fts(store, CASE, &user, "plumber", &kinds(&[])).await;
    assert!(found.is_empty(), "[{CASE}] its index row went with it");
}
