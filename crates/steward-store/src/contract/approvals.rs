//! Contract cases for the action half of `ApprovalStore`: insert/get round trips, duplicate ids,
//! listing filters and order, the overdue query and the input limits. The compare-and-set cases
//! are in `transitions.rs`; grants, scores and free audit entries in `grants.rs`.

use super::{fresh_conversation, ok, refused};
use crate::{ActionPatch, AuditEntry, CasGuard, Score, Store, Transition};
use steward_protocol::{ActionKind, ActionStatus, ConversationId, Grant, PendingAction};
use steward_protocol::{PrincipalId, Surface};

/// A realistic "now" (November 2023) for cases that do not care about the clock. The overdue
/// case uses 1970 times below it, so other cases' pending actions never look overdue to it.
pub(crate) const T0: i64 = 1_700_000_000_000;
/// The default approval lifetime, 30 minutes.
pub(crate) const TTL: i64 = 30 * 60 * 1000;

/// An action id (or trace id) no other case or earlier run uses.
pub(crate) fn fresh_id(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4().simple())
}

/// A pending tool call in `conversation`, created at `T0`, with a fresh id and trace.
pub(crate) fn sample_action(conversation: &ConversationId) -> PendingAction {
    let arguments = r#"{"to":"ann@example.com","subject":"hi"}"#.to_owned();
    PendingAction {
        id: fresh_id("act"),
        kind: ActionKind::Tool,
        tool: "send_email".into(),
        payload_hash: fake_hash(&arguments),
        arguments,
        preview: "Send an email to ann@example.com".into(),
        trace_id: fresh_id("trace"),
        conversation: conversation.clone(),
        surface: Surface::Cli,
        principal: PrincipalId::parse("owner").unwrap(),
        created_at_ms: T0,
        expires_at_ms: T0 + TTL,
        status: ActionStatus::Pending,
        revision: 0,
        awaiting_edit: false,
        outcome: None,
        updated_at_ms: T0,
    }
}

/// Stands in for the SHA-256 that core computes: distinct payloads give distinct values, which
/// is all the store relies on.
pub(crate) fn fake_hash(arguments: &str) -> String {
    let n = arguments.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{n:016x}{:016x}", arguments.len())
}

pub(crate) fn audit_for(action: &PendingAction, event: &str, at_ms: i64) -> AuditEntry {
    AuditEntry {
        action_id: action.id.clone(),
        at_ms,
        principal: action.principal.clone(),
        surface: action.surface,
        event: event.into(),
        detail: String::new(),
        trace_id: action.trace_id.clone(),
    }
}

/// Inserts `action` with its "created" entry.
pub(crate) async fn insert(store: &dyn Store, case: &str, action: &PendingAction) {
    let audit = audit_for(action, "created", action.created_at_ms);
    ok(
        case,
        "insert_action",
        store.insert_action(action, &audit).await,
    );
}

pub(crate) async fn audit_events(store: &dyn Store, case: &str, id: &str) -> Vec<String> {
    let entries = ok(case, "list_audit", store.list_audit(id).await);
    entries.into_iter().map(|e| e.event).collect()
}

fn ids(actions: &[PendingAction]) -> Vec<&str> {
    actions.iter().map(|a| a.id.as_str()).collect()
}

pub async fn action_round_trip_every_field(store: &dyn Store) {
    const CASE: &str = "action_round_trip_every_field";
    let conversation = fresh_conversation(CASE);
    let mut plan = sample_action(&conversation);
    plan.kind = ActionKind::Plan;
    plan.tool = "plan".into();
    plan.arguments = r#"{"steps":[{"tool":"send_email","arguments":{"to":"é@x.ch"}}]}"#.into();
    plan.payload_hash = fake_hash(&plan.arguments);
    plan.preview = "1. Envoyer à «Zoë» 🦀\r\n2. 日本語 \u{200b}\u{202e}txt.exe \t\u{1b}[31m".into();
    plan.surface = Surface::Telegram;
    plan.principal = PrincipalId::parse("tg:4242").unwrap();
    plan.created_at_ms = T0 + 7;
    plan.expires_at_ms = T0 + 7 + 2 * TTL;
    plan.updated_at_ms = T0 + 9;
    plan.revision = 3;
    plan.awaiting_edit = true;
    plan.outcome = Some("partial: step 1 ✓".into());
    let created = AuditEntry {
        detail: r#"{"steps":1,"note":"ü"}"#.into(),
        surface: Surface::Web,
        ..audit_for(&plan, "created", T0 + 7)
    };
    ok(
        CASE,
        "insert plan",
        store.insert_action(&plan, &created).await,
    );
    let back = ok(CASE, "get plan", store.get_action(&plan.id).await);
    assert_eq!(back.as_ref(), Some(&plan), "[{CASE}] plan round trip");
    let trail = ok(CASE, "list_audit", store.list_audit(&plan.id).await);
    assert_eq!(trail, [created], "[{CASE}] the created entry, exactly");

    // The status is stored as given, and an absent outcome stays absent.
    let mut tool = sample_action(&conversation);
    tool.status = ActionStatus::Confirmed;
    tool.surface = Surface::OpenAiApi;
    insert(store, CASE, &tool).await;
    let back = ok(CASE, "get tool", store.get_action(&tool.id).await);
    assert_eq!(back.as_ref(), Some(&tool), "[{CASE}] tool round trip");

    let unknown = fresh_id("act");
    let missing = ok(CASE, "get unknown", store.get_action(&unknown).await);
    assert_eq!(missing, None, "[{CASE}] unknown id");
}

