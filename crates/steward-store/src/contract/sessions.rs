//! Contract cases for `SessionStore`: every field round-trips and is found by its secret hash
//! only; touching never moves back; listing is per principal, newest first; each way of
//! revoking takes exactly what it names; pruning by absolute end and by idleness; the limits.
//! Each case signs in a principal of its own, so cases never see each other's sessions.

use super::{ok, refused};
use crate::{MAX_USER_AGENT_LEN, Session, Store, StoreError};
use steward_protocol::PrincipalId;

fn principal(case: &str) -> PrincipalId {
    let raw = format!("contract-{}-{}", case.len(), uuid::Uuid::new_v4().simple());
    match PrincipalId::parse(&raw) {
        Ok(p) => p,
        Err(e) => panic!("[{case}] test principal {raw:?} is invalid: {e}"),
    }
}

/// A fresh hash-shaped value (what the server derives from a cookie secret).
fn hash() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

fn session(principal: &PrincipalId, created_at_ms: i64) -> Session {
    Session {
        id: uuid::Uuid::new_v4().to_string(),
        secret_hash: hash(),
        principal: principal.clone(),
        created_at_ms,
        last_seen_at_ms: created_at_ms,
        expires_at_ms: created_at_ms + 30 * 86_400_000,
        user_agent: Some("Mozilla/5.0 (X11; Linux x86_64) ünïcode ✓".into()),
    }
}

pub async fn session_round_trip_find_touch_list(store: &dyn Store) {
    const CASE: &str = "session_round_trip_find_touch_list";
    let (me, other) = (principal(CASE), principal(CASE));
    let older = session(&me, 1_000);
    let newer = Session {
        user_agent: None,
        ..session(&me, 2_000)
    };
    let theirs = session(&other, 3_000);
    for s in [&older, &newer, &theirs] {
        ok(CASE, "create", store.create_session(s).await);
    }
    assert_eq!(
        ok(
            CASE,
            "find",
            store.session_by_secret_hash(&older.secret_hash).await
        )
        .as_ref(),
        Some(&older),
        "[{CASE}] every field round-trips"
    );
    assert_eq!(
        ok(
            CASE,
            "find unknown",
            store.session_by_secret_hash(&hash()).await
        ),
        None,
        "[{CASE}] an unknown hash finds nothing"
    );
    assert!(ok(
        CASE,
        "touch",
        store.touch_session(&older.id, 5_000).await
    ));
    assert!(
        ok(
            CASE,
            "touch back",
            store.touch_session(&older.id, 4_000).await
        ),
        "[{CASE}] touching an existing session reports it"
    );
    let found = ok(
        CASE,
        "find touched",
        store.session_by_secret_hash(&older.secret_hash).await,
    );
    assert_eq!(
        found.map(|s| s.last_seen_at_ms),
        Some(5_000),
        "[{CASE}] last seen moves forward, never back"
    );
    assert!(
        !ok(
            CASE,
            "touch unknown",
            store.touch_session("no-such-session", 1).await
        ),
        "[{CASE}] touching an unknown session is false"
    );
    let ids: Vec<String> = ok(CASE, "list", store.list_sessions(&me).await)
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(
        ids,
        [newer.id.clone(), older.id.clone()],
        "[{CASE}] newest first, mine only"
    );
    let dup_id = Session {
        secret_hash: hash(),
        ..older.clone()
    };
    let dup_hash = Session {
        id: uuid::Uuid::new_v4().to_string(),
        ..older.clone()
    };
    for (step, dup) in [("same id", dup_id), ("same hash", dup_hash)] {
        match store.create_session(&dup).await {
            Err(StoreError::Constraint(_)) => {}
            other => panic!("[{CASE}] {step}: expected Constraint, got {other:?}"),
        }
    }
    assert_eq!(
        ok(CASE, "list after dups", store.list_sessions(&me).await).len(),
        2
    );
}

