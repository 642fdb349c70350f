//! The builtin tools, exercised through the registry exactly as the agent loop calls them.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::json;
use steward_protocol::{ConversationId, Effect, ToolCall};
use steward_tools::{
    ToolContext, ToolOutcome, builtin_registry, builtin_registry_with, builtin_tools,
};

fn ctx(timezone: Option<&str>) -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test:builtins").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        timezone.map(str::to_owned),
    )
}

/// Run one call on a fresh current-thread runtime (proptest cases are synchronous).
fn run(name: &str, args: serde_json::Value, tz: Option<&str>) -> ToolOutcome {
    let call = ToolCall {
        id: "c".into(),
        name: name.into(),
        arguments: args.to_string(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(builtin_registry().call(&call, &ctx(tz)))
}

fn calc(expression: &str) -> ToolOutcome {
    run("calculate", json!({ "expression": expression }), None)
}

#[test]
fn builtins_are_read_only_and_registered() {
    let tools = builtin_tools(steward_protocol::SystemClock::shared());
    assert!(tools.iter().all(|t| t.effect() == Effect::Read));
    let names: Vec<String> = builtin_registry()
        .specs()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(
        names,
        [
            "calculate",
            "convert_time",
            "current_time",
            "date_calc",
            "unit_convert"
        ]
    );
}

#[test]
fn builtin_specs_fit_the_token_budget() {
    let json = serde_json::to_string(&builtin_registry().specs()).unwrap();
    assert!(json.len() < 2_500, "builtin specs are {} bytes", json.len());
}

#[test]
fn calculator_table() {
    let table = [
        ("1+2*3", "7"),
        ("(1+2)*3", "9"),
        ("10-4-3", "3"),   // left-associative
        ("100/10/5", "2"), // left-associative
        ("2^3^2", "512"),  // right-associative: 2^(3^2)
        ("-2^2", "-4"),    // ^ binds tighter than unary minus
        ("(-2)^2", "4"),
        ("2^-1", "0.5"),
        ("--3", "3"),
        ("7 % 3", "1"),
        ("-7 % 3", "-1"), // remainder keeps the dividend's sign
        ("1.5e3 + .5", "1500.5"),
        ("0.1 + 0.2", "0.3"),
        ("sqrt(16) + abs(-3)", "7"),
        ("round(2.5) + floor(-1.5) + ceil(1.2)", "3"),
        ("ln(e) + log10(1000) + log2(8)", "7"),
        ("sin(pi/2) + cos(0)", "2"),
        ("atan(1)*4", "3.14159265358979"),
        ("asin(1) - acos(0)", "0"),
        ("tan(0) + exp(0)", "1"),
        ("min(3, 1, 2) + max(4, 9, -1)", "10"),
        ("max(2)", "2"),
        ("2 ** 10", "1024"),
        ("1e300 * 1e-300", "1"),
        ("SQRT(4)", "2"),
    ];
    for (expr, expected) in table {
        let out = calc(expr);
        assert!(out.ok, "{expr}: {}", out.output);
        assert_eq!(out.output, expected, "{expr}");
    }
}

#[test]
fn calculator_errors_say_what_and_where() {
    let table = [
        ("(1+2))", "unexpected ')' at 6"),
        ("1 + * 2", "unexpected '*' at 5"),
        ("1 +", "unexpected end of expression at 4"),
        ("(1+2", "missing ')' for the '(' at 1"),
        ("2 # 3", "unexpected character '#' at 3"),
        ("1/0", "division by zero at 2"),
        ("5 % (2-2)", "division by zero at 3"),
        ("sqrt(-1)", "not a finite number"),
        ("10^400", "not a finite number"),
        ("1e999", "too large"),
        ("foo(2)", "unknown name 'foo' at 1"),
        ("log(2)", "use ln, log10 or log2"),
        ("sqrt 4", "needs parentheses"),
        ("sqrt(1, 2)", "takes 1 argument, got 2"),
        ("1.2.3", "unexpected '.3' at 4"),
        ("", "expression is empty"),
    ];
    for (expr, expected) in table {
        let out = calc(expr);
        assert!(!out.ok, "{expr} gave {}", out.output);
        assert!(out.output.contains(expected), "{expr}: {}", out.output);
    }
}

#[test]
fn calculator_survives_hostile_sizes() {
    let bomb = "(".repeat(999) + "1";
    let out = calc(&bomb);
    assert!(
        !out.ok && out.output.contains("nested too deeply"),
        "{}",
        out.output
    );
    let signs = "-".repeat(999) + "1";
    assert!(calc(&signs).output.contains("nested too deeply"));
    let towers = "2^".repeat(400) + "1";
    assert!(calc(&towers).output.contains("nested too deeply"));
    let long = "1+".repeat(600) + "1";
    let out = calc(&long);
    assert!(!out.ok, "{}", out.output);
    assert!(
        out.output
            .contains("argument `expression` must be at most 1000 characters (got 1201)"),
        "{}",
        out.output
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn calculator_never_panics_on_ascii(input in "[ -~]{0,200}") {
        let out = calc(&input);
        prop_assert!(out.ok || out.output.starts_with("error: "));
        prop_assert!(!out.output.contains("crashed"), "{}", out.output);
    }

    #[test]
    fn calculator_adds_integers(a in any::<i32>(), b in any::<i32>()) {
        let out = calc(&format!("{a}+{b}"));
        prop_assert!(out.ok, "{}", out.output);
        prop_assert_eq!(out.output.parse::<i64>().unwrap(), i64::from(a) + i64::from(b));
    }
}

#[test]
fn convert_time_across_zones() {
    let cases = [
        (
            json!({"time": "2026-07-01 12:00", "from_timezone": "Europe/Paris", "to_timezone": "Asia/Tokyo"}),
            "2026-07-01T12:00:00+02:00 (Wednesday, Europe/Paris, CEST) = 2026-07-01T19:00:00+09:00 (Wednesday, Asia/Tokyo, JST)",
        ),
        (
            json!({"time": "2026-01-15T09:00", "from_timezone": "America/New_York", "to_timezone": "Europe/London"}),
            "2026-01-15T09:00:00-05:00 (Thursday, America/New_York, EST) = 2026-01-15T14:00:00+00:00 (Thursday, Europe/London, GMT)",
        ),
        // 07:30Z is just after New York springs forward (02:00 EST -> 03:00 EDT at 07:00Z).
        (
            json!({"time": "2026-03-08T07:30:00Z", "from_timezone": "UTC", "to_timezone": "America/New_York"}),
            "2026-03-08T07:30:00+00:00 (Sunday, UTC, UTC) = 2026-03-08T03:30:00-04:00 (Sunday, America/New_York, EDT)",
        ),
    ];
    for (args, expected) in cases {
        let out = run("convert_time", args.clone(), None);
        assert_eq!((out.ok, out.output.as_str()), (true, expected), "{args}");
    }
}

#[test]
fn convert_time_defaults_the_source_zone_to_the_owners() {
    let args = json!({"time": "2026-07-01 12:00", "to_timezone": "UTC"});
    let out = run("convert_time", args.clone(), Some("Europe/Paris"));
    assert!(
        out.output
            .ends_with("= 2026-07-01T10:00:00+00:00 (Wednesday, UTC, UTC)"),
        "{}",
        out.output
    );
    let out = run("convert_time", args, None);
    assert!(
        out.output
            .ends_with("= 2026-07-01T12:00:00+00:00 (Wednesday, UTC, UTC)"),
        "{}",
        out.output
    );
}

#[test]
fn convert_time_reports_dst_gap_and_overlap() {
    let gap = run(
        "convert_time",
        json!({"time": "2026-03-08 02:30", "from_timezone": "America/New_York", "to_timezone": "UTC"}),
        None,
    );
    assert!(!gap.ok);
    assert!(
        gap.output
            .contains("2026-03-08 02:30:00 does not exist in America/New_York"),
        "{}",
        gap.output
    );

    let overlap = run(
        "convert_time",
        json!({"time": "2026-11-01 01:30", "from_timezone": "America/New_York", "to_timezone": "UTC"}),
        None,
    );
    assert!(overlap.ok, "{}", overlap.output);
    assert!(overlap.output.contains("ambiguous"), "{}", overlap.output);
    assert!(
        overlap.output.contains(
            "2026-11-01T01:30:00-04:00 (Sunday, America/New_York, EDT) = 2026-11-01T05:30:00+00:00"
        ),
        "{}",
        overlap.output
    );
    assert!(
        overlap.output.contains(
            "2026-11-01T01:30:00-05:00 (Sunday, America/New_York, EST) = 2026-11-01T06:30:00+00:00"
        ),
        "{}",
        overlap.output
    );
}

#[test]
fn unknown_zones_and_bad_times_are_argument_errors() {
    let out = run("current_time", json!({"timezone": "Paris"}), None);
    assert!(
        !out.ok
            && out.output.contains("unknown time zone `Paris`")
            && out.output.contains("Europe/Paris"),
        "{}",
        out.output
    );
    let out = run(
        "convert_time",
        json!({"time": "2026-01-01 10:00", "to_timezone": "Nowhere/Land"}),
        None,
    );
    assert!(
        !out.ok && out.output.contains("Nowhere/Land"),
        "{}",
        out.output
    );
    let out = run(
        "convert_time",
        json!({"time": "tomorrow at 5", "to_timezone": "UTC"}),
        None,
    );
    assert!(
        !out.ok && out.output.contains("2026-03-08 14:30"),
        "{}",
        out.output
    );
    let out = run("current_time", json!({}), Some("Not/AZone"));
    assert!(
        !out.ok && out.output.contains("default time zone"),
        "{}",
        out.output
    );
}

#[test]
fn current_time_reads_the_clock_in_the_right_zone() {
    let before = chrono::Utc::now().timestamp();
    let out = run(
        "current_time",
        json!({"timezone": "Asia/Kolkata"}),
        Some("Europe/Paris"),
    );
    let after = chrono::Utc::now().timestamp();
    assert!(out.ok, "{}", out.output);
    assert!(
        out.output.contains("+05:30 (") && out.output.contains("Asia/Kolkata"),
        "{}",
        out.output
    );
    let unix: i64 = out.output.rsplit("unix ").next().unwrap().parse().unwrap();
    assert!(
        (before..=after).contains(&unix),
        "{unix} not in {before}..={after}"
    );
    // Without an explicit zone, the owner's default applies.
    let out = run("current_time", json!({}), Some("Europe/Paris"));
    assert!(out.output.contains("Europe/Paris"), "{}", out.output);
}

#[test]
fn date_calc_modes() {
    let out = run(
        "date_calc",
        json!({"start": "2026-01-01", "end": "2026-03-08"}),
        None,
    );
    assert!(out.output.contains(": 66 days"), "{}", out.output);
    let out = run(
        "date_calc",
        json!({"start": "2026-02-20", "add_days": 10}),
        None,
    );
    assert_eq!(
        out.output,
        "2026-02-20 (Friday) + 10 days = 2026-03-02 (Monday)"
    );
    let out = run(
        "date_calc",
        json!({"start": "2026-03-08", "end": "2026-03-09", "add_days": 1}),
        None,
    );
    assert!(!out.ok && out.output.contains("not both"), "{}", out.output);
    let out = run(
        "date_calc",
        json!({"start": "2026-01-01", "add_days": 5_000_000}),
        None,
    );
    assert!(!out.ok && out.output.contains("add_days"), "{}", out.output);
    let out = run("date_calc", json!({"start": "2026-13-01"}), None);
    assert!(
        !out.ok && out.output.contains("YYYY-MM-DD"),
        "{}",
        out.output
    );
}

#[test]
fn unit_convert_table() {
    let table = [
        (10.0, "km", "mi", "10 km = 6.21371192237334 mi"),
        (1.0, "mi", "ft", "1 mi = 5280 ft"),
        (12.0, "in", "cm", "12 in = 30.48 cm"),
        (1.0, "yd", "mm", "1 yd = 914.4 mm"),
        (1.0, "lb", "g", "1 lb = 453.59237 g"),
        (16.0, "oz", "lb", "16 oz = 1 lb"),
        (100.0, "C", "F", "100 C = 212 F"),
        (-40.0, "F", "C", "-40 F = -40 C"),
        (0.0, "K", "C", "0 K = -273.15 C"),
        (1.0, "gal", "l", "1 gal = 3.785411784 l"),
        (16.0, "cup", "gal", "16 cup = 1 gal"),
        (250.0, "ml", "l", "250 ml = 0.25 l"),
        (2.0, "kilograms", "pounds", "2 kg = 4.40924524369755 lb"),
    ];
    for (value, from, to, expected) in table {
        let out = run(
            "unit_convert",
            json!({"value": value, "from": from, "to": to}),
            None,
        );
        assert_eq!((out.ok, out.output.as_str()), (true, expected));
    }
}

#[test]
fn unit_convert_refuses_nonsense() {
    let out = run(
        "unit_convert",
        json!({"value": 1, "from": "km", "to": "kg"}),
        None,
    );
    assert!(
        !out.ok
            && out
                .output
                .contains("cannot convert km (length) to kg (mass)"),
        "{}",
        out.output
    );
    let out = run(
        "unit_convert",
        json!({"value": 1, "from": "parsec", "to": "m"}),
        None,
    );
    assert!(
        !out.ok && out.output.contains("supported: m km"),
        "{}",
        out.output
    );
    let out = run(
        "unit_convert",
        json!({"value": -300, "from": "C", "to": "K"}),
        None,
    );
    assert!(
        !out.ok && out.output.contains("below absolute zero"),
        "{}",
        out.output
    );
    let out = run(
        "unit_convert",
        json!({"value": "10", "from": "m", "to": "km"}),
        None,
    );
    assert!(
        !out.ok && out.output.contains("argument `value` must be a number"),
        "{}",
        out.output
    );
}

#[tokio::test]
async fn current_time_reports_the_instant_of_the_clock_it_was_built_with() {
    let clock = steward_protocol::ManualClock::at_ms(1_784_023_200_000); // 2026-07-14 10:00 UTC
    let registry = builtin_registry_with(clock.clone());
    let call = ToolCall {
        id: "c".into(),
        name: "current_time".into(),
        arguments: json!({"timezone": "Europe/Paris"}).to_string(),
    };
    let out = registry.call(&call, &ctx(None)).await;
    assert!(out.ok, "{}", out.output);
    assert_eq!(
        out.output,
        "2026-07-14T12:00:00+02:00 (Tuesday, Europe/Paris, CEST), unix 1784023200"
    );
    // Moving the clock moves the answer: nothing else is read.
    clock.advance(std::time::Duration::from_secs(24 * 3600 + 90));
    let out = registry.call(&call, &ctx(None)).await;
    assert_eq!(
        out.output,
        "2026-07-15T12:01:30+02:00 (Wednesday, Europe/Paris, CEST), unix 1784109690"
    );
}
