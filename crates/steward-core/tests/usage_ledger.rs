//! The usage ledger end to end: every model call of a turn recorded (a tool round → two
//! records, the extraction call too), priced at record time by the built-in table or the
//! owner's override, an unpriced model kept as "no price", and the roll-up into days in the
//! owner's time zone across a local midnight and a DST change.

use crate::common::{
    collect, fake_models, final_text, harness_clocked, harness_with_memory, inbound,
};
use std::time::Duration;
use steward_core::AgentSettings;
use steward_core::approvals::ApprovalSettings;
use steward_core::usage::{UsageDays, UsageReport, usage_report};
use steward_llm::{Price, PriceTable};
use steward_protocol::{Clock, ManualClock, SystemClock, TurnEvent, Usage};
use steward_store::{StoreConfig, UsagePurpose, UsageRecord, UsageStore};
use steward_testkit::{FakeModel, Reply, Step};

/// 2026-03-10 18:20:00 UTC: 23:50 in India (UTC+5:30), 19:20 in Paris.
const EVENING_UTC: i64 = 1_773_166_800;

async fn report(store: &dyn UsageStore, now: i64, tz: Option<&str>, days: u32) -> UsageReport {
    usage_report(store, now, tz, UsageDays::new(days).unwrap())
        .await
        .unwrap()
}

