//! Next fire times away from DST: `every` anchored to the epoch, daily after a restart, a
//! change of time zone, an outage's missed occurrences, and the occurrence key.

use steward_jobs::schedule::{Schedule, occurrence_key};

use crate::schedule_support::{fires, rfc, schedule, utc, zone};

fn next(text: &str, tz: &str, after: &str) -> Option<String> {
    schedule(text).next_fire(utc(after), zone(tz)).map(rfc)
}

#[test]
fn disabled_never_fires() {
    assert_eq!(next("off", "UTC", "2026-12-03T10:00:00Z"), None);
    assert_eq!(next("", "Europe/Berlin", "2026-12-03T10:00:00Z"), None);
    assert!(fires("off", "UTC", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z").is_empty());
    assert!(schedule("off").is_disabled());
    assert!(!schedule("every 1m").is_disabled());
}

#[test]
fn every_is_anchored_to_the_epoch_and_strictly_after() {
    // The next quarter hour after 10:07:12 is 10:15, and after 10:15 exactly it is 10:30.
    assert_eq!(
        next("every 15m", "UTC", "2026-12-03T10:07:12Z").as_deref(),
        Some("2026-12-03T10:15:00Z")
    );
    assert_eq!(
        next("every 15m", "UTC", "2026-12-03T10:15:00Z").as_deref(),
        Some("2026-12-03T10:30:00Z")
    );
    // A fraction of a second past a multiple is past it.
    assert_eq!(
        next("every 15m", "UTC", "2026-12-03T10:14:59.999Z").as_deref(),
        Some("2026-12-03T10:15:00Z")
    );
    // 90 minutes divides a day (16 a day), so its multiples fall on 09:00, 10:30, 12:00 UTC.
    assert_eq!(
        next("every 90m", "UTC", "2026-12-03T10:07:00Z").as_deref(),
        Some("2026-12-03T10:30:00Z")
    );
    // `every 1d` is UTC midnight whatever the zone: Tokyo's 09:00.
    assert_eq!(
        next("every 1d", "Asia/Tokyo", "2026-12-03T10:00:00Z").as_deref(),
        Some("2026-12-04T00:00:00Z")
    );
    // The epoch was a Thursday, and so is 3 December 2026: 7-day multiples fall on
    // Thursdays at 00:00Z, the next one a week on.
    assert_eq!(
        next("every 7d", "UTC", "2026-12-03T10:00:00Z").as_deref(),
        Some("2026-12-10T00:00:00Z")
    );
}

#[test]
fn restart_mid_day_does_not_fire_the_morning_again() {
    // Berlin is CET (+01) in December: 07:30 local is 06:30Z; noon is 11:00Z.
    assert_eq!(
        next("daily 07:30", "Europe/Berlin", "2026-12-03T11:00:00Z").as_deref(),
        Some("2026-12-04T06:30:00Z")
    );
    // Before 07:30 the same day's fires.
    assert_eq!(
        next("daily 07:30", "Europe/Berlin", "2026-12-03T06:29:59Z").as_deref(),
        Some("2026-12-03T06:30:00Z")
    );
}

#[test]
fn an_outage_of_three_days_yields_the_three_missed_fires() {
    // Down from Tuesday noon to Friday noon (CET).
    let from = "2026-12-01T11:00:00Z";
    let to = "2026-12-04T11:00:00Z";
    assert_eq!(
        fires("daily 07:30", "Europe/Berlin", from, to),
        [
            "2026-12-02T06:30:00Z",
            "2026-12-03T06:30:00Z",
            "2026-12-04T06:30:00Z"
        ]
    );
    // The limit caps the count and keeps the earliest.
    let capped =
        schedule("daily 07:30").fires_between(utc(from), utc(to), zone("Europe/Berlin"), 2);
    assert_eq!(
        capped.into_iter().map(rfc).collect::<Vec<_>>(),
        ["2026-12-02T06:30:00Z", "2026-12-03T06:30:00Z"]
    );
    // `to` is included, `from` is not.
    assert_eq!(
        fires(
            "daily 07:30",
            "Europe/Berlin",
            "2026-12-02T06:30:00Z",
            "2026-12-03T06:30:00Z"
        ),
        ["2026-12-03T06:30:00Z"]
    );
    // An empty or backwards span has no fires.
    assert!(fires("every 1m", "UTC", to, from).is_empty());
}

#[test]
fn a_change_of_time_zone_moves_the_next_fire() {
    let after = "2026-12-03T00:00:00Z";
    // Berlin: 00:00Z is 01:00 CET, 07:30 CET today is 06:30Z.
    assert_eq!(
        next("daily 07:30", "Europe/Berlin", after).as_deref(),
        Some("2026-12-03T06:30:00Z")
    );
    // Tokyo (+09, no DST): 00:00Z is 09:00, today's 07:30 is past; tomorrow's is 22:30Z today.
    assert_eq!(
        next("daily 07:30", "Asia/Tokyo", after).as_deref(),
        Some("2026-12-03T22:30:00Z")
    );
    // The same for a cron at 07:30.
    assert_eq!(
        next("cron 30 7 * * *", "Asia/Tokyo", after).as_deref(),
        Some("2026-12-03T22:30:00Z")
    );
}

#[test]
fn weekly_fires_on_its_weekday() {
    // 3 December 2026 is a Thursday; the next Monday is the 7th, 08:00 CET = 07:00Z.
    assert_eq!(
        next("weekly mon 08:00", "Europe/Berlin", "2026-12-03T12:00:00Z").as_deref(),
        Some("2026-12-07T07:00:00Z")
    );
    // Thursday 08:00 CET (07:00Z) is past at noon: a week on.
    assert_eq!(
        next("weekly thu 08:00", "Europe/Berlin", "2026-12-03T12:00:00Z").as_deref(),
        Some("2026-12-10T07:00:00Z")
    );
    let weeks = fires(
        "weekly thu 08:00",
        "UTC",
        "2026-12-01T00:00:00Z",
        "2026-12-31T00:00:00Z",
    );
    assert_eq!(
        weeks,
        [
            "2026-12-03T08:00:00Z",
            "2026-12-10T08:00:00Z",
            "2026-12-17T08:00:00Z",
            "2026-12-24T08:00:00Z"
        ]
    );
}

#[test]
fn occurrence_keys_are_the_job_and_the_fire_seconds() {
    // 2025-12-03T07:00:00Z is 1764745200 seconds after the epoch (20425 days × 86400 + 7 × 3600).
    assert_eq!(
        occurrence_key("briefing", utc("2025-12-03T07:00:00Z")),
        "briefing@1764745200"
    );
    assert_eq!(
        occurrence_key("briefing", utc("2025-12-03T07:00:00.750Z")),
        "briefing@1764745200"
    );
    // The same fire, found from two different moments (before and after a restart), has one key.
    let s: Schedule = schedule("daily 07:30");
    let tz = zone("Europe/Berlin");
    let a = s.next_fire(utc("2026-12-02T08:00:00Z"), tz).unwrap();
    let b = s.next_fire(utc("2026-12-03T05:59:00Z"), tz).unwrap();
    assert_eq!(occurrence_key("briefing", a), occurrence_key("briefing", b));
    assert_ne!(occurrence_key("briefing", a), occurrence_key("recap", a));
}

#[test]
fn schedules_serialize_as_their_text() {
    let s = schedule("weekly MON 8:00");
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(json, "\"weekly mon 08:00\"");
    let back: Schedule = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    let bad = serde_json::from_str::<Schedule>("\"daily 25:00\"").unwrap_err();
    assert!(bad.to_string().contains("hour past 23"), "{bad}");
}
