//! The morning briefing (`Period::Day`, genre `briefing`) and the weekly recap
//! (`Period::Week`, genre `recap`): what is coming, gathered in code in the owner's time zone
//! and written from a template — no model call at all. The day's briefing lists the pending
//! reminders due today and the open intentions due by tonight or overdue; the recap the same
//! for the coming 7 days, plus what the past 7 days delivered (reminders; the store does not
//! keep when an intention was closed, so those are not counted). Both add the unread
//! read-later items (how many, the 3 newest titles). Read-later alone never makes a morning
//! briefing (the same pile every day is not news); it does make a recap. With a weather tool
//! configured (`jobs::weather`), the morning briefing opens with its line — asked only when
//! there is something else to say.
//!
//! With nothing to list it says `Nothing` and sends nothing. It speaks once per local day
//! (the recap: once per week it was due in): its message is said under `briefing-<date>`
//! (`recap-<ISO year>-w<week>`), so a restart mid-day, a retry, or a schedule moved later after today's
//! went out sends no second one (`Voice` refuses the key twice); a run asked for by hand
//! (`steward jobs run`) keeps its own key and says it again. It goes to
//! the home target (`home`), since nothing captured one. Text that came from outside
//! (intentions, reminders, titles of web pages) is shown as plain text (`text::plain`).
//!
//! Owns: what a briefing and a recap contain and how they read. Does not own: when they run
//! (the scheduler, `jobs.briefing` / `jobs.weekly_recap`), the budget (`voice`), where home is
//! (`home`).

use std::fmt::Write as _;
use std::sync::Arc;

use chrono::{DateTime, Datelike, Days, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use steward_protocol::PrincipalId;
use steward_store::{Intention, ReadLater, Reminder, ReminderStatus, Store, StoreError};
use tokio::sync::watch;

use super::home::{NOWHERE, home_target};
use super::text::plain;
use super::weather::Weather;
use crate::job::{Job, JobError, JobOutcome, RunContext};
use crate::voice::{Said, Voice, genre};

/// Most reminders or intentions read for one briefing.
const READ: usize = 500;
/// Most items listed per section (the rest are counted).
const LISTED: usize = 10;
/// Newest read-later titles shown.
const TITLES: usize = 3;
/// Longest item text shown, in characters.
const ITEM_CHARS: usize = 200;
const DAY_MS: i64 = 24 * 3_600_000;

/// Which briefing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// The morning briefing: today.
    Day,
    /// The weekly recap: the coming 7 days and the past 7.
    Week,
}

impl Period {
    fn days(self) -> u64 {
        match self {
            Period::Day => 1,
            Period::Week => 7,
        }
    }

    fn genre(self) -> &'static str {
        match self {
            Period::Day => genre::BRIEFING,
            Period::Week => genre::RECAP,
        }
    }
}

/// What a briefing lists.
#[derive(Debug, Default)]
struct Agenda {
    reminders: Vec<Reminder>,
    intentions: Vec<Intention>,
    /// Unread read-later items, newest first (at most `READ`).
    unread: Vec<ReadLater>,
    /// Reminders delivered in the past 7 days (the recap only).
    delivered: usize,
}

impl Agenda {
    fn worth_saying(&self, period: Period) -> bool {
        let dated = !self.reminders.is_empty() || !self.intentions.is_empty();
        match period {
            Period::Day => dated,
            Period::Week => dated || self.delivered > 0 || !self.unread.is_empty(),
        }
    }

    fn items(&self) -> usize {
        self.reminders.len() + self.intentions.len()
    }
}

/// The local period a briefing covers, in UTC milliseconds.
#[derive(Debug, Clone, Copy)]
struct Window {
    /// The first instant of the local day the occurrence falls on.
    start: i64,
    /// The first instant after the period.
    end: i64,
    /// When the occurrence was due (the past week ends here).
    at: i64,
}

/// The first instant of `date` in `tz` (a DST gap at midnight starts the day at its end).
fn day_start(tz: Tz, date: NaiveDate) -> Option<i64> {
    let midnight = date.and_time(NaiveTime::MIN);
    tz.from_local_datetime(&midnight)
        .earliest()
        .or_else(|| {
            // Midnight in a gap: the day starts at the first valid minute after it.
            (1..=180).find_map(|m| {
                tz.from_local_datetime(&(midnight + chrono::Duration::minutes(m)))
                    .earliest()
            })
        })
        .map(|t| t.with_timezone(&Utc).timestamp_millis())
}

