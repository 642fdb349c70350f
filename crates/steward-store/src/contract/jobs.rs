//! The `JobStore` contract, part one: occurrences — a claim's every answer, leases that
//! expire and are taken over, retries that wait, ends only by the lease holder, exactly one
//! winner of concurrent claims, pruning by status and age — heartbeats, and the limits.

use super::{ok, refused};
use crate::{Claim, OccurrenceEnd, OccurrenceStatus, Store};
use std::sync::Arc;

const T: i64 = 1_800_000_000_000;
const LEASE: i64 = 60_000;

/// A job name no other case (or earlier run) uses: `[a-z0-9-]`.
pub(crate) fn fresh_job(case: &str) -> String {
    let short: String = case
        .chars()
        .filter(char::is_ascii_lowercase)
        .take(12)
        .collect();
    format!("{short}-{}", uuid::Uuid::new_v4().simple())
}

pub async fn jobs_claims_leases_retries_and_ends(store: &dyn Store) {
    const CASE: &str = "jobs_claims_leases_retries_and_ends";
    let job = fresh_job(CASE);
    let occ = "2026-12-03T07:30Z";
    let claim =
        |owner: &'static str, now: i64| store.claim_occurrence(&job, occ, T, owner, now, LEASE);
    assert_eq!(
        ok(CASE, "first", claim("a", T).await),
        Claim::Run { attempt: 1 }
    );
    assert_eq!(
        ok(CASE, "same owner again", claim("a", T + 1).await),
        Claim::Held {
            until_ms: T + LEASE
        },
        "[{CASE}] a lease is not re-entrant"
    );
    assert_eq!(
        ok(CASE, "other owner", claim("b", T + 2).await),
        Claim::Held {
            until_ms: T + LEASE
        }
    );
    assert!(ok(
        CASE,
        "renew",
        store.renew_lease(&job, occ, "a", T + 2 * LEASE).await
    ));
    assert!(!ok(
        CASE,
        "renew by b",
        store.renew_lease(&job, occ, "b", T + 9 * LEASE).await
    ));
    assert_eq!(
        ok(
            CASE,
            "before the renewed end",
            claim("b", T + LEASE + 1).await
        ),
        Claim::Held {
            until_ms: T + 2 * LEASE
        }
    );
    // a dies: past its lease b takes over, as the second attempt.
    assert_eq!(
        ok(CASE, "take over", claim("b", T + 2 * LEASE).await),
        Claim::Run { attempt: 2 }
    );
    let stale = store
        .end_occurrence(
            &job,
            occ,
            "a",
            OccurrenceEnd::Done,
            "late",
            T + 2 * LEASE + 1,
        )
        .await;
    assert!(
        !ok(CASE, "end by the old holder", stale),
        "[{CASE}] a lost the lease"
    );
    let retry_at = T + 3 * LEASE;
    let ended = store
        .end_occurrence(
            &job,
            occ,
            "b",
            OccurrenceEnd::Retry { at_ms: retry_at },
            "timeout",
            T + 2 * LEASE + 5,
        )
        .await;
    assert!(ok(CASE, "end with a retry", ended));
    let rec = ok(CASE, "read", store.occurrence(&job, occ).await).expect("recorded");
    assert_eq!(rec.status, OccurrenceStatus::Retrying);
    assert_eq!(
        (rec.attempts, rec.next_try_ms, rec.outcome.as_str()),
        (2, Some(retry_at), "timeout")
    );
    assert_eq!(
        (rec.scheduled_ms, rec.started_ms, rec.finished_ms),
        (T, T, None)
    );
    assert_eq!(
        ok(CASE, "retry too early", claim("c", retry_at - 1).await),
        Claim::RetryAt(retry_at)
    );
    assert_eq!(
        ok(CASE, "retry", claim("c", retry_at).await),
        Claim::Run { attempt: 3 }
    );
    let done = store
        .end_occurrence(
            &job,
            occ,
            "c",
            OccurrenceEnd::Done,
            "sent 1 message",
            retry_at + 7,
        )
        .await;
    assert!(ok(CASE, "done", done));
    assert_eq!(
        ok(
            CASE,
            "after the end",
            claim("d", retry_at + 10 * LEASE).await
        ),
        Claim::Finished(OccurrenceStatus::Done),
        "[{CASE}] a finished occurrence never runs again, lease or not"
    );
    let rec = ok(CASE, "read done", store.occurrence(&job, occ).await).expect("recorded");
    assert_eq!(
        (rec.status, rec.owner.as_str(), rec.finished_ms),
        (OccurrenceStatus::Done, "c", Some(retry_at + 7))
    );
    assert!(!ok(
        CASE,
        "end twice",
        store
            .end_occurrence(&job, occ, "c", OccurrenceEnd::Failed, "x", retry_at + 8)
            .await
    ));

    // Failed and skipped are final too; history is latest due first.
    for (i, end) in [OccurrenceEnd::Failed, OccurrenceEnd::Skipped]
        .into_iter()
        .enumerate()
    {
        let key = format!("later-{i}");
        let at = T + 1000 * (i as i64 + 1);
        assert_eq!(
            ok(
                CASE,
                "claim later",
                store.claim_occurrence(&job, &key, at, "a", at, LEASE).await
            ),
            Claim::Run { attempt: 1 }
        );
        assert!(ok(
            CASE,
            "end later",
            store.end_occurrence(&job, &key, "a", end, "", at + 1).await
        ));
        let again = store
            .claim_occurrence(&job, &key, at, "a", at + 10 * LEASE, LEASE)
            .await;
        assert!(
            matches!(ok(CASE, "claim ended", again), Claim::Finished(_)),
            "[{CASE}]"
        );
    }
    let history = ok(CASE, "history", store.job_history(&job, 10).await);
    let keys: Vec<&str> = history.iter().map(|r| r.occurrence.as_str()).collect();
    assert_eq!(keys, ["later-1", "later-0", occ], "[{CASE}]");
    assert_eq!(history[0].status, OccurrenceStatus::Skipped);
    assert_eq!(history[1].status, OccurrenceStatus::Failed);
    assert_eq!(
        ok(CASE, "limited", store.job_history(&job, 1).await).len(),
        1
    );
    assert!(ok(CASE, "none", store.job_history(&job, 0).await).is_empty());
    assert!(ok(CASE, "unknown", store.occurrence(&job, "nope").await).is_none());
    // Jobs are separate namespaces of occurrence keys.
    let other = fresh_job(CASE);
    assert_eq!(
        ok(
            CASE,
            "other job",
            store.claim_occurrence(&other, occ, T, "a", T, LEASE).await
        ),
        Claim::Run { attempt: 1 }
    );
}

