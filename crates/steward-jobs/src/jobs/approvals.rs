//! The approval expiry sweep as a scheduled job: overdue pending cards are expired even if
//! nobody looks (a late confirm expires them anyway; this is for the lists and the cards
//! already shown). `steward serve` runs it here; `steward chat`, which runs no scheduler,
//! keeps the desk's own loop (`Steward::start_approvals`).
//!
//! Owns: the `ApprovalSweep` port and the job over it. Does not own: expiring (core's
//! approval desk), crash recovery at start (`start_approvals`).

use std::sync::Arc;

use crate::job::{Job, JobError, JobOutcome, RunContext};

/// What can expire overdue approvals now: core's `Steward`, or a test's stand-in.
#[async_trait::async_trait]
pub trait ApprovalSweep: Send + Sync + 'static {
    /// Expire every overdue pending action; how many were expired.
    async fn expire_overdue(&self) -> Result<usize, String>;
}

#[async_trait::async_trait]
impl ApprovalSweep for steward_core::Steward {
    async fn expire_overdue(&self) -> Result<usize, String> {
        steward_core::Steward::expire_overdue(self)
            .await
            .map_err(|e| e.to_string())
    }
}

pub struct ApprovalsJob {
    sweep: Arc<dyn ApprovalSweep>,
}

impl ApprovalsJob {
    pub fn new(sweep: Arc<dyn ApprovalSweep>) -> ApprovalsJob {
        ApprovalsJob { sweep }
    }
}

#[async_trait::async_trait]
impl Job for ApprovalsJob {
    async fn run(&self, _: &RunContext) -> Result<JobOutcome, JobError> {
        let expired = self
            .sweep
            .expire_overdue()
            .await
            .map_err(|e| JobError::retry(format!("the expiry sweep failed: {e}")))?;
        if expired == 0 {
            return Ok(JobOutcome::Nothing("no approval overdue".to_owned()));
        }
        Ok(JobOutcome::Done(format!("{expired} approval(s) expired")))
    }
}
