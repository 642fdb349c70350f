//! The scheduler's routes over the `JobsDesk` port: `GET /api/v1/jobs` (each job with its
//! schedule, next fire, heartbeat and last run), `POST /api/v1/jobs/{name}/run` (one run now,
//! answered when the attempt ends), and the caller's scheduled reminders and recurring tasks
//! under `/api/v1/scheduled/` (list; cancel one with `DELETE`).
//!
//! Owns: reading paths and query strings (a job name by `JobName`'s rule, a reminder's or
//! task's id by `ScheduledId`'s, both before the desk is asked), the JSON shapes, and
//! mapping `JobsDeskError` and `Cancelled` to HTTP. Does not own: what a job is, when it fires,
//! or whose reminders are whose (the desk answers for the principal it is given, and another
//! person's id reads as unknown there).

use super::port::{Cancelled, JobRun, JobSummary, JobsDesk, JobsDeskError, TaskSummary};
use crate::AppState;
use crate::auth::Authenticated;
use crate::body::{flag, parse_limit};
use crate::error::{ApiError, SHOULD_RETRY, should_retry};
use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_protocol::{JobName, ScheduledId, ValueError, ValueKind};
use steward_store::{Reminder, Task};

const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 1_000;

#[derive(Deserialize)]
pub(crate) struct RemindersQuery {
    #[serde(default)]
    include_closed: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct TasksQuery {
    #[serde(default)]
    include_cancelled: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

/// The desk, or 503 when no scheduler runs in this process.
fn desk_of(state: &AppState) -> Result<&Arc<dyn JobsDesk>, ApiError> {
    state.jobs.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the scheduler is not running here (`steward serve` runs it)",
        )
    })
}

fn desk_error(err: JobsDeskError) -> ApiError {
    let message = err.to_string();
    match err {
        JobsDeskError::UnknownJob(_) => ApiError::new(StatusCode::NOT_FOUND, "not_found", message),
        JobsDeskError::Busy(_) => ApiError::new(StatusCode::CONFLICT, "busy", message),
        JobsDeskError::Store => ApiError::internal("scheduler storage failed; see the server log"),
    }
}

/// A job name from the path, by `JobName`'s rule (a path that does not decode gets its words).
fn job_name(path: Result<Path<String>, PathRejection>) -> Result<JobName, ApiError> {
    let Ok(Path(raw)) = path else {
        return Err(ApiError::bad_request(ValueError::rule_message(
            ValueKind::JobName,
        )));
    };
    JobName::parse(&raw).map_err(|e| ApiError::bad_request(e.to_string()))
}

/// A reminder's or task's id from the path, by `ScheduledId`'s rule, so that nothing else (a
/// `../`, a control byte, a megabyte) reaches the desk.
fn scheduled_id(path: Result<Path<String>, PathRejection>) -> Result<ScheduledId, ApiError> {
    let Ok(Path(raw)) = path else {
        return Err(ApiError::bad_request(ValueError::rule_message(
            ValueKind::ScheduledId,
        )));
    };
    ScheduledId::parse(&raw).map_err(|e| ApiError::bad_request(e.to_string()))
}

/// 204 when cancelled now; 409 with how it stands when it was closed before; 404 otherwise.
fn cancelled_response(cancelled: Cancelled, what: &str) -> Response {
    match cancelled {
        Cancelled::Now => StatusCode::NO_CONTENT.into_response(),
        Cancelled::Already { status } => {
            let body = json!({
                "error": {"kind": "conflict", "message": format!("the {what} is {status} already")},
                "status": status,
            });
            let mut resp = (StatusCode::CONFLICT, Json(body)).into_response();
            resp.headers_mut().insert(SHOULD_RETRY, should_retry(false));
            resp
        }
        Cancelled::NotFound => ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no such {what}"),
        )
        .into_response(),
    }
}

