//! The `TaskStore` port: the recurring tasks the owner scheduled — a title, a stored prompt,
//! a schedule (in `steward_jobs::schedule::Schedule`'s words, checked by the caller: the
//! store does not know the grammar) and the target captured when the task was set. When a
//! task fires is the scheduler's business; each run is an occurrence of the `tasks` job in
//! `JobStore`.
//!
//! Owns the storage semantics (documented on each method, enforced by `contract`). Does not
//! own: the schedule grammar, running a task, how many tasks one person may keep (the tool).
//!
//! Limits (every adapter refuses the rest with `InvalidInput`; `validate/tasks.rs`): an id and
//! a trace id by the id rule; a title 1..=`MAX_TASK_TITLE_LEN` bytes, a prompt
//! 1..=`MAX_TASK_PROMPT_LEN`, a schedule 1..=`MAX_TASK_SCHEDULE_LEN`, none blank.

use crate::StoreError;
use std::sync::Arc;
use steward_protocol::{ConversationId, PrincipalId, Surface};

/// Longest task title, in bytes.
pub const MAX_TASK_TITLE_LEN: usize = 200;
/// Longest task prompt, in bytes.
pub const MAX_TASK_PROMPT_LEN: usize = 4096;
/// Longest schedule text, in bytes (the schedule grammar's own limit).
pub const MAX_TASK_SCHEDULE_LEN: usize = 256;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Active,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Active => "active",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(raw: &str) -> Option<TaskStatus> {
        Some(match raw {
            "active" => TaskStatus::Active,
            "cancelled" => TaskStatus::Cancelled,
            _ => return None,
        })
    }
}

/// A recurring task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// 1..=128 bytes (the id rule).
    pub id: String,
    pub principal: PrincipalId,
    pub title: String,
    /// What the agent is asked each time the task runs.
    pub prompt: String,
    /// When it runs, in the schedule grammar's canonical words (`daily 07:30`).
    pub schedule: String,
    /// Where its results go: the conversation it was set in.
    pub surface: Surface,
    pub conversation: ConversationId,
    /// The turn that set it.
    pub trace_id: String,
    pub status: TaskStatus,
    pub created_ms: i64,
    pub cancelled_ms: Option<i64>,
}

#[async_trait::async_trait]
pub trait TaskStore: Send + Sync {
    /// Store a new task (`Active`); a duplicate id is `Constraint`.
    async fn add_task(&self, task: &Task) -> Result<(), StoreError>;
    async fn task(&self, id: &str) -> Result<Option<Task>, StoreError>;
    /// A principal's tasks: active ones oldest first, then (with `include_cancelled`)
    /// cancelled ones, latest cancelled first; at most `limit`.
    async fn tasks_of(
        &self,
        principal: &PrincipalId,
        include_cancelled: bool,
        limit: usize,
    ) -> Result<Vec<Task>, StoreError>;
    /// Every active task, oldest first, at most `limit`.
    async fn active_tasks(&self, limit: usize) -> Result<Vec<Task>, StoreError>;
    /// Cancel an active task at `at_ms`; false when it was not active (cancelled already, or
    /// unknown). Atomic: of concurrent cancels exactly one is true.
    async fn cancel_task(&self, id: &str, at_ms: i64) -> Result<bool, StoreError>;
}

#[async_trait::async_trait]
impl<T: TaskStore + ?Sized> TaskStore for Arc<T> {
    async fn add_task(&self, task: &Task) -> Result<(), StoreError> {
        (**self).add_task(task).await
    }

    async fn task(&self, id: &str) -> Result<Option<Task>, StoreError> {
        (**self).task(id).await
    }

    async fn tasks_of(
        &self,
        principal: &PrincipalId,
        include_cancelled: bool,
        limit: usize,
    ) -> Result<Vec<Task>, StoreError> {
        (**self).tasks_of(principal, include_cancelled, limit).await
    }

    async fn active_tasks(&self, limit: usize) -> Result<Vec<Task>, StoreError> {
        (**self).active_tasks(limit).await
    }

    async fn cancel_task(&self, id: &str, at_ms: i64) -> Result<bool, StoreError> {
        (**self).cancel_task(id, at_ms).await
    }
}
