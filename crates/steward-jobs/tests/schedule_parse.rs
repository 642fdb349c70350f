//! The text form of schedules: every accepted form parses to the expected value and prints
//! back canonically, refusals say what was wrong, and nothing panics (proptest).

use chrono::Weekday;
use proptest::prelude::*;
use steward_jobs::schedule::{Interval, MAX_INPUT_BYTES, Schedule, ScheduleError, TimeOfDay};

use crate::schedule_support::schedule;

fn every(minutes: u32) -> Schedule {
    Schedule::Every(Interval::from_minutes(minutes).unwrap())
}

fn at(hour: u32, minute: u32) -> TimeOfDay {
    TimeOfDay::new(hour, minute).unwrap()
}

#[test]
fn accepted_forms_parse_to_their_values_and_print_canonically() {
    // (input, expected value, canonical text)
    let cases: Vec<(&str, Schedule, &str)> = vec![
        ("", Schedule::Disabled, "off"),
        ("   ", Schedule::Disabled, "off"),
        ("off", Schedule::Disabled, "off"),
        (" OFF ", Schedule::Disabled, "off"),
        ("every 15m", every(15), "every 15m"),
        ("every 1m", every(1), "every 1m"),
        ("every 2h", every(120), "every 2h"),
        ("every 1d", every(1440), "every 1d"),
        ("every 7d", every(10080), "every 7d"),
        ("every 90m", every(90), "every 90m"),
        ("every 60m", every(60), "every 1h"),
        ("every 36h", every(2160), "every 36h"),
        ("every 120s", every(2), "every 2m"),
        ("EVERY  15M", every(15), "every 15m"),
        ("daily 07:30", Schedule::Daily(at(7, 30)), "daily 07:30"),
        ("daily 7:30", Schedule::Daily(at(7, 30)), "daily 07:30"),
        ("Daily 00:00", Schedule::Daily(at(0, 0)), "daily 00:00"),
        ("daily 23:59", Schedule::Daily(at(23, 59)), "daily 23:59"),
        (
            "weekly mon 08:00",
            Schedule::Weekly(Weekday::Mon, at(8, 0)),
            "weekly mon 08:00",
        ),
        (
            "weekly SUN 18:05",
            Schedule::Weekly(Weekday::Sun, at(18, 5)),
            "weekly sun 18:05",
        ),
        (
            "weekly Friday 9:00",
            Schedule::Weekly(Weekday::Fri, at(9, 0)),
            "weekly fri 09:00",
        ),
    ];
    for (input, want, canonical) in cases {
        let got: Schedule = input
            .parse()
            .unwrap_or_else(|e| panic!("{input:?} should parse: {e}"));
        assert_eq!(got, want, "{input:?}");
        assert_eq!(got.to_string(), canonical, "{input:?}");
        assert_eq!(schedule(canonical), got, "round trip of {input:?}");
    }
}

#[test]
fn cron_forms_parse_and_print_canonically() {
    let cases = [
        ("cron 0 9 * * 1-5", "cron 0 9 * * 1-5"),
        ("cron */15 * * * *", "cron */15 * * * *"),
        ("CRON 0 9 * * MON-FRI", "cron 0 9 * * mon-fri"),
        ("cron  0   8,12,18 * *  *", "cron 0 8,12,18 * * *"),
        ("cron 0 0 L * *", "cron 0 0 l * *"),
        ("cron 0 10 * * 5#2", "cron 0 10 * * 5#2"),
        ("cron 0 9 15W * *", "cron 0 9 15w * *"),
        ("cron 0 12 1 jan-mar *", "cron 0 12 1 jan-mar *"),
        ("cron 0 0 ? * 7", "cron 0 0 ? * 7"),
        ("cron 23 0-20/2 * * *", "cron 23 0-20/2 * * *"),
    ];
    for (input, canonical) in cases {
        let got = schedule(input);
        assert!(matches!(got, Schedule::Cron(_)), "{input:?} is a cron");
        assert_eq!(got.to_string(), canonical, "{input:?}");
        assert_eq!(schedule(canonical), got, "round trip of {input:?}");
    }
    let Schedule::Cron(fixed) = schedule("cron 30 2,14 * * *") else {
        panic!("a cron")
    };
    assert!(fixed.is_fixed_time());
    let Schedule::Cron(wild) = schedule("cron */15 9 * * *") else {
        panic!("a cron")
    };
    assert!(!wild.is_fixed_time());
}

