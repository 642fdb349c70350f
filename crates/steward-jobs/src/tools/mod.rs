//! The model's tools for proactive work: `schedule_reminder`, `list_reminders`,
//! `cancel_reminder`. Setting a reminder is Steward writing its own data for the owner
//! (`Effect::Memory`: allowed on a surface a person uses, and declared in `reach`, so after
//! untrusted content the taint rule shows a card first); the owner sees every reminder in
//! `list_reminders` and in `steward jobs`, and can cancel it.
//!
//! Owns: the tools. Does not own: the phrase rules (`when`), the delivery (`jobs::reminders`).

mod reminders;

use std::sync::Arc;

use steward_protocol::Clock;
use steward_store::JobStore;
use steward_tools::Tool;

pub use reminders::{CancelReminder, ListReminders, ScheduleReminder};

/// The reminder tools over `store`, reading "now" from `clock`.
pub fn reminder_tools(store: Arc<dyn JobStore>, clock: Arc<dyn Clock>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ScheduleReminder::new(
            Arc::clone(&store),
            Arc::clone(&clock),
        )),
        Arc::new(ListReminders::new(Arc::clone(&store), Arc::clone(&clock))),
        Arc::new(CancelReminder::new(store, clock)),
    ]
}