impl Window {
    fn of(period: Period, at: DateTime<Utc>, tz: Tz) -> Window {
        let date = at.with_timezone(&tz).date_naive();
        let at_ms = at.timestamp_millis();
        let start = day_start(tz, date).unwrap_or(at_ms);
        let end = date
            .checked_add_days(Days::new(period.days()))
            .and_then(|d| day_start(tz, d))
            .unwrap_or(start + DAY_MS * i64::try_from(period.days()).unwrap_or(1));
        Window {
            start,
            end,
            at: at_ms,
        }
    }
}

pub struct BriefingJob {
    store: Arc<dyn Store>,
    voice: Voice,
    owner: PrincipalId,
    zone: watch::Receiver<Tz>,
    period: Period,
    /// Where the morning's weather line comes from, when a tool offers it.
    weather: Option<Arc<dyn Weather>>,
}

impl BriefingJob {
    /// The morning briefing with a weather line from `weather` (asked only when there is
    /// something else to say).
    pub fn with_weather(mut self, weather: Arc<dyn Weather>) -> BriefingJob {
        self.weather = Some(weather);
        self
    }

    /// `zone`: the owner's time zone (`timezone`), live.
    pub fn new(
        store: Arc<dyn Store>,
        voice: Voice,
        owner: PrincipalId,
        zone: watch::Receiver<Tz>,
        period: Period,
    ) -> BriefingJob {
        BriefingJob {
            store,
            voice,
            owner,
            zone,
            period,
            weather: None,
        }
    }

    async fn gather(&self, window: Window) -> Result<Agenda, StoreError> {
        let user = self.owner.as_str();
        let include_closed = self.period == Period::Week;
        let reminders = self
            .store
            .reminders_of(&self.owner, include_closed, READ)
            .await?;
        let delivered = reminders
            .iter()
            .filter(|r| {
                r.status == ReminderStatus::Delivered
                    && r.closed_ms
                        .is_some_and(|c| c >= window.at - 7 * DAY_MS && c <= window.at)
            })
            .count();
        let reminders = reminders
            .into_iter()
            .filter(|r| {
                r.status == ReminderStatus::Pending
                    && r.due_ms >= window.start
                    && r.due_ms < window.end
            })
            .collect();
        let intentions = self
            .store
            .list_intentions(user, true)
            .await?
            .into_iter()
            .filter(|i| i.open && i.due_at_ms.is_some_and(|d| d < window.end))
            .collect();
        let unread = self.store.list_read_later(user, &[], true, READ).await?;
        Ok(Agenda {
            reminders,
            intentions,
            unread,
            delivered: if include_closed { delivered } else { 0 },
        })
    }
}

fn local(ms: i64, tz: Tz, format: &str) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(|t| t.with_timezone(&tz).format(format).to_string())
        .unwrap_or_else(|| "?".to_owned())
}

/// How an item's time reads: the hour for today, the day and hour for the week.
fn when(ms: i64, tz: Tz, period: Period) -> String {
    match period {
        Period::Day => local(ms, tz, "%H:%M"),
        Period::Week => local(ms, tz, "%a %-d %b %H:%M"),
    }
}

fn more(out: &mut String, total: usize) {
    if total > LISTED {
        let _ = writeln!(out, "- …and {} more", total - LISTED);
    }
}

