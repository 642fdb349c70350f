//! DST: fixed-time schedules fire once in a gap (at the gap's end) and once in a repeated
//! hour (its first occurrence); `every` and wildcard cron fire by the real clock.
//!
//! The transitions of 2026 these tests cross (checked against the tz database rules: the EU
//! changes on the last Sunday of March and October at 01:00 UTC, the US on the second Sunday
//! of March and the first Sunday of November at 02:00 local):
//! - Europe/Berlin, Sun 29 March: 02:00 CET (+01) jumps to 03:00 CEST (+02) at 01:00Z.
//! - Europe/Berlin, Sun 25 October: 03:00 CEST falls back to 02:00 CET at 01:00Z, so
//!   02:00-02:59 happens at 00:00Z-00:59Z and again at 01:00Z-01:59Z.
//! - America/New_York, Sun 8 March: 02:00 EST (-05) jumps to 03:00 EDT (-04) at 07:00Z.
//! - America/New_York, Sun 1 November: 02:00 EDT falls back to 01:00 EST at 06:00Z, so
//!   01:00-01:59 happens at 05:00Z-05:59Z and again at 06:00Z-06:59Z.

use crate::schedule_support::{fires, schedule, utc, zone};

const BERLIN: &str = "Europe/Berlin";
const NEW_YORK: &str = "America/New_York";

#[test]
fn berlin_daily_0230_fires_once_on_the_gap_day_at_the_gap_end() {
    // 28 March 00:00 CET (27th 23:00Z) to 31 March 00:00 CEST (30th 22:00Z): three days.
    let got = fires(
        "daily 02:30",
        BERLIN,
        "2026-03-27T23:00:00Z",
        "2026-03-30T22:00:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-03-28T01:30:00Z", // Sat 02:30 CET (+01)
            "2026-03-29T01:00:00Z", // Sun 02:30 does not exist: the gap's end, 03:00 CEST
            "2026-03-30T00:30:00Z", // Mon 02:30 CEST (+02)
        ]
    );
}

#[test]
fn berlin_daily_0230_fires_once_on_the_fall_back_day_at_the_first_occurrence() {
    // 25 October 00:00 CEST (24th 22:00Z) to 26 October 00:00 CET (25th 23:00Z).
    let got = fires(
        "daily 02:30",
        BERLIN,
        "2026-10-24T22:00:00Z",
        "2026-10-25T23:00:00Z",
    );
    // 02:30 CEST (+02) = 00:30Z; the second 02:30 (CET, 01:30Z) is not a fire.
    assert_eq!(got, ["2026-10-25T00:30:00Z"]);
    // Asked from between the two occurrences, the next fire is the next day's.
    let next = schedule("daily 02:30").next_fire(utc("2026-10-25T00:40:00Z"), zone(BERLIN));
    // Mon 26 October 02:30 CET (+01) = 01:30Z.
    assert_eq!(next, Some(utc("2026-10-26T01:30:00Z")));
}

#[test]
fn new_york_daily_0230_on_the_gap_day_and_0130_on_the_fall_back_day_fire_once() {
    // 8 March 00:00 EST (05:00Z) to 9 March 00:00 EDT (04:00Z).
    let got = fires(
        "daily 02:30",
        NEW_YORK,
        "2026-03-08T05:00:00Z",
        "2026-03-09T04:00:00Z",
    );
    // 02:30 does not exist: the gap's end, 03:00 EDT (-04) = 07:00Z.
    assert_eq!(got, ["2026-03-08T07:00:00Z"]);

    // 1 November 00:00 EDT (04:00Z) to 2 November 00:00 EST (05:00Z).
    let got = fires(
        "daily 01:30",
        NEW_YORK,
        "2026-11-01T04:00:00Z",
        "2026-11-02T05:00:00Z",
    );
    // 01:30 EDT (-04) = 05:30Z; the second 01:30 (EST, 06:30Z) is not a fire.
    assert_eq!(got, ["2026-11-01T05:30:00Z"]);
    // 02:30 is not repeated in New York: once, 02:30 EST (-05) = 07:30Z.
    let got = fires(
        "daily 02:30",
        NEW_YORK,
        "2026-11-01T04:00:00Z",
        "2026-11-02T05:00:00Z",
    );
    assert_eq!(got, ["2026-11-01T07:30:00Z"]);
}

#[test]
fn weekly_on_the_gap_sunday_follows_the_same_rule() {
    // Sundays 02:30 in Berlin, 22 March to 5 April.
    let got = fires(
        "weekly sun 02:30",
        BERLIN,
        "2026-03-21T00:00:00Z",
        "2026-04-05T12:00:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-03-22T01:30:00Z", // 02:30 CET
            "2026-03-29T01:00:00Z", // gap: 03:00 CEST
            "2026-04-05T00:30:00Z", // 02:30 CEST
        ]
    );
}

