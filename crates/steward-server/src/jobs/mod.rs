//! The scheduler's routes: `GET /api/v1/jobs`, `POST /api/v1/jobs/{name}/run`, and the
//! caller's scheduled reminders and recurring tasks as resources under `/api/v1/scheduled/`
//! (`/api/v1/reminders` is the follow-ups memory keeps). Behind the `JobsDesk` port.

mod port;

pub use port::{Cancelled, JobRun, JobSummary, JobsDesk, JobsDeskError, TaskSummary};
