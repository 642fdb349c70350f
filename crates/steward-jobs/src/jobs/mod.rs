//! The jobs that make Steward act unasked. Each is a `Job` (one attempt at an occurrence)
//! that speaks only through `Voice`, so the budget, the once-per-occurrence rule and the
//! genre + trace record hold for all of them. The upkeep jobs (reflection, retention,
//! backfill, the approval sweep) say nothing to anyone.
//!
//! Owns: what each job does. Does not own: when it runs (`runner`), how it speaks (`voice`).

pub mod approvals;
pub mod backfill;
pub mod briefing;
pub mod follow_ups;
pub mod home;
mod memory_failure;
pub mod reflection;
pub mod reminders;
pub mod retention;
pub mod tasks;
pub mod text;
pub mod weather;

pub use approvals::{ApprovalSweep, ApprovalsJob};
pub use backfill::BackfillJob;
pub use briefing::{BriefingJob, Period};
pub use follow_ups::FollowUpsJob;
pub use reflection::{ModelChoice, ReflectionJob};
pub use reminders::RemindersJob;
pub use retention::RetentionJob;
pub use tasks::TasksJob;
pub use weather::{ToolWeather, Weather};
