//! Reminder time phrases resolved in code: each form from fixed "now"s in Europe/Berlin,
//! America/New_York and UTC, across midnight, month ends, leap years and the four DST changes
//! of 2026; ambiguous phrases asked back, past and far times refused, garbage and oversized
//! input refused with a hint. Expected instants are worked out by hand (the comment says how)
//! and written in UTC. A proptest (regressions kept under `proptest-regressions/`) checks
//! that nothing panics and that every time given is after now.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use chrono_tz::{America::New_York, Europe::Berlin, UTC};
use proptest::prelude::*;
use steward_jobs::when::{Unresolved, resolve};

fn t(rfc3339: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(rfc3339)
        .unwrap()
        .with_timezone(&Utc)
}

fn at(phrase: &str, now: &str, tz: Tz) -> String {
    match resolve(phrase, t(now), tz) {
        Ok(r) => r.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        Err(e) => panic!("{phrase:?} at {now}: {e:?}"),
    }
}

fn err(phrase: &str, now: &str, tz: Tz) -> Unresolved {
    match resolve(phrase, t(now), tz) {
        Ok(r) => panic!("{phrase:?} resolved to {r:?}"),
        Err(e) => e,
    }
}

/// Monday 7 December 2026, 11:00 in Berlin (CET, UTC+1).
const MON: &str = "2026-12-07T10:00:00Z";

#[test]
fn relative_amounts_days_and_times_from_a_monday_in_berlin() {
    let cases = [
        ("in 20 minutes", "2026-12-07T10:20:00Z"), // real time
        ("in 20min", "2026-12-07T10:20:00Z"),
        ("in 2 hours", "2026-12-07T12:00:00Z"),
        ("in an hour", "2026-12-07T11:00:00Z"),
        ("tomorrow", "2026-12-08T08:00:00Z"), // 09:00 CET
        ("Tomorrow at 17:30", "2026-12-08T16:30:00Z"),
        ("at 17:00", "2026-12-07T16:00:00Z"), // still ahead today
        ("at 9", "2026-12-08T08:00:00Z"),     // 09:00 passed: tomorrow, not 21:00
        ("9pm", "2026-12-07T20:00:00Z"),
        ("at 5:30 pm", "2026-12-07T16:30:00Z"),
        ("next friday", "2026-12-11T08:00:00Z"), // the coming Friday, 09:00
        ("friday at 5:30pm", "2026-12-11T16:30:00Z"),
        ("on friday", "2026-12-11T08:00:00Z"),
        ("this monday at 15:00", "2026-12-07T14:00:00Z"), // today, still ahead
        ("monday", "2026-12-14T08:00:00Z"),               // a bare weekday: after today
        ("in 2 days at 9", "2026-12-09T08:00:00Z"),
        ("in 1 week", "2026-12-14T10:00:00Z"), // keeps 11:00 local
        ("day after tomorrow", "2026-12-09T08:00:00Z"),
        ("on 24 december", "2026-12-24T08:00:00Z"),
        ("24th of december", "2026-12-24T08:00:00Z"),
        ("december 24 at 18:00", "2026-12-24T17:00:00Z"),
        ("2026-12-24 18:00", "2026-12-24T17:00:00Z"),
        ("25/12", "2026-12-25T08:00:00Z"), // 25 cannot be a month
        ("12/25", "2026-12-25T08:00:00Z"),
        ("noon", "2026-12-07T11:00:00Z"),
        ("midnight", "2026-12-07T23:00:00Z"), // 00:00 CET on the 8th
        ("tonight", "2026-12-07T19:00:00Z"),  // 20:00
        ("tonight at 8", "2026-12-07T19:00:00Z"),
        ("on 1 march", "2027-03-01T08:00:00Z"), // next year's
        ("on 29 february", "2028-02-29T08:00:00Z"), // the next year that has one
    ];
    for (phrase, want) in cases {
        assert_eq!(at(phrase, MON, Berlin), want, "{phrase}");
    }
}

#[test]
fn the_confirmation_shows_the_local_time_unambiguously() {
    let r = resolve("next friday at 9", t(MON), Berlin).unwrap();
    assert_eq!(r.shown, "Friday 11 December 2026 at 09:00 (Europe/Berlin)");
    let r = resolve("tomorrow at 9", t(MON), New_York).unwrap();
    assert_eq!(
        r.shown,
        "Tuesday 8 December 2026 at 09:00 (America/New_York)"
    );
}

#[test]
fn across_midnight_month_ends_and_leap_years() {
    // 23:50 Berlin: 20 minutes later is the next day.
    let r = resolve("in 20 minutes", t("2026-12-07T22:50:00Z"), Berlin).unwrap();
    assert_eq!(r.at, t("2026-12-07T23:10:00Z"));
    assert!(
        r.shown.starts_with("Tuesday 8 December 2026 at 00:10"),
        "{}",
        r.shown
    );
    // "tomorrow" at 23:59 and at 00:01 local.
    assert_eq!(
        at("tomorrow", "2026-12-07T22:59:00Z", Berlin),
        "2026-12-08T08:00:00Z"
    );
    assert_eq!(
        at("tomorrow", "2026-12-07T23:01:00Z", Berlin),
        "2026-12-09T08:00:00Z"
    );
    // A month later clamps to the month's last day.
    assert_eq!(
        at("in 1 month", "2027-01-31T10:00:00Z", UTC),
        "2027-02-28T10:00:00Z"
    );
    assert_eq!(
        at("in 1 month", "2028-01-31T10:00:00Z", UTC),
        "2028-02-29T10:00:00Z"
    );
    // 1 March from 28 February, in a leap and a common year.
    assert_eq!(
        at("on 1 march", "2028-02-28T12:00:00Z", UTC),
        "2028-03-01T09:00:00Z"
    );
    assert_eq!(
        at("on 1 march", "2027-02-28T12:00:00Z", UTC),
        "2027-03-01T09:00:00Z"
    );
    // New Year's Eve: tomorrow is next year.
    assert_eq!(
        at("tomorrow", "2026-12-31T12:00:00Z", UTC),
        "2027-01-01T09:00:00Z"
    );
}

