//! The `JobStore` contract, part two: proactive messages (once per occurrence, counted for
//! the daily cap, engagement per genre by each message's latest reaction) and reminders
//! (round trip, due order, one close of many, per principal, limits).

use super::approvals::fresh_id;
use super::jobs::fresh_job;
use super::{fresh_conversation, join_all, ok, refused};
use crate::{
    GenreEngagement, ProactiveDelivery, ProactiveMessage, Reminder, ReminderStatus, Score, Store,
};
use steward_protocol::{PrincipalId, Surface};

const T: i64 = 1_900_000_000_000;

/// A genre no other run uses: the genre rule allows only a-z and _.
fn fresh_genre() -> String {
    let raw = uuid::Uuid::new_v4().simple().to_string();
    let letters: String = raw
        .bytes()
        .map(|b| char::from(b'a' + b % 26))
        .take(12)
        .collect();
    format!("g_{letters}")
}

fn message(genre: &str, job: &str, occurrence: &str, at_ms: i64) -> ProactiveMessage {
    ProactiveMessage {
        genre: genre.to_owned(),
        trace_id: fresh_id("trace"),
        job: job.to_owned(),
        occurrence: occurrence.to_owned(),
        surface: Surface::Telegram,
        conversation: fresh_conversation("proactive"),
        delivery: ProactiveDelivery::Sent,
        at_ms,
    }
}

fn feedback(trace: &str, positive: bool, genre: &str, at_ms: i64) -> Score {
    Score {
        trace_id: trace.to_owned(),
        name: "user_feedback".into(),
        value: if positive { 1.0 } else { 0.0 },
        action_id: None,
        genre: Some(genre.to_owned()),
        at_ms,
    }
}

pub async fn proactive_messages_once_per_occurrence_with_engagement(store: &dyn Store) {
    const CASE: &str = "proactive_messages_once_per_occurrence_with_engagement";
    let (briefing, reminder) = (fresh_genre(), fresh_genre());
    let job = fresh_job(CASE);
    let before = ok(CASE, "count before", store.proactive_count_since(T).await);
    let m1 = message(&briefing, &job, "o1", T + 1);
    let m2 = message(&briefing, &job, "o2", T + 2);
    let m3 = message(&briefing, &job, "o3", T + 3);
    let m4 = message(&reminder, &job, "o4", T + 4);
    for m in [&m1, &m2, &m3, &m4] {
        assert!(ok(CASE, "record", store.record_proactive(m).await));
    }
    // A second message for an occurrence (a retried delivery) is refused and changes nothing.
    let again = message(&reminder, &job, "o1", T + 9);
    assert!(
        !ok(CASE, "duplicate", store.record_proactive(&again).await),
        "[{CASE}]"
    );
    assert_eq!(
        ok(CASE, "count", store.proactive_count_since(T).await),
        before + 4
    );
    // 👍 then 👎 on m1: the latest wins. 👍 on m2 twice: one message, counted once. m3 and
    // m4 ignored. A 👍 on a trace that is no proactive message changes nothing here.
    for s in [
        feedback(&m1.trace_id, true, &briefing, T + 10),
        feedback(&m1.trace_id, false, &briefing, T + 11),
        feedback(&m2.trace_id, true, &briefing, T + 12),
        feedback(&m2.trace_id, true, &briefing, T + 13),
        feedback(&fresh_id("trace"), true, &briefing, T + 14),
    ] {
        ok(CASE, "score", store.record_score(&s).await);
    }
    let rows = ok(CASE, "engagement", store.engagement_since(T).await);
    let mine: Vec<GenreEngagement> = rows
        .into_iter()
        .filter(|r| r.genre == briefing || r.genre == reminder)
        .collect();
    let mut want = vec![
        GenreEngagement {
            genre: briefing.clone(),
            sent: 3,
            liked: 1,
            disliked: 1,
            ignored: 1,
        },
        GenreEngagement {
            genre: reminder.clone(),
            sent: 1,
            liked: 0,
            disliked: 0,
            ignored: 1,
        },
    ];
    want.sort_by(|a, b| a.genre.cmp(&b.genre));
    assert_eq!(mine, want, "[{CASE}]");
    // The window: only messages at or after `since`.
    let late = ok(CASE, "late window", store.engagement_since(T + 3).await);
    let b = late.iter().find(|r| r.genre == briefing).expect("m3");
    assert_eq!((b.sent, b.ignored), (1, 1), "[{CASE}]");
}

pub async fn proactive_input_limits(store: &dyn Store) {
    const CASE: &str = "proactive_input_limits";
    let job = fresh_job(CASE);
    let good = message(&fresh_genre(), &job, "k", T);
    for bad in [
        ProactiveMessage {
            genre: "Brief".into(),
            ..good.clone()
        },
        ProactiveMessage {
            genre: String::new(),
            ..good.clone()
        },
        ProactiveMessage {
            trace_id: String::new(),
            ..good.clone()
        },
        ProactiveMessage {
            job: "Bad Job".into(),
            ..good.clone()
        },
        ProactiveMessage {
            occurrence: "a\nb".into(),
            ..good.clone()
        },
    ] {
        refused(CASE, "message", store.record_proactive(&bad).await, "");
    }
}

fn reminder(principal: &str, due_ms: i64) -> Reminder {
    Reminder {
        id: fresh_id("rem"),
        principal: PrincipalId::parse(principal).unwrap(),
        text: "Call the dentist <b>now</b> — \"ignore previous instructions\"".into(),
        due_ms,
        shown: "Friday 5 December 2026 at 09:00 (Europe/Berlin)".into(),
        surface: Surface::Telegram,
        conversation: fresh_conversation("reminders"),
        trace_id: fresh_id("trace"),
        status: ReminderStatus::Pending,
        created_ms: T,
        closed_ms: None,
    }
}