/// The error of `input`, which must be refused.
fn refused(input: &str) -> ScheduleError {
    match input.parse::<Schedule>() {
        Ok(s) => panic!("{input:?} should be refused, parsed as {s:?}"),
        Err(e) => e,
    }
}

#[test]
fn garbage_and_out_of_range_are_refused_with_what_was_expected() {
    let unknown = refused("hourly");
    assert!(
        matches!(unknown, ScheduleError::UnknownForm { .. }),
        "{unknown:?}"
    );
    assert!(unknown.to_string().contains("daily HH:MM"), "{unknown}");

    for input in [
        "daily 24:00",
        "daily 07:60",
        "daily 7",
        "daily 07:3",
        "daily -1:30",
        "daily 07:30:00",
        "daily ０７:３０",
    ] {
        let e = refused(input);
        assert!(
            matches!(e, ScheduleError::BadTime { .. }),
            "{input:?}: {e:?}"
        );
        assert!(e.to_string().contains("HH:MM"), "{e}");
    }
    assert!(refused("daily 24:00").to_string().contains("hour past 23"));
    assert!(
        refused("daily 07:60")
            .to_string()
            .contains("minute past 59")
    );

    for input in [
        "every 0m",
        "every 30s",
        "every 90s",
        "every 8d",
        "every 10081m",
        "every 15",
        "every m",
        "every 15x",
        "every 99999999999999999999m",
    ] {
        let e = refused(input);
        assert!(
            matches!(e, ScheduleError::BadInterval { .. }),
            "{input:?}: {e:?}"
        );
        assert!(e.to_string().contains("every 15m"), "{e}");
    }
    assert!(refused("every 90s").to_string().contains("whole minutes"));
    assert!(
        refused("every 8d")
            .to_string()
            .contains("longer than 7 days")
    );

    let e = refused("weekly funday 08:00");
    assert!(matches!(e, ScheduleError::BadWeekday { .. }), "{e:?}");
    assert!(e.to_string().contains("mon, tue"), "{e}");

    for input in [
        "daily",
        "daily 07:30 08:30",
        "weekly mon",
        "every",
        "off now",
    ] {
        let e = refused(input);
        assert!(
            matches!(e, ScheduleError::WrongArity { .. }),
            "{input:?}: {e:?}"
        );
    }
}

#[test]
fn cron_refusals_name_the_problem() {
    let six = refused("cron 0 0 9 * * 1-5");
    assert_eq!(
        six,
        ScheduleError::CronFieldCount {
            count: 6,
            hint: "; a seconds field is not accepted (schedules work to the minute)"
        }
    );
    assert!(six.to_string().contains("exactly 5 fields"), "{six}");
    assert!(matches!(
        refused("cron 0 9 * *"),
        ScheduleError::CronFieldCount { count: 4, .. }
    ));
    assert!(matches!(
        refused("cron"),
        ScheduleError::CronFieldCount { count: 0, .. }
    ));
    assert!(matches!(
        refused("cron 0 0 9 * * 1 2026"),
        ScheduleError::CronFieldCount { count: 7, .. }
    ));
    for input in [
        "cron 60 9 * * *",
        "cron 0 24 * * *",
        "cron 0 9 32 * *",
        "cron 0 9 * 13 *",
        "cron 0 9 * * 8",
        "cron a b c d e",
        "cron 0 9 * * +mon",
        "cron @daily x y z w",
        "cron 0 9 * * mon‐fri",
        "cron 0 0 31 2 *",
    ] {
        let e = refused(input);
        assert!(
            matches!(e, ScheduleError::BadCron { .. }),
            "{input:?}: {e:?}"
        );
    }
    assert!(
        refused("cron 0 0 31 2 *")
            .to_string()
            .contains("never matches")
    );
}