pub async fn duplicate_action_id_is_refused(store: &dyn Store) {
    const CASE: &str = "duplicate_action_id_is_refused";
    let original = sample_action(&fresh_conversation(CASE));
    insert(store, CASE, &original).await;
    let mut again = original.clone();
    again.preview = "something else".into();
    again.status = ActionStatus::Confirmed;
    let audit = audit_for(&again, "created", T0 + 1);
    refused(
        CASE,
        "second insert",
        store.insert_action(&again, &audit).await,
        "",
    );
    let back = ok(CASE, "get", store.get_action(&original.id).await);
    assert_eq!(back, Some(original.clone()), "[{CASE}] row unchanged");
    assert_eq!(
        audit_events(store, CASE, &original.id).await,
        ["created"],
        "[{CASE}] the refused insert wrote no audit entry"
    );
}

pub async fn list_actions_filters_and_order(store: &dyn Store) {
    const CASE: &str = "list_actions_filters_and_order";
    let (c1, c2) = (fresh_conversation(CASE), fresh_conversation(CASE));
    let at = |created: i64, id: &str, status: ActionStatus, c: &ConversationId| {
        let mut a = sample_action(c);
        a.created_at_ms = T0 + created;
        a.updated_at_ms = T0 + created;
        a.id = format!("{id}-{}", uuid::Uuid::new_v4().simple());
        a.status = status;
        a
    };
    let old = at(0, "a", ActionStatus::Pending, &c1);
    let newest = at(20, "b", ActionStatus::Pending, &c1);
    // Same millisecond: the id breaks the tie, ascending ("m" < "n").
    let tie_m = at(10, "m", ActionStatus::Confirmed, &c1);
    let tie_n = at(10, "n", ActionStatus::Pending, &c1);
    let elsewhere = at(30, "c", ActionStatus::Pending, &c2);
    for a in [&tie_n, &old, &elsewhere, &newest, &tie_m] {
        insert(store, CASE, a).await;
    }

    let all = ok(
        CASE,
        "list c1",
        store.list_actions(None, Some(&c1), usize::MAX).await,
    );
    assert_eq!(
        ids(&all),
        ids(&[newest.clone(), tie_m.clone(), tie_n.clone(), old.clone()]),
        "[{CASE}] newest first, ties by id"
    );
    assert_eq!(all[1], tie_m, "[{CASE}] listed rows are whole rows");
    let pending = ok(
        CASE,
        "pending c1",
        store
            .list_actions(Some(ActionStatus::Pending), Some(&c1), 10)
            .await,
    );
    assert_eq!(
        ids(&pending),
        ids(&[newest.clone(), tie_n.clone(), old.clone()]),
        "[{CASE}] status filter"
    );
    let two = ok(
        CASE,
        "limit 2",
        store.list_actions(None, Some(&c1), 2).await,
    );
    assert_eq!(ids(&two), ids(&[newest, tie_m.clone()]), "[{CASE}] limit");
    assert!(
        ok(
            CASE,
            "limit 0",
            store.list_actions(None, Some(&c1), 0).await
        )
        .is_empty(),
        "[{CASE}] limit 0"
    );
    let other = ok(
        CASE,
        "list c2",
        store.list_actions(None, Some(&c2), 10).await,
    );
    assert_eq!(
        ids(&other),
        ids(&[elsewhere]),
        "[{CASE}] conversation filter"
    );
    let none = ok(
        CASE,
        "executed c1",
        store
            .list_actions(Some(ActionStatus::Executed), Some(&c1), 10)
            .await,
    );
    assert!(none.is_empty(), "[{CASE}] no executed actions in c1");

    // Status alone (other cases' rows show up too, so check membership and the filter).
    let confirmed = ok(
        CASE,
        "all confirmed",
        store
            .list_actions(Some(ActionStatus::Confirmed), None, usize::MAX)
            .await,
    );
    assert!(
        confirmed
            .iter()
            .all(|a| a.status == ActionStatus::Confirmed),
        "[{CASE}] status filter without conversation"
    );
    assert!(confirmed.contains(&tie_m), "[{CASE}] confirmed row listed");
    assert!(
        !confirmed.iter().any(|a| a.id == old.id),
        "[{CASE}] pending row not listed as confirmed"
    );
    let everything = ok(
        CASE,
        "no filters",
        store.list_actions(None, None, usize::MAX).await,
    );
    assert!(
        everything.len() >= 5 && everything.contains(&old) && everything.contains(&tie_m),
        "[{CASE}] unfiltered list has every status and conversation"
    );
    let sorted = everything
        .windows(2)
        .all(|w| (-w[0].created_at_ms, &w[0].id) <= (-w[1].created_at_ms, &w[1].id));
    assert!(sorted, "[{CASE}] unfiltered list is newest first");
}

