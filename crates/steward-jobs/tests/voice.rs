//! The one way a job speaks: quiet hours (overnight, in the owner's zone) and the daily cap
//! hold Steward's own initiative but not what the owner asked for; a silenced genre holds
//! everything; an occurrence speaks at most once, also across attempts; how the delivery
//! went is recorded; a refused message is a permanent error.

use chrono::NaiveTime;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use steward_core::{Delivery, DeliveryError, DeliveryTarget, Proactive};
use steward_jobs::voice::genre;
use steward_jobs::{Budget, Held, RunContext, Said, Speaker, Voice};
use steward_protocol::{ConversationId, JobName, ManualClock, Surface};
use steward_store::JobStore;
use tokio::sync::watch;

#[derive(Default)]
struct Recorder {
    said: Mutex<Vec<Proactive>>,
    answer: Mutex<Option<Result<Delivery, DeliveryError>>>,
}

#[async_trait::async_trait]
impl Speaker for Recorder {
    async fn deliver(
        &self,
        _: &DeliveryTarget,
        message: &Proactive,
    ) -> Result<Delivery, DeliveryError> {
        if message.text.trim().is_empty() {
            return Err(DeliveryError::Empty);
        }
        self.said.lock().unwrap().push(message.clone());
        self.answer
            .lock()
            .unwrap()
            .take()
            .unwrap_or(Ok(Delivery::Sent))
    }
}

/// 2026-12-07 22:30 UTC = 23:30 in Berlin (CET, UTC+1).
const LATE_EVENING: i64 = 1_796_682_600_000;

fn berlin(quiet: bool, cap: u32, silenced: &[&str]) -> Budget {
    Budget {
        quiet: quiet.then(|| {
            (
                NaiveTime::from_hms_opt(22, 0, 0).unwrap(),
                NaiveTime::from_hms_opt(7, 0, 0).unwrap(),
            )
        }),
        daily_cap: cap,
        silenced: silenced
            .iter()
            .map(|s| s.to_string())
            .collect::<BTreeSet<_>>(),
        tz: chrono_tz::Europe::Berlin,
    }
}

fn ctx(job: &str, occurrence: &str) -> RunContext {
    RunContext {
        job: JobName::parse(job).unwrap(),
        occurrence: occurrence.to_owned(),
        scheduled: chrono::DateTime::from_timestamp_millis(LATE_EVENING).unwrap(),
        attempt: 1,
        trace_id: uuid::Uuid::new_v4().simple().to_string(),
    }
}

fn target() -> DeliveryTarget {
    DeliveryTarget {
        surface: Surface::Telegram,
        conversation: ConversationId::parse("tg-owner").unwrap(),
    }
}

struct Rig {
    voice: Voice,
    speaker: Arc<Recorder>,
    store: Arc<dyn JobStore>,
    clock: Arc<ManualClock>,
    budget: watch::Sender<Budget>,
}

fn rig(budget: Budget) -> Rig {
    let store: Arc<dyn JobStore> =
        steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let speaker = Arc::new(Recorder::default());
    let clock = ManualClock::at_ms(LATE_EVENING);
    let (tx, rx) = watch::channel(budget);
    let voice = Voice::new(Arc::clone(&store), speaker.clone(), clock.clone(), rx);
    Rig {
        voice,
        speaker,
        store,
        clock,
        budget: tx,
    }
}

#[tokio::test]
async fn quiet_hours_hold_steward_initiative_but_not_what_the_owner_asked_for() {
    let r = rig(berlin(true, 0, &[]));
    let held = r
        .voice
        .say(
            &ctx("briefing", "b1"),
            &target(),
            genre::BRIEFING,
            "Good night digest".into(),
        )
        .await
        .unwrap();
    assert_eq!(
        held,
        Said::Held(Held::QuietHours),
        "23:30 in Berlin is quiet"
    );
    let said = r
        .voice
        .say(
            &ctx("reminders", "r1"),
            &target(),
            genre::REMINDER,
            "Take the pills".into(),
        )
        .await
        .unwrap();
    assert_eq!(
        said,
        Said::Delivered(Delivery::Sent),
        "a reminder the owner set speaks"
    );
    // 07:30 Berlin the next morning is not quiet.
    r.clock.set_ms(LATE_EVENING + 8 * 3_600_000);
    let said = r
        .voice
        .say(
            &ctx("briefing", "b2"),
            &target(),
            genre::BRIEFING,
            "Morning".into(),
        )
        .await
        .unwrap();
    assert_eq!(said, Said::Delivered(Delivery::Sent));
    let texts: Vec<String> = r
        .speaker
        .said
        .lock()
        .unwrap()
        .iter()
        .map(|p| p.text.clone())
        .collect();
    assert_eq!(texts, ["Take the pills", "Morning"]);
}