#[test]
fn oversized_and_hostile_input_is_refused_and_never_echoed_whole() {
    let long = format!("daily {}", "9".repeat(MAX_INPUT_BYTES));
    assert_eq!(
        refused(&long),
        ScheduleError::TooLong {
            len: long.len(),
            max: MAX_INPUT_BYTES
        }
    );
    // Just under the limit: parsed (and refused for its content), the message quoting at
    // most 64 characters of it.
    let junk = format!("weekly {} 08:00", "x".repeat(200));
    assert!(junk.len() <= MAX_INPUT_BYTES);
    let message = refused(&junk).to_string();
    assert!(message.len() < 200, "{message}");
    assert!(message.contains(&"x".repeat(64)), "{message}");
    assert!(!message.contains(&"x".repeat(65)), "{message}");

    for input in [
        "\u{0}",
        "daily\u{202e}07:30",
        "🕖 07:30",
        "every 1\u{0}m",
        "cron 0 9 * * \u{7}",
    ] {
        let e = refused(input);
        let message = e.to_string();
        assert!(
            !message.contains('\u{0}')
                && !message.contains('\u{202e}')
                && !message.contains('\u{7}'),
            "{message:?}"
        );
    }
}

fn field() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "*", "*/5", "0", "1-5", "1,15", "2-10/2", "7", "mon-fri", "l", "5#2", "15w", "jan", "?",
        "99", "", "#", "l-w", "*/0", "1-", "-1", "sun,sat",
    ])
    .prop_map(str::to_string)
}

fn valid_schedule() -> impl Strategy<Value = Schedule> {
    let weekdays = prop::sample::select(vec![
        Weekday::Mon,
        Weekday::Tue,
        Weekday::Wed,
        Weekday::Thu,
        Weekday::Fri,
        Weekday::Sat,
        Weekday::Sun,
    ]);
    let cron = (0u32..60, 0u32..24, 1u32..29, 1u32..13, 0u32..8)
        .prop_map(|(m, h, d, mo, w)| schedule(&format!("cron {m} {h} {d} {mo} {w}")));
    prop_oneof![
        Just(Schedule::Disabled),
        (1u32..=10080).prop_map(every),
        (0u32..24, 0u32..60).prop_map(|(h, m)| Schedule::Daily(at(h, m))),
        (weekdays, 0u32..24, 0u32..60).prop_map(|(d, h, m)| Schedule::Weekly(d, at(h, m))),
        cron,
    ]
}

proptest! {
    #[test]
    fn display_then_parse_is_the_identity(s in valid_schedule()) {
        let text = s.to_string();
        let back: Schedule = text.parse().map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        prop_assert_eq!(back, s);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        let _ = text.parse::<Schedule>();
    }

    #[test]
    fn arbitrary_forms_never_panic_and_accepted_ones_round_trip(
        keyword in prop::sample::select(vec!["every", "daily", "weekly", "cron", "off"]),
        words in prop::collection::vec("[0-9a-z:*/#,?-]{0,6}", 0..7),
        fields in prop::collection::vec(field(), 5),
    ) {
        for text in [format!("{keyword} {}", words.join(" ")), format!("cron {}", fields.join(" "))] {
            if let Ok(s) = text.parse::<Schedule>() {
                let back: Schedule = s.to_string().parse().map_err(|e| TestCaseError::fail(format!("{s}: {e}")))?;
                prop_assert_eq!(back, s);
            }
        }
    }
}