fn run_json(run: &JobRun) -> Value {
    json!({
        "occurrence": run.occurrence,
        "status": run.status,
        "scheduled_ms": run.scheduled_ms,
        "attempts": run.attempts,
        "finished_ms": run.finished_ms,
        "outcome": run.outcome,
    })
}

fn job_json(job: &JobSummary) -> Value {
    json!({
        "name": job.name,
        "setting": job.setting,
        "schedule": job.schedule,
        "enabled": !job.schedule.is_empty(),
        "next_fire_ms": job.next_fire_ms,
        "heartbeat_ms": job.heartbeat_ms,
        "last": job.last.as_ref().map(run_json),
    })
}

fn reminder_json(r: &Reminder) -> Value {
    json!({
        "id": r.id,
        "text": r.text,
        "due_ms": r.due_ms,
        "shown": r.shown,
        "surface": r.surface.as_str(),
        "conversation_id": r.conversation.as_str(),
        "status": r.status.as_str(),
        "created_ms": r.created_ms,
        "closed_ms": r.closed_ms,
    })
}

fn task_json(summary: &TaskSummary) -> Value {
    let t: &Task = &summary.task;
    json!({
        "id": t.id,
        "title": t.title,
        "prompt": t.prompt,
        "schedule": t.schedule,
        "next_fire_ms": summary.next_fire_ms,
        "surface": t.surface.as_str(),
        "conversation_id": t.conversation.as_str(),
        "status": t.status.as_str(),
        "created_ms": t.created_ms,
        "cancelled_ms": t.cancelled_ms,
    })
}

