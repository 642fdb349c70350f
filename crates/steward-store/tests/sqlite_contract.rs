//! Runs the adapter-agnostic contract suite against SQLite, file-backed and in memory.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::TempDir;
use std::sync::Arc;
use steward_store::{SqliteStore, Store, contract};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_file_backed() {
    let dir = TempDir::new();
    let store = SqliteStore::open(&dir.path().join("steward.db")).unwrap();
    contract::run_all_shared(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_in_memory() {
    let store = SqliteStore::open_in_memory().unwrap();
    contract::run_all_shared(Arc::new(store)).await;
}

/// Cases use unique ids, so a second run against the same (now non-empty) database must pass
/// too; this is what a long-lived production database looks like.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_twice_on_one_reopened_file() {
    let dir = TempDir::new();
    let path = dir.path().join("nested/dirs/steward.db");
    contract::run_all(&SqliteStore::open(&path).unwrap()).await;
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).unwrap());
    contract::run_all_shared(store).await;
}

/// The suite also passes on a current-thread runtime (where blocking work still runs on the
/// blocking pool).
#[tokio::test(flavor = "current_thread")]
async fn contract_on_current_thread_runtime() {
    let store = SqliteStore::open_in_memory().unwrap();
    contract::run_all_shared(Arc::new(store)).await;
}

/// Edge records are rows: an update claimed, a chat bound and a message recorded before the
/// store closes are all still there when the same file is opened again (a restart).
#[tokio::test]
async fn edge_records_survive_reopening_the_file() {
    let dir = TempDir::new();
    let path = dir.path().join("steward.db");
    let store = SqliteStore::open(&path).unwrap();
    let probe = contract::edge_records_before_restart(&store).await;
    drop(store);
    contract::edge_records_after_restart(&SqliteStore::open(&path).unwrap(), &probe).await;
}
