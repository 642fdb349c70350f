//! The desk's history side inside the core: each listed action says who decided it, how,
//! where and when (its decisive audit entry, not a later one), the whole trail of one action
//! in order with its detail as data, and the pending count following every decision.

use crate::common;

use common::tools::Recorder;
use common::*;
use std::sync::Arc;
use std::time::Duration;
use steward_core::approvals::ApprovalSettings;
use steward_core::{AgentSettings, ApprovalDesk, ApprovalError, Resolution};
use steward_protocol::{
    ActionStatus, Clock, Decision, DecisionKind, Effect, ManualClock, PendingAction, Surface,
};
use steward_testkit::{FakeModel, Reply, Step};

const TTL: Duration = Duration::from_secs(30 * 60);

fn setup(fake: &FakeModel, tool: &Recorder, clock: &Arc<ManualClock>) -> Harness {
    let mut tools = steward_tools::builtin_registry();
    tools.register(Arc::new(tool.clone())).unwrap();
    let approvals = ApprovalSettings {
        default_ttl: TTL,
        ..ApprovalSettings::default()
    };
    harness_clocked(
        fake_models(fake),
        AgentSettings::default(),
        Some("openai:gpt-test"),
        tools,
        approvals,
        clock.clone(),
    )
}

async fn all(h: &Harness) -> Vec<PendingAction> {
    h.steward.list(None, 500).await.unwrap()
}

#[tokio::test]
async fn a_listing_says_who_decided_each_action_how_where_and_when() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let clock = ManualClock::starting_now();
    let h = setup(&fake, &tool, &clock);
    let confirmed = park_email(&fake, &h, "h1", "a@example.com").await;
    let cancelled = park_email(&fake, &h, "h2", "b@example.com").await;
    let expired = park_email(&fake, &h, "h3", "c@example.com").await;

    clock.advance(Duration::from_secs(5));
    let confirmed_at = clock.now_ms();
    fake.push(Step::Reply(Reply::text("Sent.")));
    let (res, follow_up) = resolve_and_finish(
        &h.steward,
        &confirmed,
        Decision::Confirm { revision: 0 },
        Surface::Http,
    )
    .await;
    assert!(
        matches!(res, Resolution::Applied { .. }) && !follow_up.is_empty(),
        "{res:?}"
    );
    clock.advance(Duration::from_secs(5));
    let cancelled_at = clock.now_ms();
    h.steward
        .resolve(&cancelled, Decision::Cancel, owner(), Surface::Cli)
        .await
        .unwrap();
    // A cancel after the confirm ran is a conflict: it writes nothing, so it decides nothing.
    let late = h
        .steward
        .resolve(&confirmed, Decision::Cancel, owner(), Surface::Telegram)
        .await
        .unwrap();
    assert!(matches!(late, Resolution::Conflict { .. }), "{late:?}");
    let still_pending = park_email(&fake, &h, "h4", "d@example.com").await;
    clock.advance(TTL - Duration::from_secs(1));
    let expired_at = clock.now_ms();
    // The sweep expires the third card (the fourth, parked 10 s later, is not due yet).
    assert_eq!(h.steward.expire_overdue().await.unwrap(), 1);

    let actions = all(&h).await;
    let decided = h.steward.decisions(&actions).await.unwrap();
    assert_eq!(decided.len(), actions.len());
    let of = |id: &str| {
        let i = actions.iter().position(|a| a.id == id).unwrap();
        (actions[i].status, decided[i].clone())
    };
    let (status, d) = of(&confirmed);
    assert_eq!(status, ActionStatus::Executed);
    let d = d.unwrap();
    assert_eq!(
        (d.decision, d.by.as_str(), d.surface, d.at_ms),
        (DecisionKind::Confirm, "owner", Surface::Http, confirmed_at),
        "the confirm decided it, not the running or executed lines after it"
    );
    let (status, d) = of(&cancelled);
    assert_eq!(status, ActionStatus::Cancelled);
    let d = d.unwrap();
    assert_eq!(
        (d.decision, d.surface, d.at_ms),
        (DecisionKind::Cancel, Surface::Cli, cancelled_at)
    );
    let (status, d) = of(&expired);
    assert_eq!(status, ActionStatus::Expired);
    let d = d.unwrap();
    assert_eq!(
        (d.decision, d.by.as_str(), d.surface, d.at_ms),
        (DecisionKind::Expire, "system", Surface::System, expired_at)
    );
    assert_eq!(of(&still_pending), (ActionStatus::Pending, None));
    assert!(h.steward.decisions(&[]).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_pending_action_in_the_slice_has_no_decision_even_once_decided() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let clock = ManualClock::starting_now();
    let h = setup(&fake, &tool, &clock);
    let id = park_email(&fake, &h, "p1", "a@example.com").await;
    let listed = all(&h).await;
    h.steward
        .resolve(&id, Decision::Cancel, owner(), Surface::Http)
        .await
        .unwrap();
    // The caller shows the status it listed: a decision beside "pending" would contradict it.
    assert_eq!(h.steward.decisions(&listed).await.unwrap(), [None]);
    let now = all(&h).await;
    let d = h.steward.decisions(&now).await.unwrap();
    assert_eq!(
        d[0].as_ref().map(|d| d.decision),
        Some(DecisionKind::Cancel)
    );
}

