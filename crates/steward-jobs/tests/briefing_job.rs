//! The morning briefing and the weekly recap: with items they list them (today's, or the
//! coming week's and the past week's) at home, in the owner's time zone, as plain text, and
//! are delivered once per occurrence; with nothing to list they send nothing and record
//! nothing; with nowhere to go they say so; quiet hours hold them.

use chrono::NaiveTime;
use steward_jobs::jobs::{BriefingJob, Period};
use steward_jobs::voice::genre;
use steward_jobs::{Budget, Held, Job, JobOutcome};
use steward_protocol::{ConversationId, Surface};
use steward_store::ReminderStatus;

use crate::briefing_support::{BERLIN, DAY, HOME, HOUR, MONDAY, Rig, rig};

/// Monday 07:30 in Berlin.
const MORNING: i64 = MONDAY + 6 * HOUR + 30 * 60_000;
/// Friday 11 December 18:00 in Berlin.
const FRIDAY_EVENING: i64 = MONDAY + 4 * DAY + 17 * HOUR;

fn job(r: &Rig, period: Period) -> BriefingJob {
    BriefingJob::new(
        r.store.clone(),
        r.voice.clone(),
        r.owner.clone(),
        r.zone.clone(),
        period,
    )
}

async fn home_messages(r: &Rig) -> u64 {
    r.store
        .conversation(&ConversationId::parse(HOME).unwrap())
        .await
        .unwrap()
        .map_or(0, |c| c.message_count)
}

#[tokio::test]
async fn a_briefing_lists_todays_items_at_home_once() {
    let r = rig(MORNING);
    r.home().await;
    // Today 09:00 Berlin; tomorrow's is not today's.
    r.reminder("today", "water the plants", MONDAY + 8 * HOUR)
        .await;
    r.reminder("tomorrow", "dentist", MONDAY + DAY + 8 * HOUR)
        .await;
    let owner = r.owner.as_str();
    r.store
        .add_intention(
            owner,
            "call the bank",
            Some(MONDAY + 16 * HOUR),
            MONDAY - DAY,
        )
        .await
        .unwrap();
    r.store
        .add_intention(
            owner,
            "send the invoice",
            Some(MONDAY - 3 * DAY),
            MONDAY - 9 * DAY,
        )
        .await
        .unwrap();
    r.store
        .add_intention(owner, "plan the trip", Some(MONDAY + 3 * DAY), MONDAY - DAY)
        .await
        .unwrap();
    r.store
        .add_intention(owner, "learn the cello", None, MONDAY - DAY)
        .await
        .unwrap();
    for (n, title) in [
        "oldest",
        "second",
        "third",
        "[your bank](https://evil.example)",
    ]
    .iter()
    .enumerate()
    {
        r.store
            .add_read_later(
                owner,
                &format!("https://example.com/{n}"),
                title,
                &[],
                MONDAY - DAY + i64::try_from(n).unwrap(),
            )
            .await
            .unwrap();
    }
    let briefing = job(&r, Period::Day);
    let ctx = r.ctx("briefing", MORNING);
    let out = briefing.run(&ctx).await.unwrap();
    assert_eq!(
        out,
        JobOutcome::Done("briefing delivered: 3 item(s), 4 unread".into())
    );
    let said = r.speaker.said.lock().unwrap().clone();
    assert_eq!(said.len(), 1);
    let (target, message, _) = &said[0];
    assert_eq!(
        (target.surface, target.conversation.as_str()),
        (Surface::Telegram, HOME)
    );
    assert_eq!(message.genre, genre::BRIEFING);
    assert_eq!(message.trace_id, ctx.trace_id);
    let text = &message.text;
    assert!(
        text.starts_with("☀️ Good morning — Monday 7 December"),
        "{text}"
    );
    assert!(text.contains("- 09:00 — water the plants"), "{text}");
    assert!(!text.contains("dentist"), "tomorrow's reminder: {text}");
    assert!(text.contains("- call the bank (due 17:00)"), "{text}");
    assert!(
        text.contains("- send the invoice (overdue since Fri 4 Dec)"),
        "{text}"
    );
    assert!(!text.contains("plan the trip"), "due Thursday: {text}");
    assert!(!text.contains("cello"), "undated: {text}");
    assert!(text.contains("Read later: 4 unread. Newest:"), "{text}");
    assert!(
        text.contains("- \\[your bank\\](https://evil.example)"),
        "a web page's title is plain text, not a link: {text}"
    );
    assert!(
        text.contains("- third") && text.contains("- second"),
        "{text}"
    );
    assert!(!text.contains("oldest"), "only the 3 newest: {text}");

    // The same occurrence again (a retry, or another process): nothing more is sent.
    let again = steward_jobs::RunContext {
        attempt: 2,
        trace_id: "retry".into(),
        ..ctx.clone()
    };
    assert_eq!(
        briefing.run(&again).await.unwrap(),
        JobOutcome::Done("already delivered".into())
    );
    assert_eq!(r.speaker.count(), 1);
    let engagement = r.store.engagement_since(0).await.unwrap();
    assert_eq!(
        (
            engagement.len(),
            engagement[0].genre.as_str(),
            engagement[0].sent
        ),
        (1, genre::BRIEFING, 1)
    );
}

