//! The jobs that make Steward act unasked. Each is a `Job` (one attempt at an occurrence)
//! that speaks only through `Voice`, so the budget, the once-per-occurrence rule and the
//! genre + trace record hold for all of them.
//!
//! Owns: what each job does. Does not own: when it runs (`runner`), how it speaks (`voice`).

pub mod briefing;
pub mod follow_ups;
pub mod home;
pub mod reminders;
pub mod tasks;
pub mod text;

pub use briefing::{BriefingJob, Period};
pub use follow_ups::FollowUpsJob;
pub use reminders::RemindersJob;
pub use tasks::TasksJob;
