//! `TaskStore` for SQLite: the recurring tasks table `scheduled_tasks` (v17). Limits are
//! `crate::validate::tasks`'.

use super::{SqliteStore, decode_err, sql_limit};
use crate::codec::{parse_surface, surface_str};
use crate::validate::tasks as check;
use crate::{StoreError, Task, TaskStatus, TaskStore, validate};
use rusqlite::{OptionalExtension, Row, params};
use steward_protocol::{ConversationId, PrincipalId};

const COLUMNS: &str = "id, principal, title, prompt, schedule, surface, conversation, trace_id, \
     status, created_ms, cancelled_ms";
const ADD: &str = "INSERT INTO scheduled_tasks \
     (id, principal, title, prompt, schedule, surface, conversation, trace_id, status, created_ms, cancelled_ms) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'active', ?9, NULL)";
const CANCEL: &str = "UPDATE scheduled_tasks SET status = 'cancelled', cancelled_ms = ?2 WHERE id = ?1 AND status = 'active'";

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("task: bad {what}"))
}

fn task_from(row: &Row<'_>) -> Result<Task, StoreError> {
    let what = "task";
    let text = |i: usize| row.get::<_, String>(i).map_err(|e| decode_err(what, e));
    Ok(Task {
        id: text(0)?,
        principal: PrincipalId::parse(&text(1)?).map_err(|_| corrupt("principal"))?,
        title: text(2)?,
        prompt: text(3)?,
        schedule: text(4)?,
        surface: parse_surface(&text(5)?).ok_or_else(|| corrupt("surface"))?,
        conversation: ConversationId::parse(&text(6)?).map_err(|_| corrupt("conversation"))?,
        trace_id: text(7)?,
        status: TaskStatus::parse(&text(8)?).ok_or_else(|| corrupt("status"))?,
        created_ms: row.get(9).map_err(|e| decode_err(what, e))?,
        cancelled_ms: row.get(10).map_err(|e| decode_err(what, e))?,
    })
}

fn tasks_where(
    conn: &rusqlite::Connection,
    condition: &str,
    args: &[&dyn rusqlite::ToSql],
) -> Result<Vec<Task>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM scheduled_tasks WHERE {condition}");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(args)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(task_from(row)?);
    }
    Ok(out)
}

#[async_trait::async_trait]
impl TaskStore for SqliteStore {
    async fn add_task(&self, task: &Task) -> Result<(), StoreError> {
        check::task(task)?;
        let t = task.clone();
        self.run(move |conn| {
            conn.prepare_cached(ADD)?.execute(params![
                t.id,
                t.principal.as_str(),
                t.title,
                t.prompt,
                t.schedule,
                surface_str(t.surface),
                t.conversation.as_str(),
                t.trace_id,
                t.created_ms
            ])?;
            Ok(())
        })
        .await
    }

    async fn task(&self, id: &str) -> Result<Option<Task>, StoreError> {
        validate::id("task id", id)?;
        let id = id.to_owned();
        self.run(move |conn| {
            let sql = format!("SELECT {COLUMNS} FROM scheduled_tasks WHERE id = ?1");
            let mut stmt = conn.prepare_cached(&sql)?;
            stmt.query_row([id], |row| Ok(task_from(row)))
                .optional()?
                .transpose()
        })
        .await
    }

    async fn tasks_of(
        &self,
        principal: &PrincipalId,
        include_cancelled: bool,
        limit: usize,
    ) -> Result<Vec<Task>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let principal = principal.as_str().to_owned();
        self.run(move |conn| {
            let mut out = tasks_where(
                conn,
                "principal = ?1 AND status = 'active' ORDER BY created_ms, id LIMIT ?2",
                &[&principal, &sql_limit(limit)],
            )?;
            if include_cancelled && out.len() < limit {
                let rest = limit - out.len();
                out.extend(tasks_where(
                    conn,
                    "principal = ?1 AND status <> 'active' ORDER BY cancelled_ms DESC, id LIMIT ?2",
                    &[&principal, &sql_limit(rest)],
                )?);
            }
            Ok(out)
        })
        .await
    }

    async fn active_tasks(&self, limit: usize) -> Result<Vec<Task>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.run(move |conn| {
            tasks_where(
                conn,
                "status = 'active' ORDER BY created_ms, id LIMIT ?1",
                &[&sql_limit(limit)],
            )
        })
        .await
    }

    async fn cancel_task(&self, id: &str, at_ms: i64) -> Result<bool, StoreError> {
        validate::id("task id", id)?;
        let id = id.to_owned();
        self.run(move |conn| Ok(conn.prepare_cached(CANCEL)?.execute(params![id, at_ms])? == 1))
            .await
    }
}