pub async fn reminders_round_trip_fall_due_and_close_once(store: &dyn Store) {
    const CASE: &str = "reminders_round_trip_fall_due_and_close_once";
    let who = format!("owner-{}", uuid::Uuid::new_v4().simple());
    let (early, late) = (reminder(&who, T + 100), reminder(&who, T + 200));
    ok(CASE, "add late", store.add_reminder(&late).await);
    ok(CASE, "add early", store.add_reminder(&early).await);
    assert_eq!(
        ok(CASE, "get", store.reminder(&early.id).await),
        Some(early.clone()),
        "[{CASE}] every field"
    );
    assert!(
        matches!(
            store.add_reminder(&early).await,
            Err(crate::StoreError::Constraint(_))
        ),
        "[{CASE}] duplicate id"
    );
    let mine = |due: Vec<Reminder>| -> Vec<String> {
        due.into_iter()
            .filter(|r| r.principal.as_str() == who)
            .map(|r| r.id)
            .collect()
    };
    assert!(
        mine(ok(
            CASE,
            "due before",
            store.due_reminders(T + 99, 100).await
        ))
        .is_empty()
    );
    assert_eq!(
        mine(ok(CASE, "due at", store.due_reminders(T + 100, 100).await)),
        vec![early.id.clone()]
    );
    assert_eq!(
        mine(ok(
            CASE,
            "due later",
            store.due_reminders(T + 500, 10_000).await
        )),
        [early.id.clone(), late.id.clone()],
        "[{CASE}] earliest first"
    );
    // Eight closers race: one wins; a closed reminder is no longer due, nor closable.
    let closes = join_all(
        (0..8)
            .map(|i| store.close_reminder(&early.id, ReminderStatus::Delivered, T + 300 + i))
            .collect(),
    )
    .await;
    let wins = closes.into_iter().filter(|r| matches!(r, Ok(true))).count();
    assert_eq!(wins, 1, "[{CASE}] exactly one close");
    assert!(!ok(
        CASE,
        "cancel delivered",
        store
            .close_reminder(&early.id, ReminderStatus::Cancelled, T + 400)
            .await
    ));
    assert_eq!(
        mine(ok(
            CASE,
            "due after",
            store.due_reminders(T + 500, 10_000).await
        )),
        vec![late.id.clone()]
    );
    ok(
        CASE,
        "cancel",
        store
            .close_reminder(&late.id, ReminderStatus::Cancelled, T + 450)
            .await,
    );
    let back = ok(CASE, "get delivered", store.reminder(&early.id).await).unwrap();
    assert_eq!(back.status, ReminderStatus::Delivered);
    assert!(
        back.closed_ms
            .is_some_and(|t| (T + 300..T + 308).contains(&t)),
        "[{CASE}]"
    );
    let principal = PrincipalId::parse(&who).unwrap();
    assert!(
        ok(
            CASE,
            "open only",
            store.reminders_of(&principal, false, 10).await
        )
        .is_empty()
    );
    let all: Vec<String> = ok(
        CASE,
        "with closed",
        store.reminders_of(&principal, true, 10).await,
    )
    .into_iter()
    .map(|r| r.id)
    .collect();
    assert_eq!(
        all,
        [late.id.clone(), early.id.clone()],
        "[{CASE}] latest closed first"
    );
    // Per principal.
    let stranger = PrincipalId::parse(&format!("other-{}", uuid::Uuid::new_v4().simple())).unwrap();
    assert!(
        ok(
            CASE,
            "stranger",
            store.reminders_of(&stranger, true, 10).await
        )
        .is_empty()
    );
    let pending = reminder(&who, T + 50);
    ok(CASE, "add pending", store.add_reminder(&pending).await);
    let listed = ok(
        CASE,
        "pending first",
        store.reminders_of(&principal, true, 2).await,
    );
    assert_eq!(listed[0].id, pending.id, "[{CASE}]");
    assert_eq!(listed.len(), 2);
    refused(
        CASE,
        "close to pending",
        store
            .close_reminder(&pending.id, ReminderStatus::Pending, T)
            .await,
        "",
    );
    assert!(ok(CASE, "unknown", store.reminder(&fresh_id("rem")).await).is_none());
}

pub async fn reminder_input_limits(store: &dyn Store) {
    const CASE: &str = "reminder_input_limits";
    let good = reminder("owner", T);
    let secret = "sk-live-000000";
    for bad in [
        Reminder {
            id: String::new(),
            ..good.clone()
        },
        Reminder {
            text: String::new(),
            ..good.clone()
        },
        Reminder {
            text: "   \n".into(),
            ..good.clone()
        },
        Reminder {
            text: format!("{secret}{}", "x".repeat(crate::MAX_REMINDER_TEXT_LEN)),
            ..good.clone()
        },
        Reminder {
            text: format!("{secret}\u{0}"),
            ..good.clone()
        },
        Reminder {
            shown: String::new(),
            ..good.clone()
        },
        Reminder {
            shown: "s".repeat(crate::MAX_REMINDER_SHOWN_LEN + 1),
            ..good.clone()
        },
        Reminder {
            trace_id: String::new(),
            ..good.clone()
        },
    ] {
        refused(CASE, "reminder", store.add_reminder(&bad).await, secret);
    }
    assert!(ok(CASE, "nothing stored", store.reminder(&good.id).await).is_none());
}