pub async fn overdue_actions_longest_overdue_first(store: &dyn Store) {
    const CASE: &str = "overdue_actions_longest_overdue_first";
    let conversation = fresh_conversation(CASE);
    let expiring = |expires: i64, status: ActionStatus| {
        let mut a = sample_action(&conversation);
        a.created_at_ms = 500;
        a.updated_at_ms = 500;
        a.expires_at_ms = expires;
        a.status = status;
        a
    };
    let first = expiring(999, ActionStatus::Pending);
    let second = expiring(1001, ActionStatus::Pending);
    let later = expiring(1005, ActionStatus::Pending);
    let decided = expiring(998, ActionStatus::Confirmed);
    for a in [&later, &decided, &second, &first] {
        insert(store, CASE, a).await;
    }
    let ours = |found: Vec<PendingAction>| -> Vec<String> {
        let mine = [&first.id, &second.id, &later.id, &decided.id];
        found
            .into_iter()
            .filter(|a| mine.contains(&&a.id))
            .map(|a| a.id)
            .collect()
    };
    let at_1002 = ok(
        CASE,
        "overdue 1002",
        store.overdue_actions(1002, usize::MAX).await,
    );
    assert!(
        at_1002
            .iter()
            .all(|a| a.status == ActionStatus::Pending && a.expires_at_ms <= 1002),
        "[{CASE}] only pending, only overdue"
    );
    assert_eq!(
        ours(at_1002),
        [first.id.clone(), second.id.clone()],
        "[{CASE}] overdue, longest overdue first, not the confirmed one"
    );
    let boundary = ok(
        CASE,
        "overdue 1001",
        store.overdue_actions(1001, usize::MAX).await,
    );
    assert_eq!(
        ours(boundary),
        [first.id.clone(), second.id.clone()],
        "[{CASE}] expires_at == now is overdue"
    );
    let one = ok(CASE, "limit 1", store.overdue_actions(1002, 1).await);
    assert_eq!(ids(&one), [first.id.as_str()], "[{CASE}] limit 1");
    let none = ok(
        CASE,
        "before any",
        store.overdue_actions(998, usize::MAX).await,
    );
    assert!(ours(none).is_empty(), "[{CASE}] nothing overdue yet");

    // What the sweep does; also leaves nothing overdue behind for a second run on this store.
    for a in [&first, &second, &later] {
        let guard = CasGuard {
            from: ActionStatus::Pending,
            expected_hash: None,
            unexpired_at_ms: None,
        };
        let expire = audit_for(a, "expire", 2000);
        let result = store
            .transition_action(
                &a.id,
                guard,
                ActionStatus::Expired,
                &ActionPatch::default(),
                &expire,
                2000,
            )
            .await;
        let result = ok(CASE, "expire", result);
        assert!(
            matches!(result, Transition::Applied(_)),
            "[{CASE}] expire applied"
        );
    }
    let after = ok(
        CASE,
        "after sweep",
        store.overdue_actions(2000, usize::MAX).await,
    );
    assert!(
        ours(after).is_empty(),
        "[{CASE}] expired actions are not overdue"
    );
}