/// Every scheduled job, in the order `steward jobs` lists them: its schedule (empty when
/// disabled), next fire, latest heartbeat and latest occurrence.
#[utoipa::path(
    get,
    path = "/api/v1/jobs",
    operation_id = "list_jobs",
    tag = "jobs",
    responses(
        (status = 200, description = "The jobs", body = crate::apidoc::schemas::JobList),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list_jobs(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let jobs = desk_of(&state)?.jobs().await.map_err(desk_error)?;
    let jobs: Vec<Value> = jobs.iter().map(job_json).collect();
    Ok(Json(json!({"jobs": jobs})))
}

/// Run a job once now, outside its schedule, and answer when the attempt ends (a failed
/// attempt is a 200 with its status and outcome). No body.
#[utoipa::path(
    post,
    path = "/api/v1/jobs/{name}/run",
    operation_id = "run_job",
    tag = "jobs",
    params(("name" = String, Path, description = "The job's name (1 to 64 of a-z, 0-9, _ and -)")),
    responses(
        (status = 200, description = "The run's end", body = crate::apidoc::schemas::JobRunReply),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, description = "No job of that name (`not_found`)", body = crate::error::ErrorBody),
        (status = 409, description = "The job is running now, here or in another process (`busy`)", body = crate::error::ErrorBody),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn run_job(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let name = job_name(path)?;
    let desk = desk_of(&state)?;
    // A run outside the schedule is the owner's act: the log says who asked.
    tracing::info!(job = %name, by = %who.id(), "job run requested over the API");
    let run = desk.run_now(name.as_str()).await.map_err(desk_error)?;
    Ok(Json(json!({"run": run_json(&run)})))
}

/// The caller's reminders: pending ones soonest first, then (with `include_closed`) delivered
/// and cancelled ones.
#[utoipa::path(
    get,
    path = "/api/v1/scheduled/reminders",
    operation_id = "list_scheduled_reminders",
    tag = "jobs",
    params(
        ("include_closed" = Option<bool>, Query, description = "Also delivered and cancelled ones (default false)"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "At most this many (default 100)"),
    ),
    responses(
        (status = 200, description = "The reminders", body = crate::apidoc::schemas::ScheduledReminderList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list_scheduled_reminders(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    query: Result<Query<RemindersQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let include_closed = flag(query.include_closed.as_deref(), "include_closed")?;
    let desk = desk_of(&state)?;
    let reminders = desk
        .reminders(who.id(), include_closed)
        .await
        .map_err(desk_error)?;
    let reminders: Vec<Value> = reminders.iter().take(limit).map(reminder_json).collect();
    Ok(Json(json!({"reminders": reminders})))
}

/// Cancel one of the caller's pending reminders.
#[utoipa::path(
    delete,
    path = "/api/v1/scheduled/reminders/{id}",
    operation_id = "cancel_scheduled_reminder",
    tag = "jobs",
    params(("id" = String, Path, description = "The reminder's id (1 to 128 letters, digits, _ or -)")),
    responses(
        (status = 204, description = "Cancelled: it will not be delivered"),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, description = "No such reminder of the caller's (`not_found`)", body = crate::error::ErrorBody),
        (status = 409, description = "Delivered or cancelled before (`conflict`); `status` says which", body = crate::apidoc::schemas::AlreadyClosed),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn cancel_scheduled_reminder(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let id = scheduled_id(path)?;
    let desk = desk_of(&state)?;
    let cancelled = desk
        .cancel_reminder(who.id(), id.as_str())
        .await
        .map_err(desk_error)?;
    Ok(cancelled_response(cancelled, "reminder"))
}

/// The caller's recurring tasks: active ones oldest first, then (with `include_cancelled`)
/// cancelled ones.
#[utoipa::path(
    get,
    path = "/api/v1/scheduled/tasks",
    operation_id = "list_scheduled_tasks",
    tag = "jobs",
    params(
        ("include_cancelled" = Option<bool>, Query, description = "Also cancelled ones (default false)"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "At most this many (default 100)"),
    ),
    responses(
        (status = 200, description = "The tasks", body = crate::apidoc::schemas::ScheduledTaskList),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn list_scheduled_tasks(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    query: Result<Query<TasksQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let limit = parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?;
    let include_cancelled = flag(query.include_cancelled.as_deref(), "include_cancelled")?;
    let desk = desk_of(&state)?;
    let tasks = desk
        .tasks(who.id(), include_cancelled)
        .await
        .map_err(desk_error)?;
    let tasks: Vec<Value> = tasks.iter().take(limit).map(task_json).collect();
    Ok(Json(json!({"tasks": tasks})))
}

/// Cancel one of the caller's recurring tasks: it runs no more.
#[utoipa::path(
    delete,
    path = "/api/v1/scheduled/tasks/{id}",
    operation_id = "cancel_scheduled_task",
    tag = "jobs",
    params(("id" = String, Path, description = "The task's id (1 to 128 letters, digits, _ or -)")),
    responses(
        (status = 204, description = "Cancelled: it runs no more"),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 404, description = "No such task of the caller's (`not_found`)", body = crate::error::ErrorBody),
        (status = 409, description = "Cancelled before (`conflict`); `status` says how it stands", body = crate::apidoc::schemas::AlreadyClosed),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn cancel_scheduled_task(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let id = scheduled_id(path)?;
    let desk = desk_of(&state)?;
    let cancelled = desk
        .cancel_task(who.id(), id.as_str())
        .await
        .map_err(desk_error)?;
    Ok(cancelled_response(cancelled, "task"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> Result<Path<String>, PathRejection> {
        Ok(Path(s.to_owned()))
    }

    #[test]
    fn ids_and_job_names_from_the_path_are_checked() {
        let hex = "0123456789abcdef0123456789abcdef";
        assert_eq!(scheduled_id(path(hex)).unwrap().as_str(), hex);
        for bad in ["", "../x", "a b", &"a".repeat(129)] {
            let err = scheduled_id(path(bad)).unwrap_err();
            assert_eq!(err.status(), StatusCode::BAD_REQUEST, "{bad:?}");
        }
        let name = job_name(path("weekly-recap")).unwrap();
        assert_eq!(name.as_str(), "weekly-recap");
        for bad in ["Briefing", "a b", "../x", ""] {
            let err = job_name(path(bad)).unwrap_err();
            assert_eq!(err.status(), StatusCode::BAD_REQUEST, "{bad:?}");
        }
    }
}