#[tokio::test]
async fn the_trail_lists_every_line_in_order_with_detail_as_data() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let clock = ManualClock::starting_now();
    let h = setup(&fake, &tool, &clock);
    let id = park_email(&fake, &h, "t1", "a@example.com").await;
    let revised = serde_json::json!({"to": "<b>x</b>@example.com"});
    h.steward
        .resolve(
            &id,
            Decision::Revise {
                arguments: revised.clone(),
            },
            owner(),
            Surface::Web,
        )
        .await
        .unwrap();
    fake.push(Step::Reply(Reply::text("Sent.")));
    let (res, follow_up) = resolve_and_finish(
        &h.steward,
        &id,
        Decision::Confirm { revision: 1 },
        Surface::Http,
    )
    .await;
    assert!(
        matches!(res, Resolution::Applied { .. }) && !follow_up.is_empty(),
        "{res:?}"
    );

    let trail = h.steward.trail(&id).await.unwrap();
    let events: Vec<(&str, Surface)> = trail
        .iter()
        .map(|s| (s.event.as_str(), s.surface))
        .collect();
    assert_eq!(
        events,
        [
            ("created", Surface::Cli),
            ("revise", Surface::Web),
            ("confirm", Surface::Http),
            ("running", Surface::Http),
            ("executed", Surface::Http),
        ]
    );
    assert_eq!(trail[0].detail, None, "an empty detail is left out");
    assert_eq!(
        trail[1].detail.as_ref(),
        Some(&revised),
        "the revision's arguments, parsed, markup kept as data"
    );
    assert!(trail.iter().all(|s| s.by.as_str() == "owner"));
    assert!(matches!(
        h.steward.trail("no-such-action").await,
        Err(ApprovalError::NotFound)
    ));
}

#[tokio::test]
async fn the_pending_count_follows_every_decision() {
    let fake = FakeModel::start().await.unwrap();
    let tool = Recorder::new("send_email", Effect::External);
    let clock = ManualClock::starting_now();
    let h = setup(&fake, &tool, &clock);
    assert_eq!(h.steward.pending_count().await.unwrap(), 0);
    let a = park_email(&fake, &h, "c1", "a@example.com").await;
    park_email(&fake, &h, "c2", "b@example.com").await;
    assert_eq!(h.steward.pending_count().await.unwrap(), 2);
    h.steward
        .resolve(&a, Decision::Cancel, owner(), Surface::Http)
        .await
        .unwrap();
    assert_eq!(h.steward.pending_count().await.unwrap(), 1);
    clock.advance(TTL);
    h.steward.expire_overdue().await.unwrap();
    assert_eq!(h.steward.pending_count().await.unwrap(), 0);
}