#[tokio::test]
async fn with_nothing_to_list_a_briefing_sends_and_records_nothing() {
    let r = rig(MORNING);
    r.home().await;
    let owner = r.owner.as_str();
    // Only what is not news this morning: an undated intention, one due later this week, a
    // closed one due today, a reminder for tomorrow, one delivered, and a read-later item
    // (alone it never makes a morning briefing).
    r.store
        .add_intention(owner, "learn the cello", None, MONDAY - DAY)
        .await
        .unwrap();
    r.store
        .add_intention(owner, "plan the trip", Some(MONDAY + 3 * DAY), MONDAY - DAY)
        .await
        .unwrap();
    let closed = r
        .store
        .add_intention(
            owner,
            "done already",
            Some(MONDAY + 10 * HOUR),
            MONDAY - DAY,
        )
        .await
        .unwrap();
    r.store
        .set_intention_done(owner, closed.id, true)
        .await
        .unwrap();
    r.reminder("tomorrow", "dentist", MONDAY + DAY + 8 * HOUR)
        .await;
    r.reminder("gone", "delivered earlier", MONDAY + 5 * HOUR)
        .await;
    r.store
        .close_reminder("gone", ReminderStatus::Delivered, MONDAY + 5 * HOUR)
        .await
        .unwrap();
    r.store
        .add_read_later(owner, "https://example.com/a", "An article", &[], MONDAY)
        .await
        .unwrap();
    let before = home_messages(&r).await;
    let out = job(&r, Period::Day)
        .run(&r.ctx("briefing", MORNING))
        .await
        .unwrap();
    assert_eq!(out, JobOutcome::Nothing("nothing to brief".into()));
    assert_eq!(r.speaker.count(), 0, "no message");
    assert!(
        r.store.engagement_since(0).await.unwrap().is_empty(),
        "nothing recorded"
    );
    assert_eq!(home_messages(&r).await, before, "nothing stored at home");
}

#[tokio::test]
async fn with_no_home_a_briefing_has_nowhere_to_go() {
    let r = rig(MORNING);
    r.reminder("today", "water the plants", MONDAY + 8 * HOUR)
        .await;
    let out = job(&r, Period::Day)
        .run(&r.ctx("briefing", MORNING))
        .await
        .unwrap();
    assert_eq!(out, JobOutcome::Nothing("nowhere to deliver".into()));
    assert_eq!(r.speaker.count(), 0);
    // A web conversation is home when there is no Telegram chat.
    r.store
        .append_messages(
            &ConversationId::parse("web-chat").unwrap(),
            &[steward_protocol::Message::user("hello")],
        )
        .await
        .unwrap();
    job(&r, Period::Day)
        .run(&r.ctx("briefing", MORNING + 1000))
        .await
        .unwrap();
    let said = r.speaker.said.lock().unwrap().clone();
    assert_eq!(
        (said[0].0.surface, said[0].0.conversation.as_str()),
        (Surface::Web, "web-chat")
    );
}