fn tool_then_answer(fake: &FakeModel) {
    fake.push(Step::Reply(
        Reply::tool_call("calculate", r#"{"expression":"6*7"}"#).with_usage(100, 10),
    ));
    fake.push(Step::Reply(Reply::text("It is 42.").with_usage(200, 20)));
}

#[tokio::test]
async fn a_tool_round_records_both_calls_priced_by_the_builtin_table() {
    let fake = FakeModel::start().await.unwrap();
    tool_then_answer(&fake);
    let clock = ManualClock::at_ms(EVENING_UTC * 1000);
    let h = harness_clocked(
        fake_models(&fake),
        AgentSettings::default(),
        Some("openai:gpt-4o"),
        steward_tools::builtin_registry(),
        ApprovalSettings::default(),
        clock.clone(),
    );
    let events = collect(&h.steward, inbound("u1", "what is 6*7?")).await;
    assert_eq!(final_text(&events), "It is 42.");
    let Some(TurnEvent::Final { usage, .. }) = events.last() else {
        panic!("{events:?}");
    };
    assert_eq!(
        *usage,
        Usage {
            input_tokens: 300,
            output_tokens: 30
        }
    );
    let r = report(&*h.store, EVENING_UTC, None, 1).await;
    let day = &r.days[0];
    assert_eq!(day.date, "2026-03-10");
    assert_eq!(day.totals.calls, 2, "one record per model call: {r:?}");
    assert_eq!(
        (day.totals.input_tokens, day.totals.output_tokens),
        (300, 30)
    );
    // gpt-4o: $2.50 / $10 per million → 100×2.5 + 10×10 = 350 µ$, 200×2.5 + 20×10 = 700 µ$.
    assert_eq!(day.totals.cost_micro_usd, 1_050);
    assert_eq!(day.totals.unpriced_calls, 0);
    assert_eq!(day.totals.cost_usd(), Some(0.00105));
    assert_eq!(r.by_model.len(), 1);
    assert_eq!(r.by_model[0].model, "openai:gpt-4o");
    assert_eq!(r.total, day.totals);
}

#[tokio::test]
async fn an_override_prices_a_model_and_an_unknown_one_has_no_price() {
    let fake = FakeModel::start().await.unwrap();
    tool_then_answer(&fake);
    let clock = ManualClock::at_ms(EVENING_UTC * 1000);
    let settings = AgentSettings {
        prices: PriceTable::builtin()
            .with_override("openai:gpt-4o", Price::usd_per_million(1.0, 4.0).unwrap()),
        ..AgentSettings::default()
    };
    let h = harness_clocked(
        fake_models(&fake),
        settings.clone(),
        Some("openai:gpt-4o"),
        steward_tools::builtin_registry(),
        ApprovalSettings::default(),
        clock.clone(),
    );
    collect(&h.steward, inbound("u2", "what is 6*7?")).await;
    let r = report(&*h.store, EVENING_UTC, None, 1).await;
    // 300×1 + 30×4 = 420 µ$ (the built-in price would be 1050).
    assert_eq!(r.total.cost_micro_usd, 420);

    // Same store, a model no table knows.
    let fake2 = FakeModel::start().await.unwrap();
    fake2.push(Step::Reply(Reply::text("hi").with_usage(50, 5)));
    let h2 = harness_clocked(
        fake_models(&fake2),
        settings,
        Some("openai:my-local-model"),
        steward_tools::builtin_registry(),
        ApprovalSettings::default(),
        clock,
    );
    collect(&h2.steward, inbound("u3", "hello")).await;
    let r = report(&*h2.store, EVENING_UTC, None, 1).await;
    assert_eq!(r.total.calls, 1);
    assert_eq!(r.total.unpriced_calls, 1);
    assert_eq!(r.total.cost_usd(), None, "no price, not $0");
    assert_eq!(r.by_model[0].totals.cost_usd(), None);
}

#[tokio::test]
async fn the_extraction_call_is_recorded_too() {
    let fake = FakeModel::start().await.unwrap();
    let (h, _memory) = harness_with_memory(&fake, true);
    fake.push(Step::Reply(Reply::text("Noted.").with_usage(10, 5)));
    fake.push(Step::Reply(Reply::text(r#"{"facts":[]}"#).with_usage(7, 3)));
    collect(&h.steward, inbound("u4", "I love hiking")).await;
    let mut total = None;
    for _ in 0..250 {
        let r = report(&*h.store, SystemClock.now_secs(), None, 1).await;
        if r.total.calls >= 2 {
            total = Some(r.total);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let total = total.expect("the extraction call was recorded");
    assert_eq!(
        (total.calls, total.input_tokens, total.output_tokens),
        (2, 17, 8)
    );
}

#[tokio::test]
async fn days_are_the_owners_across_a_local_midnight() {
    let fake = FakeModel::start().await.unwrap();
    fake.push(Step::Reply(Reply::text("late").with_usage(1, 1)));
    fake.push(Step::Reply(Reply::text("early").with_usage(2, 2)));
    let clock = ManualClock::at_ms(EVENING_UTC * 1000);
    let h = harness_clocked(
        fake_models(&fake),
        AgentSettings {
            timezone: Some("Asia/Kolkata".into()),
            ..AgentSettings::default()
        },
        Some("openai:gpt-4o-mini"),
        steward_tools::builtin_registry(),
        ApprovalSettings::default(),
        clock.clone(),
    );
    // 23:50 in India, then 00:10 the next day (20 minutes later).
    collect(&h.steward, inbound("u5", "one")).await;
    clock.advance(Duration::from_secs(20 * 60));
    collect(&h.steward, inbound("u5", "two")).await;
    let now = EVENING_UTC + 25 * 60;
    let india = report(&*h.store, now, Some("Asia/Kolkata"), 2).await;
    assert_eq!(india.timezone, "Asia/Kolkata");
    let days: Vec<(&str, u64, u64)> = india
        .days
        .iter()
        .map(|d| (d.date.as_str(), d.totals.calls, d.totals.input_tokens))
        .collect();
    assert_eq!(days, [("2026-03-10", 1, 1), ("2026-03-11", 1, 2)]);
    // In UTC both calls are on the evening of the 10th.
    let utc = report(&*h.store, now, None, 2).await;
    let days: Vec<(&str, u64)> = utc
        .days
        .iter()
        .map(|d| (d.date.as_str(), d.totals.calls))
        .collect();
    assert_eq!(days, [("2026-03-09", 0), ("2026-03-10", 2)]);
}

#[tokio::test]
async fn a_dst_change_keeps_every_record_on_its_local_day_and_the_window_ends_today() {
    let store = steward_store::open(&StoreConfig::in_memory()).unwrap();
    let at = |secs: i64, tokens: u64| UsageRecord {
        at_secs: secs,
        conversation: None,
        turn_id: None,
        model: "openai:gpt-4o".into(),
        purpose: UsagePurpose::Turn,
        genre: "cli".into(),
        input_tokens: tokens,
        output_tokens: 0,
        cost_micro_usd: Some(tokens),
    };
    // Paris went to summer time at 01:00 UTC on 2026-03-29 (a 23-hour day).
    let records = [
        (1_774_740_600, 1),    // 2026-03-28 23:30 UTC = 00:30 CET on the 29th
        (1_774_825_200, 10),   // 2026-03-29 23:00 UTC = 01:00 CEST on the 30th
        (1_774_821_600, 100),  // 2026-03-29 22:00 UTC = 00:00 CEST on the 30th
        (1_774_818_000, 1000), // 2026-03-29 21:00 UTC = 23:00 CEST on the 29th
        (1_774_650_000, 5000), // 2026-03-27 22:20 UTC = 23:20 CET on the 27th: outside
    ];
    for (secs, tokens) in records {
        store.record_usage(&at(secs, tokens)).await.unwrap();
    }
    // 2026-03-30 08:00 UTC.
    let r = report(&*store, 1_774_857_600, Some("Europe/Paris"), 3).await;
    let days: Vec<(&str, u64)> = r
        .days
        .iter()
        .map(|d| (d.date.as_str(), d.totals.input_tokens))
        .collect();
    assert_eq!(
        days,
        [("2026-03-28", 0), ("2026-03-29", 1001), ("2026-03-30", 110)]
    );
    assert_eq!(
        r.total.cost_micro_usd, 1111,
        "the 27th is outside the window"
    );
}