pub async fn session_revocation_takes_what_it_names(store: &dyn Store) {
    const CASE: &str = "session_revocation_takes_what_it_names";
    let (me, other) = (principal(CASE), principal(CASE));
    let (a, b, c) = (session(&me, 1), session(&me, 2), session(&me, 3));
    let theirs = session(&other, 4);
    for s in [&a, &b, &c, &theirs] {
        ok(CASE, "create", store.create_session(s).await);
    }
    assert!(
        !ok(
            CASE,
            "revoke as another",
            store.revoke_session(&other, &a.id).await
        ),
        "[{CASE}] another principal cannot revoke my session"
    );
    assert!(ok(CASE, "revoke a", store.revoke_session(&me, &a.id).await));
    assert!(!ok(
        CASE,
        "revoke a again",
        store.revoke_session(&me, &a.id).await
    ));
    assert_eq!(
        ok(
            CASE,
            "find a",
            store.session_by_secret_hash(&a.secret_hash).await
        ),
        None
    );
    assert!(ok(
        CASE,
        "revoke b by hash",
        store.revoke_session_by_secret_hash(&b.secret_hash).await
    ));
    assert!(!ok(
        CASE,
        "revoke b by hash again",
        store.revoke_session_by_secret_hash(&b.secret_hash).await
    ));
    assert_eq!(
        ok(
            CASE,
            "find b",
            store.session_by_secret_hash(&b.secret_hash).await
        ),
        None
    );
    assert_eq!(
        ok(CASE, "revoke all mine", store.revoke_sessions_of(&me).await),
        1
    );
    assert!(ok(CASE, "list mine", store.list_sessions(&me).await).is_empty());
    assert_eq!(
        ok(CASE, "list theirs", store.list_sessions(&other).await),
        [theirs],
        "[{CASE}] another principal's session stays"
    );
}

pub async fn sessions_pruned_by_end_and_idleness(store: &dyn Store) {
    const CASE: &str = "sessions_pruned_by_end_and_idleness";
    let me = principal(CASE);
    // Far in the past, so other cases' sessions (stamped at small positive times) stay.
    let ended = Session {
        expires_at_ms: -5_000_000,
        ..session(&me, -9_000_000)
    };
    let idle = Session {
        last_seen_at_ms: -6_000_000,
        ..session(&me, -9_000_000)
    };
    let live = Session {
        last_seen_at_ms: -4_000_000,
        ..session(&me, -9_000_000)
    };
    for s in [&ended, &idle, &live] {
        ok(CASE, "create", store.create_session(s).await);
    }
    let gone = ok(
        CASE,
        "prune",
        store.prune_sessions(-5_000_000, -5_500_000).await,
    );
    assert!(
        gone >= 2,
        "[{CASE}] the ended and the idle one go (gone: {gone})"
    );
    let left: Vec<String> = ok(CASE, "list", store.list_sessions(&me).await)
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(
        left,
        [live.id],
        "[{CASE}] a session neither ended nor idle stays"
    );
}

pub async fn session_input_limits(store: &dyn Store) {
    const CASE: &str = "session_input_limits";
    let me = principal(CASE);
    let good = session(&me, 1);
    // A raw cookie secret (43 base64url characters) must never be stored in its place.
    let raw_secret = "q3Zx9-ZpR0w6n2kq0X0cR4d0t1wPp3oQ8m2bL5yT7aE";
    for (step, bad_hash) in [
        ("raw secret as hash", raw_secret.to_owned()),
        ("upper-case hex", good.secret_hash.to_uppercase()),
        ("short hash", good.secret_hash[..63].to_owned()),
        ("empty hash", String::new()),
    ] {
        let s = Session {
            secret_hash: bad_hash.clone(),
            ..good.clone()
        };
        refused(CASE, step, store.create_session(&s).await, raw_secret);
        refused(
            CASE,
            step,
            store.session_by_secret_hash(&bad_hash).await,
            raw_secret,
        );
        refused(
            CASE,
            step,
            store.revoke_session_by_secret_hash(&bad_hash).await,
            raw_secret,
        );
    }
    let cases = [
        (
            "empty id",
            Session {
                id: String::new(),
                ..good.clone()
            },
        ),
        (
            "oversized id",
            Session {
                id: "i".repeat(129),
                ..good.clone()
            },
        ),
        (
            "oversized user agent",
            Session {
                user_agent: Some("u".repeat(MAX_USER_AGENT_LEN + 1)),
                ..good.clone()
            },
        ),
        (
            "user agent with NUL",
            Session {
                user_agent: Some("a\0b".into()),
                ..good.clone()
            },
        ),
    ];
    for (step, s) in cases {
        refused(CASE, step, store.create_session(&s).await, "");
    }
    refused(CASE, "touch empty id", store.touch_session("", 1).await, "");
    refused(
        CASE,
        "revoke empty id",
        store.revoke_session(&me, "").await,
        "",
    );
    assert!(
        ok(CASE, "list after refusals", store.list_sessions(&me).await).is_empty(),
        "[{CASE}] a refused session stores nothing"
    );
    let longest = Session {
        user_agent: Some("u".repeat(MAX_USER_AGENT_LEN)),
        ..good
    };
    ok(
        CASE,
        "user agent at the limit",
        store.create_session(&longest).await,
    );
}