#[test]
fn dst_changes_in_berlin_and_new_york() {
    // Berlin springs forward on 29 March 2026 (02:00 CET → 03:00 CEST): 02:30 does not
    // exist; the first minute after the gap is 03:00 CEST = 01:00 UTC.
    let r = resolve("tomorrow at 2:30", t("2026-03-28T12:00:00Z"), Berlin).unwrap();
    assert_eq!(r.at, t("2026-03-29T01:00:00Z"));
    assert!(
        r.shown.contains("at 03:00"),
        "the shown time says the moved time: {}",
        r.shown
    );
    // "in 2 days at 9" across the change keeps 09:00 local: 09:00 CEST = 07:00 UTC.
    assert_eq!(
        at("in 2 days at 9", "2026-03-28T12:00:00Z", Berlin),
        "2026-03-30T07:00:00Z"
    );
    // "in 1 day" keeps 13:00 local: only 23 real hours.
    assert_eq!(
        at("in 1 day", "2026-03-28T12:00:00Z", Berlin),
        "2026-03-29T11:00:00Z"
    );
    // "in 3 hours" across the gap is 3 real hours.
    assert_eq!(
        at("in 3 hours", "2026-03-29T00:30:00Z", Berlin),
        "2026-03-29T03:30:00Z"
    );
    // Berlin falls back on 25 October 2026 (03:00 CEST → 02:00 CET): 02:30 comes twice;
    // the first is 02:30 CEST = 00:30 UTC.
    assert_eq!(
        at("tomorrow at 2:30", "2026-10-24T12:00:00Z", Berlin),
        "2026-10-25T00:30:00Z"
    );
    // New York springs forward on 8 March 2026 (02:00 EST → 03:00 EDT): 03:00 EDT = 07:00 UTC.
    assert_eq!(
        at("tomorrow at 2:30", "2026-03-07T17:00:00Z", New_York),
        "2026-03-08T07:00:00Z"
    );
    // New York falls back on 1 November 2026: the first 01:30 is EDT = 05:30 UTC.
    assert_eq!(
        at("tomorrow at 1:30", "2026-10-31T16:00:00Z", New_York),
        "2026-11-01T05:30:00Z"
    );
    // And two days later at 9 is 09:00 EST = 14:00 UTC.
    assert_eq!(
        at("in 2 days at 9", "2026-10-31T16:00:00Z", New_York),
        "2026-11-02T14:00:00Z"
    );
}

#[test]
fn ambiguous_phrases_are_asked_back() {
    for phrase in [
        "05/06",
        "at 9 or 10",
        "sometime next week",
        "soon",
        "next week",
        "later today",
        "in 2 hours at 9",
    ] {
        assert!(
            matches!(err(phrase, MON, Berlin), Unresolved::Ambiguous { .. }),
            "{phrase}"
        );
    }
    let Unresolved::Ambiguous { question } = err("05/06", MON, Berlin) else {
        unreachable!()
    };
    assert!(
        question.contains("5 June") && question.contains("6 May"),
        "{question}"
    );
}

#[test]
fn past_far_garbage_and_oversized_are_refused() {
    match err("today at 8", MON, Berlin) {
        Unresolved::InThePast { shown } => {
            assert_eq!(shown, "Monday 7 December 2026 at 08:00 (Europe/Berlin)")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        err("2020-01-01", MON, Berlin),
        Unresolved::InThePast { .. }
    ));
    assert_eq!(err("2040-01-01", MON, Berlin), Unresolved::TooFar);
    for phrase in [
        "",
        "   ",
        "blah",
        "at 25:00",
        "13pm",
        "in 0 minutes",
        "31/02",
        "on 31 february 2027",
        "at 9:7",
    ] {
        assert!(
            matches!(err(phrase, MON, Berlin), Unresolved::NotUnderstood { .. }),
            "{phrase:?}"
        );
    }
    let Unresolved::NotUnderstood { hint } = err("blah", MON, Berlin) else {
        unreachable!()
    };
    assert!(hint.contains("tomorrow at 9"), "{hint}");
    assert_eq!(err(&"a".repeat(201), MON, Berlin), Unresolved::TooLong);
}

proptest! {
    #[test]
    fn any_text_resolves_after_now_or_is_refused(phrase in "\\PC{0,60}", secs in 1_700_000_000i64..2_000_000_000) {
        let now = DateTime::<Utc>::from_timestamp(secs, 0).unwrap();
        if let Ok(r) = resolve(&phrase, now, Berlin) {
            prop_assert!(r.at > now);
        }
    }

    #[test]
    fn phrase_shaped_text_never_panics(
        words in proptest::collection::vec(
            prop_oneof![
                Just("in"), Just("at"), Just("on"), Just("tomorrow"), Just("next"), Just("friday"),
                Just("2"), Just("days"), Just("9"), Just("pm"), Just("31"), Just("february"),
                Just("12/13"), Just("midnight"), Just("this"), Just("of"), Just("0"), Just("9999"),
            ],
            0..7,
        ),
        secs in 1_700_000_000i64..2_000_000_000,
    ) {
        let now = DateTime::<Utc>::from_timestamp(secs, 0).unwrap();
        if let Ok(r) = resolve(&words.join(" "), now, New_York) {
            prop_assert!(r.at > now);
        }
    }
}
