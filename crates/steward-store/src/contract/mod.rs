//! The contract every store adapter must pass, written against the ports only (no SQL, no
//! adapter types). Compiled only with the `contract` feature: it is test code that panics.
//!
//! Adapters run `run_all_shared(Arc::new(store))` from an integration test, once per
//! configuration (file, memory, a real server...), and the restart case once
//! (`edge_records_before_restart`, reopen the same database, `edge_records_after_restart`).
//! Every case uses fresh, uniquely named conversations, keys, action, grant and trace ids, so
//! cases can share one store and a suite can run twice on the same database (the overdue case
//! also expires what it created). Each panic message starts with `[case_name]`.

mod approvals;
mod conversations;
mod edge;
mod edge_messages;
mod execution;
mod grants;
mod history;
mod jobs;
mod kv;
pub mod memory;
mod parts;
mod proactive;
mod races;
mod read_side;
mod sessions;
mod tasks;
mod transitions;
mod turn_requests;
mod usage;
mod vault;

pub use approvals::{
    action_round_trip_every_field, approval_input_limits, duplicate_action_id_is_refused,
    list_actions_filters_and_order, overdue_actions_longest_overdue_first,
};
pub use conversations::*;
pub use edge::{
    EdgeRestartProbe, edge_chat_bindings_read_both_ways, edge_claims_land_once_per_surface,
    edge_concurrent_claims_one_winner, edge_forgets_updates_by_age,
    edge_most_active_chat_follows_the_last_message, edge_records_after_restart,
    edge_records_before_restart,
};
pub use edge_messages::*;
pub use execution::*;
pub use grants::*;
pub use history::*;
pub use jobs::*;
pub use kv::*;
pub use memory::{run_memory, run_memory_shared};
pub use parts::{attachments_round_trip_with_their_message, run_blobs};
pub use proactive::*;
pub use races::*;
pub use read_side::*;
pub use sessions::*;
pub use tasks::*;
pub use transitions::{
    expected_hash_mismatch_conflicts, expired_action_cannot_be_confirmed,
    revision_replaces_payload_and_bumps, transition_applies_only_from_expected_status,
};
pub use turn_requests::*;
pub use usage::*;
pub use vault::*;

use crate::{Store, StoreError};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use steward_protocol::ConversationId;

/// Every case that needs only a borrowed store, one after the other.
pub async fn run_all(store: &dyn Store) {
    liveness(store).await;
    // Conversations.
    round_trip_all_roles(store).await;
    large_message_round_trip(store).await;
    ordering_across_many_appends(store).await;
    recent_limit_returns_last_n_oldest_first(store).await;
    unknown_conversation_is_empty(store).await;
    empty_append_is_a_no_op(store).await;
    nul_in_any_message_field_is_stored_scrubbed(store).await;
    conversations_are_isolated(store).await;
    list_conversations_most_recent_first(store).await;
    concurrent_batches_do_not_interleave(store).await;
    history_pages_walk_backwards(store).await;
    titles_are_set_cleared_and_listed(store).await;
    deleting_a_conversation_takes_its_messages_only(store).await;
    attachments_round_trip_with_their_message(store).await;
    // Key-value.
    kv_get_put_overwrite_delete(store).await;
    kv_put_if_absent_inserts_once(store).await;
    kv_prefix_is_literal_and_bytewise(store).await;
    kv_prefix_listing_respects_limit(store).await;
    kv_empty_prefix_is_refused(store).await;
    kv_size_limits(store).await;
    // Approvals.
    action_round_trip_every_field(store).await;
    duplicate_action_id_is_refused(store).await;
    list_actions_filters_and_order(store).await;
    overdue_actions_longest_overdue_first(store).await;
    approval_input_limits(store).await;
    transition_applies_only_from_expected_status(store).await;
    expected_hash_mismatch_conflicts(store).await;
    expired_action_cannot_be_confirmed(store).await;
    revision_replaces_payload_and_bumps(store).await;
    running_sits_between_confirmed_and_the_result(store).await;
    free_text_is_stored_sanitised(store).await;
    audit_written_iff_applied(store).await;
    scores_round_trip(store).await;
    grants_scope_expiry_and_revocation(store).await;
    grants_listing(store).await;
    first_audit_of_takes_each_actions_first_matching_entry(store).await;
    count_actions_counts_each_status(store).await;
    // Turn requests.
    turn_request_round_trip_and_replace(store).await;
    turn_requests_pruned_by_age(store).await;
    turn_request_input_limits(store).await;
    // Web sessions.
    session_round_trip_find_touch_list(store).await;
    session_revocation_takes_what_it_names(store).await;
    sessions_pruned_by_end_and_idleness(store).await;
    session_input_limits(store).await;
    // The usage ledger.
    usage_sums_per_bucket_and_model(store).await;
    usage_clamps_absurd_numbers(store).await;
    usage_input_limits(store).await;
    // The edge records of messaging surfaces.
    edge_claims_land_once_per_surface(store).await;
    edge_forgets_updates_by_age(store).await;
    edge_chat_bindings_read_both_ways(store).await;
    edge_most_active_chat_follows_the_last_message(store).await;
    edge_sent_messages_round_trip(store).await;
    edge_card_messages_order_limit_and_surface(store).await;
    edge_hostile_values_are_kept_verbatim(store).await;
    edge_input_limits(store).await;
    // The scheduler's records.
    jobs_claims_leases_retries_and_ends(store).await;
    jobs_heartbeats_replace_per_job(store).await;
    jobs_prune_by_status_and_age(store).await;
    jobs_input_limits(store).await;
    proactive_messages_once_per_occurrence_with_engagement(store).await;
    proactive_input_limits(store).await;
    reminders_round_trip_fall_due_and_close_once(store).await;
    reminder_input_limits(store).await;
    tasks_round_trip_list_and_cancel_once(store).await;
    task_input_limits(store).await;
    // The vault's sealed rows.
    vault_rows_round_trip_replace_list_and_delete(store).await;
    vault_input_limits(store).await;
    // Memory.
    run_memory(store).await;
}

