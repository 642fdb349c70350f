//! Input limits for recurring tasks (`TaskStore`), so every adapter refuses the same inputs.
//! Messages name the field and the problem, never the text.

use super::approvals::{bounded, id};
use crate::{MAX_TASK_PROMPT_LEN, MAX_TASK_SCHEDULE_LEN, MAX_TASK_TITLE_LEN, StoreError, Task};

fn not_blank(what: &str, raw: &str, max: usize) -> Result<(), StoreError> {
    bounded(what, raw, 1, max)?;
    if raw.trim().is_empty() {
        return Err(StoreError::InvalidInput(format!("{what} is blank")));
    }
    Ok(())
}

pub(crate) fn task(task: &Task) -> Result<(), StoreError> {
    id("task id", &task.id)?;
    not_blank("task title", &task.title, MAX_TASK_TITLE_LEN)?;
    not_blank("task prompt", &task.prompt, MAX_TASK_PROMPT_LEN)?;
    not_blank("task schedule", &task.schedule, MAX_TASK_SCHEDULE_LEN)?;
    id("task trace id", &task.trace_id)
}