#[tokio::test]
async fn the_recap_covers_the_coming_and_the_past_seven_days() {
    let r = rig(FRIDAY_EVENING);
    r.home().await;
    let owner = r.owner.as_str();
    // Saturday 09:00 and Thursday 17 Dec 10:00 Berlin are within the coming 7 days; Friday
    // 18 Dec is the 8th.
    r.reminder("sat", "market", MONDAY + 5 * DAY + 8 * HOUR)
        .await;
    r.reminder("thu", "book club", MONDAY + 10 * DAY + 9 * HOUR)
        .await;
    r.reminder("next-fri", "far off", MONDAY + 11 * DAY + 8 * HOUR)
        .await;
    // Delivered Tuesday (the past week) and a fortnight ago (not).
    r.reminder("tue", "was said", MONDAY + DAY).await;
    r.store
        .close_reminder("tue", ReminderStatus::Delivered, MONDAY + DAY)
        .await
        .unwrap();
    r.reminder("old", "long ago", MONDAY - 14 * DAY).await;
    r.store
        .close_reminder("old", ReminderStatus::Delivered, MONDAY - 14 * DAY)
        .await
        .unwrap();
    r.store
        .add_intention(owner, "renew the passport", Some(MONDAY + 9 * DAY), MONDAY)
        .await
        .unwrap();
    r.store
        .add_intention(owner, "next month", Some(MONDAY + 30 * DAY), MONDAY)
        .await
        .unwrap();
    let out = job(&r, Period::Week)
        .run(&r.ctx("weekly_recap", FRIDAY_EVENING))
        .await
        .unwrap();
    assert_eq!(
        out,
        JobOutcome::Done("recap delivered: 3 item(s), 0 unread".into())
    );
    let said = r.speaker.said.lock().unwrap().clone();
    let message = &said[0].1;
    assert_eq!(message.genre, genre::RECAP);
    let text = &message.text;
    assert!(
        text.starts_with("🗓 Your week — Fri 11 Dec to Thu 17 Dec"),
        "{text}"
    );
    assert!(text.contains("- Sat 12 Dec 09:00 — market"), "{text}");
    assert!(text.contains("- Thu 17 Dec 10:00 — book club"), "{text}");
    assert!(!text.contains("far off"), "the 8th day: {text}");
    assert!(
        text.contains("- renew the passport (due Wed 16 Dec 01:00)"),
        "{text}"
    );
    assert!(!text.contains("next month"), "{text}");
    assert!(
        text.contains("The past week: 1 reminder(s) delivered."),
        "{text}"
    );
}

#[tokio::test]
async fn quiet_hours_hold_a_briefing() {
    let r = rig(MORNING);
    r.home().await;
    r.reminder("today", "water the plants", MONDAY + 8 * HOUR)
        .await;
    r.budget
        .send(Budget {
            quiet: Some((
                NaiveTime::from_hms_opt(22, 0, 0).unwrap(),
                NaiveTime::from_hms_opt(8, 0, 0).unwrap(),
            )),
            tz: BERLIN,
            ..Budget::default()
        })
        .unwrap();
    let out = job(&r, Period::Day)
        .run(&r.ctx("briefing", MORNING))
        .await
        .unwrap();
    assert_eq!(out, JobOutcome::Nothing(Held::QuietHours.reason()));
    assert_eq!(r.speaker.count(), 0);
    assert!(r.store.engagement_since(0).await.unwrap().is_empty());
}

#[tokio::test]
async fn one_briefing_a_day_even_when_its_time_moves_later_after_it_went_out() {
    let r = rig(MORNING);
    r.home().await;
    r.reminder("today", "water the plants", MONDAY + 8 * HOUR)
        .await;
    let briefing = job(&r, Period::Day);
    briefing.run(&r.ctx("briefing", MORNING)).await.unwrap();
    assert_eq!(r.speaker.count(), 1);
    // The owner moves `jobs.briefing` from 07:30 to 09:00 after it went out: today's 09:00 is
    // a new fire time (a new occurrence), not a second briefing.
    let nine = MONDAY + 8 * HOUR;
    r.clock.set_ms(nine);
    assert_eq!(
        briefing.run(&r.ctx("briefing", nine)).await.unwrap(),
        JobOutcome::Done("already delivered".into())
    );
    assert_eq!(r.speaker.count(), 1);
    // Tomorrow's comes; and one asked for by hand today says it again.
    let mut by_hand = r.ctx("briefing", nine);
    by_hand.occurrence = "manual-1".into();
    briefing.run(&by_hand).await.unwrap();
    assert_eq!(r.speaker.count(), 2);
    r.reminder("tuesday", "dentist", MONDAY + DAY + 8 * HOUR)
        .await;
    r.clock.set_ms(MORNING + DAY);
    briefing
        .run(&r.ctx("briefing", MORNING + DAY))
        .await
        .unwrap();
    assert_eq!(r.speaker.count(), 3);
}
