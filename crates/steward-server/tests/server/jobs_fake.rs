//! A fake `JobsDesk` for the scheduler route tests (`jobs.rs`) and the API document walk
//! (`openapi_fixture.rs`): fixed jobs, the owner's and `mallory`'s reminders and tasks kept in
//! memory so cancelling changes them, and every call recorded with the principal it was for.

use crate::support::OWNER;
use std::sync::{Arc, Mutex};
use steward_protocol::{ConversationId, PrincipalId, Surface};
use steward_server::{Cancelled, JobRun, JobSummary, JobsDesk, JobsDeskError, TaskSummary};
use steward_store::{Reminder, ReminderStatus, Task, TaskStatus};

/// One call the desk got, with the principal it was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    Jobs,
    RunNow(String),
    Reminders(String, bool),
    CancelReminder(String, String),
    Tasks(String, bool),
    CancelTask(String, String),
}

/// Two jobs (`briefing` with a last run, `retention` disabled), `briefing` runs, `tasks` is
/// busy; reminders and tasks of the owner and of `mallory`; every call recorded. `failing`:
/// every call is a storage failure.
pub struct FakeJobs {
    failing: bool,
    calls: Mutex<Vec<Call>>,
    pub reminders: Mutex<Vec<Reminder>>,
    tasks: Mutex<Vec<Task>>,
}

fn reminder(id: &str, who: &str, status: ReminderStatus, due_ms: i64) -> Reminder {
    Reminder {
        id: id.into(),
        principal: PrincipalId::parse(who).unwrap(),
        text: format!("<b>{id}</b> call the plumber"),
        due_ms,
        shown: "Friday 11 December 2026 at 09:00 (Europe/Berlin)".into(),
        surface: Surface::Telegram,
        conversation: ConversationId::parse("tg-abc").unwrap(),
        trace_id: "trace-1".into(),
        status,
        created_ms: 1_000,
        closed_ms: (status != ReminderStatus::Pending).then_some(2_000),
    }
}

fn task(id: &str, who: &str, status: TaskStatus) -> Task {
    Task {
        id: id.into(),
        principal: PrincipalId::parse(who).unwrap(),
        title: "Morning news".into(),
        prompt: "Summarise the news".into(),
        schedule: "daily 07:30".into(),
        surface: Surface::Web,
        conversation: ConversationId::parse("web-1").unwrap(),
        trace_id: "trace-2".into(),
        status,
        created_ms: 3_000,
        cancelled_ms: (status == TaskStatus::Cancelled).then_some(4_000),
    }
}

fn briefing_run() -> JobRun {
    JobRun {
        occurrence: "2026-03-10T07:30".into(),
        status: "done".into(),
        scheduled_ms: 1_773_124_200_000,
        attempts: 1,
        finished_ms: Some(1_773_124_203_000),
        outcome: "sent the briefing".into(),
    }
}

impl FakeJobs {
    pub fn new() -> Arc<Self> {
        Self::build(false)
    }

    pub fn failing() -> Arc<Self> {
        Self::build(true)
    }

    fn build(failing: bool) -> Arc<Self> {
        Arc::new(FakeJobs {
            failing,
            calls: Mutex::new(Vec::new()),
            reminders: Mutex::new(vec![
                reminder("r1", OWNER, ReminderStatus::Pending, 5_000),
                reminder("r2", OWNER, ReminderStatus::Delivered, 4_000),
                reminder("r3", OWNER, ReminderStatus::Pending, 6_000),
                reminder("rm", "mallory", ReminderStatus::Pending, 5_000),
            ]),
            tasks: Mutex::new(vec![
                task("t1", OWNER, TaskStatus::Active),
                task("t2", OWNER, TaskStatus::Cancelled),
                task("tm", "mallory", TaskStatus::Active),
            ]),
        })
    }

    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    fn record(&self, call: Call) -> Result<(), JobsDeskError> {
        self.calls.lock().unwrap().push(call);
        if self.failing {
            return Err(JobsDeskError::Store);
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl JobsDesk for FakeJobs {
    async fn jobs(&self) -> Result<Vec<JobSummary>, JobsDeskError> {
        self.record(Call::Jobs)?;
        Ok(vec![
            JobSummary {
                name: "briefing".into(),
                setting: "jobs.briefing".into(),
                schedule: "daily 07:30".into(),
                next_fire_ms: Some(1_773_210_600_000),
                heartbeat_ms: Some(1_773_166_800_000),
                last: Some(briefing_run()),
            },
            JobSummary {
                name: "retention".into(),
                setting: "jobs.retention".into(),
                schedule: String::new(),
                next_fire_ms: None,
                heartbeat_ms: None,
                last: None,
            },
        ])
    }

    async fn run_now(&self, name: &str) -> Result<JobRun, JobsDeskError> {
        self.record(Call::RunNow(name.into()))?;
        match name {
            "briefing" => Ok(briefing_run()),
            "tasks" => Err(JobsDeskError::Busy("tasks is running now".into())),
            _ => Err(JobsDeskError::UnknownJob(name.into())),
        }
    }

    async fn reminders(
        &self,
        who: &PrincipalId,
        include_closed: bool,
    ) -> Result<Vec<Reminder>, JobsDeskError> {
        self.record(Call::Reminders(who.to_string(), include_closed))?;
        let mut mine: Vec<Reminder> = self
            .reminders
            .lock()
            .unwrap()
            .iter()
            .filter(|r| &r.principal == who)
            .filter(|r| include_closed || r.status == ReminderStatus::Pending)
            .cloned()
            .collect();
        mine.sort_by_key(|r| (r.status != ReminderStatus::Pending, r.due_ms));
        Ok(mine)
    }

    async fn cancel_reminder(
        &self,
        who: &PrincipalId,
        id: &str,
    ) -> Result<Cancelled, JobsDeskError> {
        self.record(Call::CancelReminder(who.to_string(), id.into()))?;
        let mut all = self.reminders.lock().unwrap();
        let Some(r) = all.iter_mut().find(|r| r.id == id && &r.principal == who) else {
            return Ok(Cancelled::NotFound);
        };
        if r.status != ReminderStatus::Pending {
            return Ok(Cancelled::Already {
                status: r.status.as_str(),
            });
        }
        r.status = ReminderStatus::Cancelled;
        Ok(Cancelled::Now)
    }

    async fn tasks(
        &self,
        who: &PrincipalId,
        include_cancelled: bool,
    ) -> Result<Vec<TaskSummary>, JobsDeskError> {
        self.record(Call::Tasks(who.to_string(), include_cancelled))?;
        Ok(self
            .tasks
            .lock()
            .unwrap()
            .iter()
            .filter(|t| &t.principal == who)
            .filter(|t| include_cancelled || t.status == TaskStatus::Active)
            .map(|t| TaskSummary {
                next_fire_ms: (t.status == TaskStatus::Active).then_some(1_773_210_600_000),
                task: t.clone(),
            })
            .collect())
    }

    async fn cancel_task(&self, who: &PrincipalId, id: &str) -> Result<Cancelled, JobsDeskError> {
        self.record(Call::CancelTask(who.to_string(), id.into()))?;
        let mut all = self.tasks.lock().unwrap();
        let Some(t) = all.iter_mut().find(|t| t.id == id && &t.principal == who) else {
            return Ok(Cancelled::NotFound);
        };
        if t.status != TaskStatus::Active {
            return Ok(Cancelled::Already {
                status: t.status.as_str(),
            });
        }
        t.status = TaskStatus::Cancelled;
        Ok(Cancelled::Now)
    }
}
