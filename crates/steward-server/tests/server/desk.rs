//! Test support: a fake `ApprovalDesk` that records every call and answers `resolve` from
//! a script, plus builders for actions, cards and follow-up turns.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use steward_core::{ApprovalDesk, ApprovalError, Resolution, TurnStream};
use steward_protocol::{
    ActionCard, ActionDecided, ActionKind, ActionStatus, AuditStep, ConversationId, Decision,
    DecisionKind, Grant, PendingAction, Principal, PrincipalId, Surface, TurnEvent,
};
use tokio::sync::mpsc;

/// Arguments every fake action carries; the logs test checks they never reach a log line.
pub const SECRET_ARG: &str = "argument-secret-7f3a";

type Script = Box<dyn Fn(&str, &Decision) -> Result<Resolution, ApprovalError> + Send + Sync>;

#[derive(Debug, Clone, PartialEq)]
pub struct ResolveCall {
    pub id: String,
    pub decision: Decision,
    pub principal: Principal,
    pub surface: Surface,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GrantCall {
    pub conversation: ConversationId,
    pub tool: String,
    pub hours: u32,
    pub principal: Principal,
}

pub struct FakeDesk {
    actions: Mutex<Vec<PendingAction>>,
    script: Script,
    resolves: Mutex<Vec<ResolveCall>>,
    gets: Mutex<Vec<String>>,
    lists: Mutex<Vec<(Option<ActionStatus>, usize)>>,
    card_limits: Mutex<Vec<Option<usize>>>,
    grants: Mutex<Vec<Grant>>,
    grant_calls: Mutex<Vec<GrantCall>>,
    revokes: Mutex<Vec<String>>,
    /// Audit trails by action id (`with_trail`); `decisions` reads the decisive line from them.
    trails: Mutex<HashMap<String, Vec<AuditStep>>>,
    decision_calls: Mutex<Vec<Vec<String>>>,
}

impl FakeDesk {
    /// `resolve` answers from `script`; `get`/`list` serve `actions`.
    pub fn new(
        actions: Vec<PendingAction>,
        script: impl Fn(&str, &Decision) -> Result<Resolution, ApprovalError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            actions: Mutex::new(actions),
            script: Box::new(script),
            resolves: Mutex::new(Vec::new()),
            gets: Mutex::new(Vec::new()),
            lists: Mutex::new(Vec::new()),
            card_limits: Mutex::new(Vec::new()),
            grants: Mutex::new(Vec::new()),
            grant_calls: Mutex::new(Vec::new()),
            revokes: Mutex::new(Vec::new()),
            trails: Mutex::new(HashMap::new()),
            decision_calls: Mutex::new(Vec::new()),
        })
    }

    /// Give action `id` this audit trail.
    pub fn with_trail(&self, id: &str, trail: Vec<AuditStep>) {
        self.trails.lock().unwrap().insert(id.to_owned(), trail);
    }

    /// The ids of each `decisions` call.
    pub fn decision_calls(&self) -> Vec<Vec<String>> {
        self.decision_calls.lock().unwrap().clone()
    }

    /// No actions; every resolve is `NotFound`.
    pub fn empty() -> Arc<Self> {
        Self::new(Vec::new(), |_, _| Err(ApprovalError::NotFound))
    }

    pub fn resolves(&self) -> Vec<ResolveCall> {
        self.resolves.lock().unwrap().clone()
    }

    pub fn gets(&self) -> Vec<String> {
        self.gets.lock().unwrap().clone()
    }

    pub fn lists(&self) -> Vec<(Option<ActionStatus>, usize)> {
        self.lists.lock().unwrap().clone()
    }

    pub fn card_limits(&self) -> Vec<Option<usize>> {
        self.card_limits.lock().unwrap().clone()
    }

    pub fn grant_calls(&self) -> Vec<GrantCall> {
        self.grant_calls.lock().unwrap().clone()
    }

    pub fn revokes(&self) -> Vec<String> {
        self.revokes.lock().unwrap().clone()
    }

    /// Nothing at all reached the desk.
    pub fn untouched(&self) -> bool {
        self.resolves().is_empty()
            && self.gets().is_empty()
            && self.lists().is_empty()
            && self.grant_calls().is_empty()
            && self.revokes().is_empty()
            && self.decision_calls().is_empty()
    }
}

#[async_trait::async_trait]
impl ApprovalDesk for FakeDesk {
    async fn resolve(
        &self,
        id: &str,
        decision: Decision,
        principal: Principal,
        surface: Surface,
    ) -> Result<Resolution, ApprovalError> {
        let answer = (self.script)(id, &decision);
        self.resolves.lock().unwrap().push(ResolveCall {
            id: id.to_owned(),
            decision,
            principal,
            surface,
        });
        answer
    }

    async fn request_edit(
        &self,
        id: &str,
        _principal: Principal,
        _surface: Surface,
    ) -> Result<PendingAction, ApprovalError> {
        // No route asks for this yet; recorded as a resolve-like call so `untouched` sees it.
        self.gets.lock().unwrap().push(format!("edit:{id}"));
        Err(ApprovalError::NotFound)
    }

    async fn get(&self, id: &str) -> Result<Option<PendingAction>, ApprovalError> {
        self.gets.lock().unwrap().push(id.to_owned());
        let actions = self.actions.lock().unwrap();
        Ok(actions.iter().find(|a| a.id == id).cloned())
    }

