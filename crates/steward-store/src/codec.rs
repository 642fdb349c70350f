//! How protocol enums are spelled in storage, shared by every adapter so a database moved
//! between them reads the same. Owns the spellings; does not own any SQL.
//!
//! The encoders are exhaustive matches on purpose: a variant added to the protocol fails to
//! compile here until someone decides (and adds to the decoder) how it is stored.

use steward_protocol::{ActionKind, ActionStatus, Surface};

pub(crate) fn kind_str(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Tool => "tool",
        ActionKind::Plan => "plan",
    }
}

pub(crate) fn parse_kind(raw: &str) -> Option<ActionKind> {
    match raw {
        "tool" => Some(ActionKind::Tool),
        "plan" => Some(ActionKind::Plan),
        _ => None,
    }
}

pub(crate) fn status_str(status: ActionStatus) -> &'static str {
    status.as_str()
}

pub(crate) fn parse_status(raw: &str) -> Option<ActionStatus> {
    ActionStatus::parse(raw)
}

pub(crate) fn surface_str(surface: Surface) -> &'static str {
    match surface {
        Surface::Cli => "cli",
        Surface::Http => "http",
        Surface::OpenAiApi => "openai_api",
        Surface::Telegram => "telegram",
        Surface::Web => "web",
        Surface::System => "system",
        Surface::Scheduler => "scheduler",
    }
}

pub(crate) fn parse_surface(raw: &str) -> Option<Surface> {
    Some(match raw {
        "cli" => Surface::Cli,
        "http" => Surface::Http,
        "openai_api" => Surface::OpenAiApi,
        "telegram" => Surface::Telegram,
        "web" => Surface::Web,
        "system" => Surface::System,
        "scheduler" => Surface::Scheduler,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_round_trips_and_matches_the_protocol() {
        let surfaces = [
            Surface::Cli,
            Surface::Http,
            Surface::OpenAiApi,
            Surface::Telegram,
            Surface::Web,
            Surface::System,
            Surface::Scheduler,
        ];
        for s in surfaces {
            assert_eq!(surface_str(s), s.as_str());
            assert_eq!(parse_surface(surface_str(s)), Some(s));
        }
        for k in [ActionKind::Tool, ActionKind::Plan] {
            assert_eq!(parse_kind(kind_str(k)), Some(k));
        }
        let statuses = [
            ActionStatus::Pending,
            ActionStatus::Confirmed,
            ActionStatus::Executed,
            ActionStatus::Failed,
            ActionStatus::Cancelled,
            ActionStatus::Expired,
        ];
        for s in statuses {
            assert_eq!(parse_status(status_str(s)), Some(s));
        }
        assert_eq!(parse_surface("Cli"), None);
        assert_eq!(parse_kind(""), None);
        assert_eq!(parse_status("PENDING"), None);
    }
}