#[test]
fn fixed_time_cron_matches_daily_across_both_transitions() {
    for (tz, from, to, want) in [
        (
            BERLIN,
            "2026-03-28T23:00:00Z",
            "2026-03-29T22:00:00Z",
            "2026-03-29T01:00:00Z",
        ),
        (
            BERLIN,
            "2026-10-24T22:00:00Z",
            "2026-10-25T23:00:00Z",
            "2026-10-25T00:30:00Z",
        ),
        (
            NEW_YORK,
            "2026-03-08T05:00:00Z",
            "2026-03-09T04:00:00Z",
            "2026-03-08T07:00:00Z",
        ),
        (
            NEW_YORK,
            "2026-11-01T04:00:00Z",
            "2026-11-02T05:00:00Z",
            "2026-11-01T07:30:00Z",
        ),
    ] {
        // The same instants as the daily tests above, each for its reason there.
        assert_eq!(
            fires("cron 30 2 * * *", tz, from, to),
            [want],
            "{tz} {from}"
        );
        assert_eq!(fires("daily 02:30", tz, from, to), [want], "{tz} {from}");
    }
    // New York's repeated 01:30: once, at 01:30 EDT = 05:30Z.
    let got = fires(
        "cron 30 1 * * *",
        NEW_YORK,
        "2026-11-01T04:00:00Z",
        "2026-11-02T05:00:00Z",
    );
    assert_eq!(got, ["2026-11-01T05:30:00Z"]);
}

#[test]
fn cron_lists_of_fixed_times_follow_the_fixed_rule_too() {
    // croner alone treats `30 2,14` as a wildcard job (skipping 02:30 in the gap, firing it
    // twice in the repeated hour); the fixed-time rule fires it once in each.
    let got = fires(
        "cron 30 2,14 * * *",
        BERLIN,
        "2026-03-28T23:00:00Z",
        "2026-03-29T22:00:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-03-29T01:00:00Z", // 02:30 in the gap: 03:00 CEST
            "2026-03-29T12:30:00Z", // 14:30 CEST
        ]
    );
    let got = fires(
        "cron 30 2,14 * * *",
        BERLIN,
        "2026-10-24T22:00:00Z",
        "2026-10-25T23:00:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-10-25T00:30:00Z", // the first 02:30 (CEST)
            "2026-10-25T13:30:00Z", // 14:30 CET
        ]
    );
    // 02:00 and 02:30 both fall in the gap: one fire at its end, not two at one instant.
    let got = fires(
        "cron 0,30 2 * * *",
        BERLIN,
        "2026-03-28T23:00:00Z",
        "2026-03-29T22:00:00Z",
    );
    assert_eq!(got, ["2026-03-29T01:00:00Z"]);
}

#[test]
fn every_hour_fires_by_the_real_clock_through_both_transitions() {
    // Spring forward: the UTC hours; local 00:00, 01:00 CET then 03:00, 04:00, 05:00 CEST —
    // an hour apart in real time, no 02:00 because it does not exist.
    let got = fires(
        "every 1h",
        BERLIN,
        "2026-03-28T22:00:00Z",
        "2026-03-29T03:00:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-03-28T23:00:00Z",
            "2026-03-29T00:00:00Z",
            "2026-03-29T01:00:00Z",
            "2026-03-29T02:00:00Z",
            "2026-03-29T03:00:00Z",
        ]
    );
    // Fall back: local 01:00 CEST, 02:00 CEST, 02:00 CET, 03:00 CET — 02:00 twice, as the
    // real clock passes it twice, and still one hour apart.
    let got = fires(
        "every 1h",
        BERLIN,
        "2026-10-24T22:00:00Z",
        "2026-10-25T02:00:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-10-24T23:00:00Z",
            "2026-10-25T00:00:00Z",
            "2026-10-25T01:00:00Z",
            "2026-10-25T02:00:00Z",
        ]
    );
    // The zone does not matter to `every`.
    assert_eq!(
        fires(
            "every 1h",
            NEW_YORK,
            "2026-11-01T04:30:00Z",
            "2026-11-01T07:00:00Z"
        ),
        [
            "2026-11-01T05:00:00Z",
            "2026-11-01T06:00:00Z",
            "2026-11-01T07:00:00Z"
        ]
    );
}

#[test]
fn wildcard_cron_fires_by_the_real_clock_through_both_transitions() {
    // Spring forward: 01:45 CET (00:45Z), then 03:00 CEST (01:00Z): the gap's minutes do not
    // exist, and the real clock keeps a 15-minute beat.
    let got = fires(
        "cron */15 * * * *",
        BERLIN,
        "2026-03-29T00:30:00Z",
        "2026-03-29T01:30:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-03-29T00:45:00Z",
            "2026-03-29T01:00:00Z",
            "2026-03-29T01:15:00Z",
            "2026-03-29T01:30:00Z",
        ]
    );
    // Fall back, from 02:30 CEST (00:30Z): 02:45 CEST, 02:00 CET, 02:15 CET, 02:30 CET.
    let got = fires(
        "cron */15 * * * *",
        BERLIN,
        "2026-10-25T00:30:00Z",
        "2026-10-25T01:30:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-10-25T00:45:00Z",
            "2026-10-25T01:00:00Z",
            "2026-10-25T01:15:00Z",
            "2026-10-25T01:30:00Z",
        ]
    );
    // From inside the second 02:xx (02:10 CET = 01:10Z) the next is 02:15 CET, not 03:00.
    let next = schedule("cron */15 * * * *").next_fire(utc("2026-10-25T01:10:00Z"), zone(BERLIN));
    assert_eq!(next, Some(utc("2026-10-25T01:15:00Z")));
    // Hourly on the hour: 02:00 CEST (00:00Z) and 02:00 CET (01:00Z) both fire.
    let got = fires(
        "cron 0 * * * *",
        BERLIN,
        "2026-10-24T23:30:00Z",
        "2026-10-25T02:00:00Z",
    );
    assert_eq!(
        got,
        [
            "2026-10-25T00:00:00Z",
            "2026-10-25T01:00:00Z",
            "2026-10-25T02:00:00Z"
        ]
    );
}