#[tokio::test]
async fn the_daily_cap_counts_the_local_day_and_a_silenced_genre_never_speaks() {
    // 10:00 UTC = 11:00 Berlin, same local day as the evening constant.
    let r = rig(berlin(false, 2, &[]));
    r.clock.set_ms(LATE_EVENING - 12 * 3_600_000);
    for n in 0..2 {
        let said = r
            .voice
            .say(
                &ctx("briefing", &format!("d{n}")),
                &target(),
                genre::FOLLOW_UP,
                format!("nudge {n}"),
            )
            .await
            .unwrap();
        assert_eq!(said, Said::Delivered(Delivery::Sent));
    }
    let third = r
        .voice
        .say(
            &ctx("briefing", "d2"),
            &target(),
            genre::FOLLOW_UP,
            "nudge 2".into(),
        )
        .await
        .unwrap();
    assert_eq!(third, Said::Held(Held::DailyCap(2)));
    // The owner's reminder passes the cap; it still counts towards it.
    let rem = r
        .voice
        .say(
            &ctx("reminders", "r"),
            &target(),
            genre::REMINDER,
            "Dentist".into(),
        )
        .await
        .unwrap();
    assert_eq!(rem, Said::Delivered(Delivery::Sent));
    // After local midnight (00:30 Berlin = 23:30 UTC) the count starts again.
    r.clock.set_ms(LATE_EVENING + 3_600_000);
    let next_day = r
        .voice
        .say(
            &ctx("briefing", "d3"),
            &target(),
            genre::FOLLOW_UP,
            "new day".into(),
        )
        .await
        .unwrap();
    assert_eq!(next_day, Said::Delivered(Delivery::Sent));
    // Silencing, changed at run time, holds every genre it names, reminders too.
    r.budget.send(berlin(false, 0, &[genre::REMINDER])).unwrap();
    let silenced = r
        .voice
        .say(
            &ctx("reminders", "r2"),
            &target(),
            genre::REMINDER,
            "x".into(),
        )
        .await
        .unwrap();
    assert_eq!(silenced, Said::Held(Held::Silenced));
    assert_eq!(r.speaker.said.lock().unwrap().len(), 4);
}

#[tokio::test]
async fn an_occurrence_speaks_once_and_its_delivery_is_recorded() {
    let r = rig(Budget::default());
    let c = ctx("reminders", "rem-1");
    *r.speaker.answer.lock().unwrap() = Some(Ok(Delivery::SurfaceFailed("blocked".into())));
    let first = r
        .voice
        .say(&c, &target(), genre::REMINDER, "Call mum".into())
        .await
        .unwrap();
    assert_eq!(
        first,
        Said::Delivered(Delivery::SurfaceFailed("blocked".into()))
    );
    // A retry (another attempt, another trace) of the same occurrence says nothing again.
    let retry = RunContext {
        attempt: 2,
        trace_id: "t2".into(),
        ..c.clone()
    };
    assert_eq!(
        r.voice
            .say(&retry, &target(), genre::REMINDER, "Call mum".into())
            .await
            .unwrap(),
        Said::AlreadySaid
    );
    assert_eq!(r.speaker.said.lock().unwrap().len(), 1);
    let said = r.speaker.said.lock().unwrap()[0].clone();
    assert_eq!(
        (said.genre.as_str(), said.trace_id.as_str()),
        (genre::REMINDER, c.trace_id.as_str())
    );
    let report = r.store.engagement_since(0).await.unwrap();
    assert_eq!(report.len(), 1);
    assert_eq!(
        (report[0].genre.as_str(), report[0].sent, report[0].ignored),
        (genre::REMINDER, 1, 1)
    );
    // A refused message is permanent: no retry would change it.
    let err = r
        .voice
        .say(
            &ctx("reminders", "rem-2"),
            &target(),
            genre::REMINDER,
            "  ".into(),
        )
        .await
        .unwrap_err();
    assert!(err.permanent, "{err:?}");
    assert_eq!(
        r.store.engagement_since(0).await.unwrap()[0].sent,
        1,
        "and it is not counted"
    );
}

#[test]
fn quiet_hours_and_silenced_genres_parse_by_their_rules() {
    use steward_jobs::voice::{parse_quiet_hours, parse_silenced};
    let t = |h, m| NaiveTime::from_hms_opt(h, m, 0).unwrap();
    assert_eq!(
        parse_quiet_hours("22:00-07:00").unwrap(),
        Some((t(22, 0), t(7, 0)))
    );
    assert_eq!(
        parse_quiet_hours(" 13:15 - 14:00 ").unwrap(),
        Some((t(13, 15), t(14, 0)))
    );
    assert_eq!(parse_quiet_hours("").unwrap(), None);
    for bad in ["22-07", "25:00-07:00", "22:00", "07:00-07:00", "x"] {
        assert!(parse_quiet_hours(bad).is_err(), "{bad}");
    }
    let set = parse_silenced("briefing, follow_up").unwrap();
    assert_eq!(
        set.into_iter().collect::<Vec<_>>(),
        ["briefing", "follow_up"]
    );
    assert!(parse_silenced("").unwrap().is_empty());
    assert!(parse_silenced("briefing,spam").is_err());
    // Overnight quiet hours: 23:30 is quiet, 12:00 is not (Berlin).
    let b = berlin(true, 0, &[]);
    assert!(b.is_quiet(chrono::DateTime::from_timestamp_millis(LATE_EVENING).unwrap()));
    assert!(
        !b.is_quiet(
            chrono::DateTime::from_timestamp_millis(LATE_EVENING - 11 * 3_600_000).unwrap()
        )
    );
}
