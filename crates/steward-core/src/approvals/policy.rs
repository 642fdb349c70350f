//! Policy: what happens to a tool call, from the tool's declared effect and the surface the
//! turn came from. Code decides; nothing here is a prompt. Fails closed: here, only the
//! explicit terminal auto-approve setting turns an ask into an allow. The gate may still
//! skip the card for an ask when a live grant covers the tool in that conversation (never
//! for a tool that is not `grantable`, nor for a taint review: `approvals::gate`).

use std::time::Duration;
use steward_protocol::{Effect, Surface};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyDecision {
    Allow,
    Ask,
    Refuse,
}

#[derive(Debug, Clone)]
pub struct ApprovalSettings {
    /// How long a card stays valid unless the tool says otherwise.
    pub default_ttl: Duration,
    /// Explicit opt-in (flag or setting) to run consequential tools from the terminal
    /// without asking. Never a default.
    pub cli_auto_approve: bool,
}

impl Default for ApprovalSettings {
    fn default() -> Self {
        Self {
            default_ttl: Duration::from_secs(30 * 60),
            cli_auto_approve: false,
        }
    }
}

/// The policy table. Read and memory (Steward's own notes and facts) are allowed on every
/// surface a human uses; everything else asks. `Surface::System` (work nobody is watching)
/// may read, never act. `Surface::Scheduler` (a task the owner scheduled) may read and asks for
/// everything else: its card waits for the owner, and the terminal's auto-approve never
/// reaches it (nobody is at the terminal when a task runs).
pub fn decide(effect: Effect, surface: Surface, settings: &ApprovalSettings) -> PolicyDecision {
    let consequential = matches!(
        effect,
        Effect::Write | Effect::External | Effect::Destructive
    );
    match surface {
        Surface::System if consequential => PolicyDecision::Refuse,
        Surface::System => PolicyDecision::Allow,
        _ if !consequential => PolicyDecision::Allow,
        Surface::Cli if settings.cli_auto_approve => PolicyDecision::Allow,
        Surface::Cli
        | Surface::Http
        | Surface::OpenAiApi
        | Surface::Telegram
        | Surface::Web
        | Surface::Scheduler => PolicyDecision::Ask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EFFECTS: [Effect; 5] = [
        Effect::Read,
        Effect::Memory,
        Effect::Write,
        Effect::External,
        Effect::Destructive,
    ];
    const SURFACES: [Surface; 7] = [
        Surface::Cli,
        Surface::Http,
        Surface::OpenAiApi,
        Surface::Telegram,
        Surface::Web,
        Surface::System,
        Surface::Scheduler,
    ];

    #[test]
    fn the_whole_table() {
        let strict = ApprovalSettings::default();
        let auto = ApprovalSettings {
            cli_auto_approve: true,
            ..ApprovalSettings::default()
        };
        for effect in EFFECTS {
            for surface in SURFACES {
                let consequential = !matches!(effect, Effect::Read | Effect::Memory);
                let expected = match (consequential, surface) {
                    (false, _) => PolicyDecision::Allow,
                    (true, Surface::System) => PolicyDecision::Refuse,
                    (true, _) => PolicyDecision::Ask,
                };
                assert_eq!(
                    decide(effect, surface, &strict),
                    expected,
                    "{effect:?} on {surface:?}"
                );
                let expected_auto = if consequential && surface == Surface::Cli {
                    PolicyDecision::Allow
                } else {
                    expected
                };
                assert_eq!(
                    decide(effect, surface, &auto),
                    expected_auto,
                    "auto: {effect:?} on {surface:?}"
                );
            }
        }
    }

    #[test]
    fn a_scheduled_task_asks_for_every_consequential_step_even_with_auto_approve() {
        let auto = ApprovalSettings {
            cli_auto_approve: true,
            ..ApprovalSettings::default()
        };
        for effect in [Effect::Write, Effect::External, Effect::Destructive] {
            assert_eq!(
                decide(effect, Surface::Scheduler, &auto),
                PolicyDecision::Ask
            );
        }
        assert_eq!(
            decide(Effect::Read, Surface::Scheduler, &auto),
            PolicyDecision::Allow
        );
    }

    #[test]
    fn auto_approve_is_off_by_default() {
        assert!(!ApprovalSettings::default().cli_auto_approve);
    }
}