pub async fn approval_input_limits(store: &dyn Store) {
    const CASE: &str = "approval_input_limits";
    let conversation = fresh_conversation(CASE);
    let secret = "sk-live-secret-token";
    let bad = |edit: &dyn Fn(&mut PendingAction)| {
        let mut a = sample_action(&conversation);
        edit(&mut a);
        a
    };
    let attempts: Vec<(&str, PendingAction)> = vec![
        ("id of 129 bytes", bad(&|a| a.id = "i".repeat(129))),
        ("empty id", bad(&|a| a.id.clear())),
        ("tool of 65 bytes", bad(&|a| a.tool = "t".repeat(65))),
        ("empty tool", bad(&|a| a.tool.clear())),
        (
            "NUL in arguments",
            bad(&|a| a.arguments = format!("{{\"k\":\"{secret}\0\"}}")),
        ),
        ("NUL in tool", bad(&|a| a.tool = "send_\0email".into())),
        ("empty trace id", bad(&|a| a.trace_id.clear())),
        ("empty payload hash", bad(&|a| a.payload_hash.clear())),
    ];
    for (step, action) in &attempts {
        let audit = audit_for(action, "created", T0);
        refused(
            CASE,
            step,
            store.insert_action(action, &audit).await,
            secret,
        );
    }
    let longest = bad(&|a| {
        a.id = format!("{}{}", a.id, "i".repeat(128 - a.id.len()));
        a.tool = "t".repeat(64);
    });
    insert(store, CASE, &longest).await;
    assert!(
        ok(CASE, "get longest", store.get_action(&longest.id).await).is_some(),
        "[{CASE}] 128-byte id and 64-byte tool are accepted"
    );

    let action = sample_action(&conversation);
    let mut elsewhere = audit_for(&action, "created", T0);
    elsewhere.action_id = fresh_id("act");
    refused(
        CASE,
        "audit for another action",
        store.insert_action(&action, &elsewhere).await,
        "",
    );
    assert_eq!(
        ok(CASE, "get", store.get_action(&action.id).await),
        None,
        "[{CASE}] refused insert stored nothing"
    );
    let mut not_json = audit_for(&action, "refused", T0);
    not_json.detail = format!("{secret} is not json");
    refused(
        CASE,
        "detail not JSON",
        store.append_audit(&not_json).await,
        secret,
    );
    let mut long_event = audit_for(&action, "created", T0);
    long_event.event = "e".repeat(65);
    refused(
        CASE,
        "event of 65 bytes",
        store.append_audit(&long_event).await,
        "",
    );
    let guard = CasGuard {
        from: ActionStatus::Pending,
        expected_hash: None,
        unexpired_at_ms: None,
    };
    let half = ActionPatch {
        arguments: Some("{}".into()),
        ..ActionPatch::default()
    };
    let revise = audit_for(&longest, "revise", T0);
    let result = store
        .transition_action(
            &longest.id,
            guard,
            ActionStatus::Pending,
            &half,
            &revise,
            T0,
        )
        .await;
    refused(CASE, "arguments without a new hash", result, "");
    let score = Score {
        trace_id: action.trace_id.clone(),
        name: "user_approval".into(),
        value: f64::NAN,
        action_id: None,
        genre: None,
        at_ms: T0,
    };
    refused(CASE, "NaN score", store.record_score(&score).await, "");
    // A score's genre follows the sent-message genre rule: a word of a-z and _, never text.
    for genre in [
        "",
        "Chat",
        "chat now",
        "ch\0at",
        &"a".repeat(crate::MAX_EDGE_GENRE_LEN + 1),
    ] {
        let score = Score {
            value: 1.0,
            genre: Some(genre.to_owned()),
            ..score.clone()
        };
        refused(CASE, "score genre", store.record_score(&score).await, "");
    }
    let grant = Grant {
        id: fresh_id("grant"),
        conversation: conversation.clone(),
        tool: String::new(),
        principal: PrincipalId::parse("owner").unwrap(),
        created_at_ms: T0,
        expires_at_ms: T0 + TTL,
        revoked: false,
    };
    refused(
        CASE,
        "grant without tool",
        store.insert_grant(&grant).await,
        "",
    );
    refused(CASE, "get empty id", store.get_action("").await, "");
    refused(CASE, "get id with NUL", store.get_action("a\0").await, "");
}
