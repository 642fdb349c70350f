//! The scheduler's claims across connections: two `SqliteStore`s on one file (as two
//! processes have) racing for the same occurrences — each occurrence is run by exactly one
//! claimer, because a claim reads and writes inside one IMMEDIATE transaction.

use crate::common;

use common::TempDir;
use std::sync::Arc;
use steward_store::{Claim, JobStore, SqliteStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stores_on_one_file_run_each_occurrence_once() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let a = Arc::new(SqliteStore::open(&path).unwrap());
    let b = Arc::new(SqliteStore::open(&path).unwrap());
    let mut tasks = Vec::new();
    for occurrence in 0..20 {
        for (name, store) in [("a", &a), ("b", &b)] {
            for runner in 0..3 {
                let store = Arc::clone(store);
                tasks.push(tokio::spawn(async move {
                    let owner = format!("{name}-{runner}");
                    let key = format!("o{occurrence}");
                    let claim = store
                        .claim_occurrence("briefing", &key, 1_000, &owner, 2_000, 60_000)
                        .await
                        .unwrap();
                    (key, claim)
                }));
            }
        }
    }
    let mut runs = std::collections::HashMap::<String, usize>::new();
    for task in tasks {
        let (key, claim) = task.await.unwrap();
        if matches!(claim, Claim::Run { attempt: 1 }) {
            *runs.entry(key).or_default() += 1;
        }
    }
    assert_eq!(runs.len(), 20, "every occurrence ran: {runs:?}");
    assert!(
        runs.values().all(|&n| n == 1),
        "each exactly once: {runs:?}"
    );
}
