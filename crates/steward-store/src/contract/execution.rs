//! Contract cases for the record of execution: the `running` step between confirmed and the
//! result, and free text (previews, outcomes) stored sanitised rather than refused, so that
//! recording what a tool did can never fail on what it printed.

use super::approvals::{T0, audit_events, audit_for, insert};
use super::transitions::{applied, conflict, from, sample, step};
use super::{fresh_conversation, ok};
use crate::{ActionPatch, MAX_TEXT_LEN, NUL_REPLACEMENT, Store};
use steward_protocol::{ActionStatus, PendingAction};

pub async fn running_sits_between_confirmed_and_the_result(store: &dyn Store) {
    const CASE: &str = "running_sits_between_confirmed_and_the_result";
    let action = sample(CASE);
    insert(store, CASE, &action).await;
    let (pending, confirmed, running) = (
        ActionStatus::Pending,
        ActionStatus::Confirmed,
        ActionStatus::Running,
    );
    let t = step(store, &action, from(pending), confirmed, "confirm", T0 + 1).await;
    applied(CASE, "confirm", ok(CASE, "confirm", t));
    let t = step(store, &action, from(confirmed), running, "running", T0 + 2).await;
    let row = applied(CASE, "running", ok(CASE, "running", t));
    assert_eq!(row.status, running, "[{CASE}]");
    let t = step(store, &action, from(confirmed), running, "running", T0 + 3).await;
    assert_eq!(
        conflict(CASE, "running twice", ok(CASE, "running twice", t)).status,
        running,
        "[{CASE}] only one caller starts the tool"
    );
    let listed = ok(
        CASE,
        "list running",
        store
            .list_actions(Some(running), Some(&action.conversation), 10)
            .await,
    );
    assert_eq!(
        listed.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        [action.id.as_str()],
        "[{CASE}] running actions can be found (crash recovery lists them)"
    );
    let t = step(
        store,
        &action,
        from(running),
        ActionStatus::Executed,
        "executed",
        T0 + 4,
    )
    .await;
    applied(CASE, "executed", ok(CASE, "executed", t));
    assert_eq!(
        audit_events(store, CASE, &action.id).await,
        ["created", "confirm", "running", "executed"],
        "[{CASE}]"
    );
}

pub async fn free_text_is_stored_sanitised(store: &dyn Store) {
    const CASE: &str = "free_text_is_stored_sanitised";
    let r = NUL_REPLACEMENT;
    let conversation = fresh_conversation(CASE);
    let action = PendingAction {
        preview: "will print \0".into(),
        ..super::approvals::sample_action(&conversation)
    };
    insert(store, CASE, &action).await;
    let stored = ok(CASE, "get", store.get_action(&action.id).await).unwrap_or_else(|| {
        panic!("[{CASE}] inserted action is missing");
    });
    assert_eq!(stored.preview, format!("will print {r}"), "[{CASE}]");
    assert_eq!(
        stored.arguments, action.arguments,
        "[{CASE}] payload untouched"
    );

    // A tool's output with NUL and over the limit still records the result.
    let output = format!("a\0b{}", "x".repeat(MAX_TEXT_LEN));
    let patch = ActionPatch {
        outcome: Some(output),
        ..ActionPatch::default()
    };
    let audit = audit_for(&action, "executed", T0 + 1);
    let t = store
        .transition_action(
            &action.id,
            from(ActionStatus::Pending),
            ActionStatus::Executed,
            &patch,
            &audit,
            T0 + 1,
        )
        .await;
    let row = applied(CASE, "record a hostile output", ok(CASE, "record", t));
    let outcome = row.outcome.unwrap_or_default();
    assert!(
        outcome.starts_with(&format!("a{r}bxxx")),
        "[{CASE}] sanitised, not refused"
    );
    assert!(outcome.len() <= MAX_TEXT_LEN, "[{CASE}] cut to the limit");
    assert!(outcome.contains("more bytes not stored"), "[{CASE}]");
    let again = ok(CASE, "get again", store.get_action(&action.id).await);
    assert_eq!(again.and_then(|a| a.outcome), Some(outcome), "[{CASE}]");
    assert_eq!(
        audit_events(store, CASE, &action.id).await,
        ["created", "executed"],
        "[{CASE}] the result's audit entry is written with it"
    );
}
