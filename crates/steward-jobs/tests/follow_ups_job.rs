//! Follow-ups on intentions, over a simulated week run every 15 minutes on the `ManualClock`:
//! an overdue intention is followed up at its due time, a day later and a day after that,
//! never a 4th time; an undated or a closed one never; none at all sends nothing. Two attempts
//! at once send each follow-up once and count it once. Quiet hours hold one until they end.

use chrono::NaiveTime;
use steward_jobs::jobs::FollowUpsJob;
use steward_jobs::voice::genre;
use steward_jobs::{Budget, Job, JobOutcome};

use crate::briefing_support::{BERLIN, DAY, HOUR, MONDAY, Rig, rig};

const STEP: i64 = 15 * 60_000;

fn job(r: &Rig) -> FollowUpsJob {
    FollowUpsJob::new(
        r.store.clone(),
        r.voice.clone(),
        r.clock.clone(),
        r.owner.clone(),
        r.zone.clone(),
    )
}

/// Runs the job every 15 minutes from now until `until`.
async fn run_every_step(r: &Rig, job: &FollowUpsJob, until: i64) {
    use steward_protocol::Clock;
    while r.clock.now_ms() < until {
        let now = r.clock.now_ms();
        job.run(&r.ctx("follow_ups", now)).await.unwrap();
        r.clock.set_ms(now + STEP);
    }
}

#[tokio::test]
async fn an_overdue_intention_is_followed_up_three_times_a_day_apart_then_never() {
    let r = rig(MONDAY);
    r.home().await;
    let owner = r.owner.as_str();
    // Due Tuesday 10:07 UTC (not on a step: the first run after it follows up).
    let due = MONDAY + DAY + 10 * HOUR + 7 * 60_000;
    let dated = r
        .store
        .add_intention(owner, "call the bank", Some(due), MONDAY)
        .await
        .unwrap();
    r.store
        .add_intention(owner, "learn the cello", None, MONDAY)
        .await
        .unwrap();
    let closed = r
        .store
        .add_intention(owner, "done already", Some(MONDAY + HOUR), MONDAY)
        .await
        .unwrap();
    r.store
        .set_intention_done(owner, closed.id, true)
        .await
        .unwrap();
    let follow_ups = job(&r);
    // Before it is due: nothing at all.
    assert_eq!(
        follow_ups.run(&r.ctx("follow_ups", MONDAY)).await.unwrap(),
        JobOutcome::Nothing("no follow-up due".into())
    );
    run_every_step(&r, &follow_ups, MONDAY + 7 * DAY).await;

    let said = r.speaker.said.lock().unwrap().clone();
    let times: Vec<i64> = said.iter().map(|(_, _, at)| *at).collect();
    let first = due - due % STEP + STEP;
    assert_eq!(
        times,
        [first, first + DAY, first + 2 * DAY],
        "at due, a day later, a day after that; never a 4th"
    );
    for (n, (target, message, _)) in said.iter().enumerate() {
        assert_eq!(message.genre, genre::FOLLOW_UP);
        assert_eq!(target.conversation.as_str(), crate::briefing_support::HOME);
        assert!(
            message.text.starts_with(&format!(
                "🔔 Following up ({} of 3): call the bank — due Tue 8 Dec 11:07.",
                n + 1
            )),
            "{}",
            message.text
        );
    }
    assert!(said[2].1.text.ends_with("This is the last follow-up."));
    assert!(said.iter().all(|(_, m, _)| !m.text.contains("cello")));
    let stored = r.store.list_intentions(owner, true).await.unwrap();
    let nudges = |id| stored.iter().find(|i| i.id == id).map(|i| i.nudges);
    assert_eq!(nudges(dated.id), Some(3));
    assert_eq!(
        stored.iter().map(|i| i.nudges).sum::<u32>(),
        3,
        "the undated one was never nudged"
    );
    // Each follow-up was recorded under its own key, once.
    let engagement = r.store.engagement_since(0).await.unwrap();
    assert_eq!(engagement[0].sent, 3);
}

#[tokio::test]
async fn an_undated_intention_is_never_followed_up() {
    let r = rig(MONDAY);
    r.home().await;
    r.store
        .add_intention(r.owner.as_str(), "learn the cello", None, MONDAY - 30 * DAY)
        .await
        .unwrap();
    let follow_ups = job(&r);
    run_every_step(&r, &follow_ups, MONDAY + 2 * DAY).await;
    assert_eq!(r.speaker.count(), 0);
    assert!(r.store.engagement_since(0).await.unwrap().is_empty());
    assert_eq!(
        r.store
            .list_intentions(r.owner.as_str(), true)
            .await
            .unwrap()[0]
            .nudges,
        0
    );
}

#[tokio::test]
async fn after_days_down_the_missed_follow_ups_do_not_come_in_a_burst() {
    // Due a week ago, never followed up: one now, the next a day later.
    let r = rig(MONDAY + 7 * DAY);
    r.home().await;
    r.store
        .add_intention(
            r.owner.as_str(),
            "call the bank",
            Some(MONDAY),
            MONDAY - DAY,
        )
        .await
        .unwrap();
    let follow_ups = job(&r);
    run_every_step(&r, &follow_ups, MONDAY + 8 * DAY + HOUR).await;
    let times: Vec<i64> = r
        .speaker
        .said
        .lock()
        .unwrap()
        .iter()
        .map(|(_, _, at)| *at)
        .collect();
    assert_eq!(times, [MONDAY + 7 * DAY, MONDAY + 8 * DAY]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_attempts_at_once_send_and_count_a_follow_up_once() {
    let r = rig(MONDAY + DAY);
    r.home().await;
    let intention = r
        .store
        .add_intention(
            r.owner.as_str(),
            "call the bank",
            Some(MONDAY),
            MONDAY - DAY,
        )
        .await
        .unwrap();
    let (a, b) = (job(&r), job(&r));
    let (ca, cb) = (
        r.ctx("follow_ups", MONDAY + DAY),
        r.ctx("follow_ups", MONDAY + DAY + 1000),
    );
    let (ra, rb) = tokio::join!(a.run(&ca), b.run(&cb));
    ra.unwrap();
    rb.unwrap();
    assert_eq!(r.speaker.count(), 1);
    let stored = r
        .store
        .list_intentions(r.owner.as_str(), true)
        .await
        .unwrap();
    assert_eq!(
        stored.iter().find(|i| i.id == intention.id).unwrap().nudges,
        1
    );
}

#[tokio::test]
async fn quiet_hours_hold_a_follow_up_until_they_end() {
    // Due Monday 23:00 Berlin (22:00 UTC), in the quiet hours 22:00-07:00.
    let due = MONDAY + 22 * HOUR;
    let r = rig(due);
    r.home().await;
    r.store
        .add_intention(r.owner.as_str(), "call the bank", Some(due), MONDAY)
        .await
        .unwrap();
    r.budget
        .send(Budget {
            quiet: Some((
                NaiveTime::from_hms_opt(22, 0, 0).unwrap(),
                NaiveTime::from_hms_opt(7, 0, 0).unwrap(),
            )),
            tz: BERLIN,
            ..Budget::default()
        })
        .unwrap();
    let follow_ups = job(&r);
    run_every_step(&r, &follow_ups, MONDAY + DAY + 7 * HOUR).await;
    let times: Vec<i64> = r
        .speaker
        .said
        .lock()
        .unwrap()
        .iter()
        .map(|(_, _, at)| *at)
        .collect();
    // 07:00 Berlin on Tuesday = 06:00 UTC.
    assert_eq!(times, [MONDAY + DAY + 6 * HOUR]);
}