    async fn list(
        &self,
        status: Option<ActionStatus>,
        limit: usize,
    ) -> Result<Vec<PendingAction>, ApprovalError> {
        self.lists.lock().unwrap().push((status, limit));
        let actions = self.actions.lock().unwrap();
        Ok(actions
            .iter()
            .filter(|a| status.is_none_or(|s| a.status == s))
            .take(limit)
            .cloned()
            .collect())
    }

    async fn decisions(
        &self,
        actions: &[PendingAction],
    ) -> Result<Vec<Option<ActionDecided>>, ApprovalError> {
        self.decision_calls
            .lock()
            .unwrap()
            .push(actions.iter().map(|a| a.id.clone()).collect());
        let trails = self.trails.lock().unwrap();
        Ok(actions
            .iter()
            .map(|a| {
                let steps = trails.get(&a.id)?;
                steps.iter().find_map(|s| {
                    Some(ActionDecided {
                        decision: DecisionKind::from_event(&s.event)?,
                        by: s.by.clone(),
                        surface: s.surface,
                        at_ms: s.at_ms,
                    })
                })
            })
            .collect())
    }

    async fn trail(&self, id: &str) -> Result<Vec<AuditStep>, ApprovalError> {
        self.gets.lock().unwrap().push(format!("trail:{id}"));
        if !self.actions.lock().unwrap().iter().any(|a| a.id == id) {
            return Err(ApprovalError::NotFound);
        }
        Ok(self
            .trails
            .lock()
            .unwrap()
            .get(id)
            .cloned()
            .unwrap_or_default())
    }

    async fn pending_count(&self) -> Result<u64, ApprovalError> {
        self.gets.lock().unwrap().push("count".to_owned());
        let actions = self.actions.lock().unwrap();
        Ok(actions
            .iter()
            .filter(|a| a.status == ActionStatus::Pending)
            .count() as u64)
    }

    fn card(&self, action: &PendingAction, max_chars: Option<usize>) -> ActionCard {
        self.card_limits.lock().unwrap().push(max_chars);
        card_for(action)
    }

    async fn grant(
        &self,
        conversation: ConversationId,
        tool: String,
        hours: u32,
        principal: Principal,
    ) -> Result<Grant, ApprovalError> {
        self.grant_calls.lock().unwrap().push(GrantCall {
            conversation: conversation.clone(),
            tool: tool.clone(),
            hours,
            principal: principal.clone(),
        });
        let mut grants = self.grants.lock().unwrap();
        let grant = Grant {
            id: format!("g-{}", grants.len() + 1),
            conversation,
            tool,
            principal: principal.id().clone(),
            created_at_ms: 1_000,
            expires_at_ms: 1_000 + i64::from(hours) * 3_600_000,
            revoked: false,
        };
        grants.insert(0, grant.clone());
        Ok(grant)
    }

    async fn grants(&self) -> Result<Vec<Grant>, ApprovalError> {
        Ok(self.grants.lock().unwrap().clone())
    }

    async fn revoke_grant(&self, id: &str) -> Result<bool, ApprovalError> {
        self.revokes.lock().unwrap().push(id.to_owned());
        let mut grants = self.grants.lock().unwrap();
        match grants.iter_mut().find(|g| g.id == id && !g.revoked) {
            Some(g) => {
                g.revoked = true;
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

/// One audit line by `by` on `surface` at `at_ms`.
pub fn audit_step(event: &str, by: &str, surface: Surface, at_ms: i64) -> AuditStep {
    AuditStep {
        event: event.into(),
        by: PrincipalId::parse(by).unwrap(),
        surface,
        at_ms,
        detail: None,
    }
}

/// A stored action in `status`, arguments carrying `SECRET_ARG`.
pub fn action(id: &str, status: ActionStatus) -> PendingAction {
    let arguments = json!({"to": "bob@example.com", "body": SECRET_ARG}).to_string();
    PendingAction {
        id: id.into(),
        kind: ActionKind::Tool,
        tool: "send_email".into(),
        arguments,
        payload_hash: "ab".repeat(32),
        preview: "Send an email to bob@example.com".into(),
        trace_id: "trace-1".into(),
        conversation: ConversationId::parse("c1").unwrap(),
        surface: Surface::Http,
        principal: crate::support::owner_id(),
        created_at_ms: 1_000,
        expires_at_ms: 1_801_000,
        status,
        revision: 0,
        awaiting_edit: false,
        outcome: None,
        updated_at_ms: 1_000,
    }
}

/// `action` with an outcome, as after a confirm or cancel.
pub fn finished(id: &str, status: ActionStatus, outcome: &str) -> PendingAction {
    PendingAction {
        outcome: Some(outcome.into()),
        ..action(id, status)
    }
}

/// The card the fake renders: derived from the action, so tests can recompute it.
pub fn card_for(action: &PendingAction) -> ActionCard {
    ActionCard {
        action_id: action.id.clone(),
        kind: action.kind,
        tool: action.tool.clone(),
        text: format!("{}: {}", action.tool, action.preview),
        expires_at_ms: action.expires_at_ms,
        confirmable: true,
        revision: action.revision,
    }
}

/// A card as a turn would raise it.
pub fn card(id: &str, text: &str) -> ActionCard {
    ActionCard {
        action_id: id.into(),
        kind: ActionKind::Tool,
        tool: "send_email".into(),
        text: text.into(),
        expires_at_ms: 99,
        confirmable: true,
        revision: 0,
    }
}

/// A turn stream fed with `events` from its own task, as steward-core would.
pub fn feed(events: Vec<TurnEvent>) -> TurnStream {
    let (tx, rx) = mpsc::channel(2);
    tokio::spawn(async move {
        for event in events {
            if tx.send(event).await.is_err() {
                return;
            }
        }
    });
    rx
}

pub fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}