/// Long before every other case's times (theirs start at 2027), so a prune here deletes
/// only this case's rows, also when the suite runs twice on one database.
const OLD: i64 = 1_000_000_000_000;

/// How an occurrence ended and when (None: it is still running).
type Ending = Option<(OccurrenceEnd, i64)>;

/// An occurrence of `job` due at `scheduled_ms`, ended as `end` says.
async fn occurrence_ended(
    store: &dyn Store,
    case: &str,
    job: &str,
    key: &str,
    scheduled_ms: i64,
    end: Ending,
) {
    let claim = store
        .claim_occurrence(job, key, scheduled_ms, "pruner", scheduled_ms, LEASE)
        .await;
    assert_eq!(
        ok(case, key, claim),
        Claim::Run { attempt: 1 },
        "[{case}] {key}"
    );
    if let Some((end, at)) = end {
        let ended = store.end_occurrence(job, key, "pruner", end, "x", at).await;
        assert!(ok(case, key, ended), "[{case}] {key} ended");
    }
}

pub async fn jobs_prune_by_status_and_age(store: &dyn Store) {
    const CASE: &str = "jobs_prune_by_status_and_age";
    let (job, lone) = (fresh_job(CASE), fresh_job(CASE));
    let (skipped_before, finished_before) = (OLD + 50, OLD + 5);
    let rows: [(&str, i64, Ending); 8] = [
        ("skipped-old", OLD, Some((OccurrenceEnd::Skipped, OLD + 1))),
        ("done-old", OLD + 2, Some((OccurrenceEnd::Done, OLD + 3))),
        (
            "failed-old",
            OLD + 1,
            Some((OccurrenceEnd::Failed, OLD + 4)),
        ),
        // Older than the skipped cut-off, not the finished one.
        ("done-newer", OLD + 6, Some((OccurrenceEnd::Done, OLD + 7))),
        (
            "skipped-newer",
            OLD + 60,
            Some((OccurrenceEnd::Skipped, OLD + 61)),
        ),
        // Not over: never pruned, however old.
        ("running", OLD - 10, None),
        (
            "retrying",
            OLD - 9,
            Some((OccurrenceEnd::Retry { at_ms: OLD - 8 }, OLD - 9)),
        ),
        // The job's latest: kept although it is old and done.
        ("latest", OLD + 70, Some((OccurrenceEnd::Done, OLD + 3))),
    ];
    for (key, scheduled, end) in rows {
        occurrence_ended(store, CASE, &job, key, scheduled, end).await;
    }
    // A job whose only occurrence is old: its latest, kept.
    occurrence_ended(
        store,
        CASE,
        &lone,
        "only",
        OLD,
        Some((OccurrenceEnd::Skipped, OLD + 1)),
    )
    .await;
    let pruned = store
        .prune_occurrences(skipped_before, finished_before)
        .await;
    assert_eq!(
        ok(CASE, "prune", pruned),
        3,
        "[{CASE}] the three old ended rows"
    );
    let mut left: Vec<String> = ok(CASE, "history", store.job_history(&job, 100).await)
        .into_iter()
        .map(|r| r.occurrence)
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "done-newer",
            "latest",
            "retrying",
            "running",
            "skipped-newer"
        ],
        "[{CASE}]"
    );
    assert_eq!(
        ok(CASE, "lone", store.job_history(&lone, 10).await).len(),
        1,
        "[{CASE}] a job's latest occurrence stays"
    );
    let again = store
        .prune_occurrences(skipped_before, finished_before)
        .await;
    assert_eq!(
        ok(CASE, "prune again", again),
        0,
        "[{CASE}] nothing left to prune"
    );
}