/// The briefing's text (Markdown the surfaces render; every outside text through `plain`).
fn render(
    period: Period,
    agenda: &Agenda,
    window: Window,
    tz: Tz,
    weather: Option<&str>,
) -> String {
    let mut out = String::new();
    match period {
        Period::Day => {
            let _ = writeln!(
                out,
                "☀️ Good morning — {}",
                local(window.at, tz, "%A %-d %B")
            );
            if let Some(line) = weather {
                let _ = writeln!(out, "Weather: {line}");
            }
        }
        Period::Week => {
            let _ = writeln!(
                out,
                "🗓 Your week — {} to {}",
                local(window.start, tz, "%a %-d %b"),
                local(window.end - 1, tz, "%a %-d %b")
            );
        }
    }
    if !agenda.reminders.is_empty() {
        let heading = match period {
            Period::Day => "Reminders today",
            Period::Week => "Reminders this week",
        };
        let _ = writeln!(out, "\n{heading}:");
        for r in agenda.reminders.iter().take(LISTED) {
            let _ = writeln!(
                out,
                "- {} — {}",
                when(r.due_ms, tz, period),
                plain(&r.text, ITEM_CHARS)
            );
        }
        more(&mut out, agenda.reminders.len());
    }
    if !agenda.intentions.is_empty() {
        let _ = writeln!(out, "\nIntentions due:");
        for i in agenda.intentions.iter().take(LISTED) {
            let due = i.due_at_ms.unwrap_or(window.at);
            let state = if due < window.start {
                format!("overdue since {}", local(due, tz, "%a %-d %b"))
            } else if due < window.at {
                format!("overdue since {}", local(due, tz, "%H:%M"))
            } else {
                format!("due {}", when(due, tz, period))
            };
            let _ = writeln!(out, "- {} ({state})", plain(&i.text, ITEM_CHARS));
        }
        more(&mut out, agenda.intentions.len());
    }
    if period == Period::Week && agenda.delivered > 0 {
        let _ = writeln!(
            out,
            "\nThe past week: {} reminder(s) delivered.",
            agenda.delivered
        );
    }
    if !agenda.unread.is_empty() {
        let count = if agenda.unread.len() >= READ {
            format!("{READ}+")
        } else {
            agenda.unread.len().to_string()
        };
        let _ = writeln!(out, "\nRead later: {count} unread. Newest:");
        for item in agenda.unread.iter().take(TITLES) {
            let title = if item.title.trim().is_empty() {
                &item.url
            } else {
                &item.title
            };
            let _ = writeln!(out, "- {}", plain(title, ITEM_CHARS));
        }
    }
    out.trim_end().to_owned()
}

#[async_trait::async_trait]
impl Job for BriefingJob {
    async fn run(&self, ctx: &RunContext) -> Result<JobOutcome, JobError> {
        let tz = *self.zone.borrow();
        let window = Window::of(self.period, ctx.scheduled, tz);
        let agenda = self
            .gather(window)
            .await
            .map_err(|e| JobError::retry(format!("could not read the agenda: {e}")))?;
        if !agenda.worth_saying(self.period) {
            return Ok(JobOutcome::Nothing("nothing to brief".to_owned()));
        }
        let Some(target) = home_target(self.store.as_ref())
            .await
            .map_err(|e| JobError::retry(format!("could not find where to deliver: {e}")))?
        else {
            return Ok(JobOutcome::Nothing(NOWHERE.to_owned()));
        };
        // Weather alone is not news: asked only now that there is something else to say.
        let weather = match (&self.weather, self.period) {
            (Some(w), Period::Day) => w.today().await,
            _ => None,
        };
        let text = render(self.period, &agenda, window, tz, weather.as_deref());
        // One per local day (per week for the recap), whatever the schedule did meanwhile: a
        // later `jobs.briefing` set after today's went out makes a new fire time, not a second
        // briefing. A run asked for by hand (`steward jobs run`) says it again.
        let once = if ctx.occurrence.starts_with("manual-") {
            ctx.clone()
        } else {
            let day = ctx.scheduled.with_timezone(&tz).date_naive();
            let when = match self.period {
                Period::Day => day.to_string(),
                Period::Week => {
                    let week = day.iso_week();
                    format!("{}-w{:02}", week.year(), week.week())
                }
            };
            RunContext {
                occurrence: format!("{}-{when}", self.period.genre()),
                ..ctx.clone()
            }
        };
        Ok(
            match self
                .voice
                .say(&once, &target, self.period.genre(), text)
                .await?
            {
                Said::Delivered(_) => JobOutcome::Done(format!(
                    "{} delivered: {} item(s), {} unread",
                    self.period.genre(),
                    agenda.items(),
                    agenda.unread.len()
                )),
                Said::AlreadySaid => JobOutcome::Done("already delivered".to_owned()),
                Said::Held(held) => JobOutcome::Nothing(held.reason()),
            },
        )
    }
}
