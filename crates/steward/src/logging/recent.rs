//! The recent errors: the last `RECENT_ERRORS` WARN and ERROR events of this process, kept
//! in memory for `GET /api/v1/status`, redacted exactly as the log lines are.
//!
//! Owns: the ring (`RecentErrors`, a tracing `Layer` beside the formatter, so it sees what
//! the log filter lets through) and the process's one ring (`install`, `installed`). Does
//! not own the redaction (`super::scrub_line`, applied when an event is kept and again when
//! it is read, so a secret registered in between is masked too) or what is secret.

use std::collections::VecDeque;
use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex, OnceLock};
use steward_protocol::Clock;
use steward_server::RecentError;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// Events kept; older ones make room.
pub const RECENT_ERRORS: usize = 50;
/// Longest message kept, in characters (a dependency may log a whole response body).
const MAX_MESSAGE_CHARS: usize = 1000;

/// The ring; clones share it.
#[derive(Clone)]
pub struct RecentErrors {
    events: Arc<Mutex<VecDeque<RecentError>>>,
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for RecentErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecentErrors").finish_non_exhaustive()
    }
}

static INSTALLED: OnceLock<RecentErrors> = OnceLock::new();

/// The process's ring, made on the first call (later calls return the same one): the
/// logging set-up layers it under the formatter.
pub fn install(clock: Arc<dyn Clock>) -> RecentErrors {
    INSTALLED.get_or_init(|| RecentErrors::new(clock)).clone()
}

/// The process's ring, if logging was set up.
pub fn installed() -> Option<RecentErrors> {
    INSTALLED.get().cloned()
}

impl RecentErrors {
    /// An empty ring stamping events by `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> RecentErrors {
        RecentErrors {
            events: Arc::new(Mutex::new(VecDeque::with_capacity(RECENT_ERRORS))),
            clock,
        }
    }

    /// What is kept, oldest first, redacted again by the secrets registered now.
    pub fn snapshot(&self) -> Vec<RecentError> {
        let events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        events
            .iter()
            .map(|e| RecentError {
                message: super::scrub_line(&e.message),
                target: super::scrub_line(&e.target),
                ..e.clone()
            })
            .collect()
    }

    fn keep(&self, event: RecentError) {
        let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        if events.len() >= RECENT_ERRORS {
            events.pop_front();
        }
        events.push_back(event);
    }
}

impl<S: Subscriber> Layer<S> for RecentErrors {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        // Levels order by verbosity: ERROR < WARN < INFO.
        if *meta.level() > Level::WARN {
            return;
        }
        let mut text = Fields::default();
        event.record(&mut text);
        let message = super::scrub_line(&text.finish());
        let message = match message.char_indices().nth(MAX_MESSAGE_CHARS) {
            Some((cut, _)) => format!("{}…", &message[..cut]),
            None => message,
        };
        self.keep(RecentError {
            at_secs: self.clock.now_secs(),
            level: meta.level().as_str().to_owned(),
            target: meta.target().to_owned(),
            message,
        });
    }
}

/// An event's fields as the log line shows them: the message, then `name=value` for each
/// other field.
#[derive(Default)]
struct Fields {
    message: String,
    rest: String,
}

impl Fields {
    fn finish(self) -> String {
        match (self.message.is_empty(), self.rest.is_empty()) {
            (_, true) => self.message,
            (true, false) => self.rest,
            (false, false) => format!("{} {}", self.message, self.rest),
        }
    }

    fn push(&mut self, field: &Field, value: fmt::Arguments<'_>) {
        if field.name() == "message" {
            let _ = self.message.write_fmt(value);
        } else {
            if !self.rest.is_empty() {
                self.rest.push(' ');
            }
            let _ = write!(self.rest, "{}={value}", field.name());
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.push(field, format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.push(field, format_args!("{value:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use steward_protocol::ManualClock;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn warnings_and_errors_are_kept_redacted_and_bounded() {
        super::super::redact(["sk-ring-canary-5150".to_owned()]);
        let clock = ManualClock::at_ms(1_700_000_000_000);
        let ring = RecentErrors::new(clock.clone());
        let subscriber = tracing_subscriber::registry().with(ring.clone());
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!("not kept");
            tracing::debug!("not kept either");
            tracing::warn!(error = %"key sk-ring-canary-5150 refused", "model call failed");
            clock.advance(std::time::Duration::from_secs(5));
            tracing::error!(
                url = "http://h.example/v1?api_key=sk-other-777",
                attempts = 3,
                "provider gone-7731"
            );
        });
        let kept = ring.snapshot();
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert_eq!(kept[0].level, "WARN");
        assert_eq!(kept[0].at_secs, 1_700_000_000);
        assert_eq!(
            kept[0].message,
            "model call failed error=key [redacted] refused"
        );
        assert!(
            kept[0].target.ends_with("recent::tests"),
            "{}",
            kept[0].target
        );
        assert_eq!(kept[1].level, "ERROR");
        assert_eq!(kept[1].at_secs, 1_700_000_005);
        assert_eq!(
            kept[1].message,
            "provider gone-7731 url=http://h.example/v1?api_key=… attempts=3"
        );
        // A secret registered after the event is masked when it is read.
        super::super::redact(["gone-7731".to_owned()]);
        assert!(
            ring.snapshot()[1]
                .message
                .starts_with("provider [redacted] url=")
        );

        tracing::subscriber::with_default(
            tracing_subscriber::registry().with(ring.clone()),
            || {
                for i in 0..(RECENT_ERRORS + 7) {
                    tracing::error!("event {i} {}", "x".repeat(3000));
                }
            },
        );
        let kept = ring.snapshot();
        assert_eq!(kept.len(), RECENT_ERRORS);
        assert!(
            kept[0].message.starts_with("event 7 "),
            "the oldest went first"
        );
        assert!(kept[RECENT_ERRORS - 1].message.starts_with("event 56 "));
        assert_eq!(kept[0].message.chars().count(), MAX_MESSAGE_CHARS + 1);
    }
}
