//! The scheduler's routes: `GET /api/v1/jobs`, `POST /api/v1/jobs/{name}/run`, and the
//! caller's scheduled reminders and recurring tasks as resources under `/api/v1/scheduled/`
//! (`/api/v1/reminders` is the follow-ups memory keeps). Behind the `JobsDesk` port.

mod port;
mod routes;

pub use port::{Cancelled, JobRun, JobSummary, JobsDesk, JobsDeskError, TaskSummary};
// The `__path_*` items are the handlers' document entries (`documented!` reads them).
pub(crate) use routes::{
    __path_cancel_scheduled_reminder, __path_cancel_scheduled_task, __path_list_jobs,
    __path_list_scheduled_reminders, __path_list_scheduled_tasks, __path_run_job,
    cancel_scheduled_reminder, cancel_scheduled_task, list_jobs, list_scheduled_reminders,
    list_scheduled_tasks, run_job,
};