/// `run_all` plus the cases that need an owned store (spawned tokio tasks). Needs a
/// multi-thread runtime for real parallelism, but passes on any.
pub async fn run_all_shared(store: Arc<dyn Store>) {
    run_all(&*store).await;
    concurrent_appends_from_tasks(Arc::clone(&store)).await;
    concurrent_confirms_one_winner(Arc::clone(&store)).await;
    edge_concurrent_claims_one_winner(Arc::clone(&store)).await;
    jobs_concurrent_claims_one_winner(Arc::clone(&store)).await;
    run_memory_shared(store).await;
}

pub async fn liveness(store: &dyn Store) {
    ok("liveness", "ping", store.ping().await);
    let description = store.describe();
    assert!(
        !description.trim().is_empty(),
        "[liveness] describe() is empty"
    );
}

/// Unwraps a store result, naming the case and step on failure.
pub(crate) fn ok<T>(case: &str, step: &str, result: Result<T, StoreError>) -> T {
    match result {
        Ok(value) => value,
        Err(e) => panic!("[{case}] {step} failed: {e}"),
    }
}

/// Asserts the result is `InvalidInput` and that its message does not echo `secret`.
pub(crate) fn refused<T: std::fmt::Debug>(
    case: &str,
    step: &str,
    result: Result<T, StoreError>,
    secret: &str,
) {
    match result {
        Err(StoreError::InvalidInput(msg)) => {
            assert!(
                !msg.is_empty(),
                "[{case}] {step}: InvalidInput has no message"
            );
            assert!(
                secret.is_empty() || !msg.contains(secret),
                "[{case}] {step}: the error message echoes the input: {msg}"
            );
        }
        other => panic!("[{case}] {step}: expected InvalidInput, got {other:?}"),
    }
}

/// A conversation id no other case (or earlier run) uses.
pub(crate) fn fresh_conversation(case: &str) -> ConversationId {
    let raw = format!("contract:{case}:{}", uuid::Uuid::new_v4().simple());
    match ConversationId::parse(&raw) {
        Ok(id) => id,
        Err(e) => panic!("[{case}] test conversation id {raw:?} is invalid: {e}"),
    }
}

/// A key namespace no other case (or earlier run) uses.
pub(crate) fn fresh_namespace(case: &str) -> String {
    format!("contract/{case}/{}/", uuid::Uuid::new_v4().simple())
}

/// Polls all futures concurrently on the current task (the ports hand out borrowing futures,
/// which `tokio::spawn` cannot take) and returns their outputs in order.
pub(crate) async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