pub async fn jobs_heartbeats_replace_per_job(store: &dyn Store) {
    const CASE: &str = "jobs_heartbeats_replace_per_job";
    let (one, two) = (fresh_job(CASE), fresh_job(CASE));
    ok(CASE, "beat", store.beat(&one, "proc-a", T).await);
    ok(CASE, "beat again", store.beat(&one, "proc-b", T + 5).await);
    ok(CASE, "beat two", store.beat(&two, "proc-a", T + 1).await);
    let beats = ok(CASE, "heartbeats", store.heartbeats().await);
    let of = |job: &str| beats.iter().find(|b| b.job == job).cloned();
    let b1 = of(&one).expect("one's beat");
    assert_eq!(
        (b1.owner.as_str(), b1.at_ms),
        ("proc-b", T + 5),
        "[{CASE}] the latest replaces"
    );
    assert_eq!(of(&two).map(|b| b.at_ms), Some(T + 1));
    assert_eq!(beats.iter().filter(|b| b.job == one).count(), 1);
}

pub async fn jobs_input_limits(store: &dyn Store) {
    const CASE: &str = "jobs_input_limits";
    let job = fresh_job(CASE);
    let secret = "sk-secret-value-0000";
    for bad in [
        "",
        "Upper",
        "with space",
        "slash/x",
        &"a".repeat(65),
        &format!("{secret}\n"),
    ] {
        refused(
            CASE,
            "job name",
            store.claim_occurrence(bad, "k", T, "o", T, LEASE).await,
            secret,
        );
        refused(CASE, "beat job", store.beat(bad, "o", T).await, secret);
    }
    for bad in [
        "",
        "a\nb",
        "a\u{0}b",
        &"k".repeat(129),
        &format!("{secret}\u{7}"),
    ] {
        refused(
            CASE,
            "occurrence",
            store.claim_occurrence(&job, bad, T, "o", T, LEASE).await,
            secret,
        );
        refused(
            CASE,
            "owner",
            store.claim_occurrence(&job, "k", T, bad, T, LEASE).await,
            secret,
        );
        refused(CASE, "beat owner", store.beat(&job, bad, T).await, secret);
    }
    refused(
        CASE,
        "zero lease",
        store.claim_occurrence(&job, "k", T, "o", T, 0).await,
        "",
    );
    refused(
        CASE,
        "negative lease",
        store.claim_occurrence(&job, "k", T, "o", T, -5).await,
        "",
    );
    // An outcome is shortened, not refused: the attempt's end is never lost to its summary.
    assert_eq!(
        ok(
            CASE,
            "claim",
            store.claim_occurrence(&job, "k", T, "o", T, LEASE).await
        ),
        Claim::Run { attempt: 1 }
    );
    let long = format!("{}\u{0}{}", "é".repeat(2000), "x");
    assert!(ok(
        CASE,
        "long outcome",
        store
            .end_occurrence(&job, "k", "o", OccurrenceEnd::Done, &long, T + 1)
            .await
    ));
    let rec = ok(CASE, "read", store.occurrence(&job, "k").await).expect("recorded");
    assert!(
        rec.outcome.len() <= crate::MAX_OUTCOME_LEN && rec.outcome.starts_with('é'),
        "[{CASE}]"
    );
    assert!(!rec.outcome.contains('\u{0}'), "[{CASE}]");
}

/// 24 claimers race for one occurrence: exactly one runs it.
pub async fn jobs_concurrent_claims_one_winner(store: Arc<dyn Store>) {
    const CASE: &str = "jobs_concurrent_claims_one_winner";
    let job = fresh_job(CASE);
    let tasks: Vec<_> = (0..24)
        .map(|i| {
            let (store, job) = (Arc::clone(&store), job.clone());
            tokio::spawn(async move {
                store
                    .claim_occurrence(&job, "the-one", T, &format!("runner-{i}"), T + i, LEASE)
                    .await
            })
        })
        .collect();
    let mut runs = 0;
    for task in tasks {
        match task.await {
            Ok(result) => {
                runs += usize::from(matches!(ok(CASE, "claim", result), Claim::Run { .. }))
            }
            Err(e) => panic!("[{CASE}] task failed: {e}"),
        }
    }
    assert_eq!(runs, 1, "[{CASE}] exactly one runner");
}
