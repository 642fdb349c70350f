//! The bot's commands: `/start`, `/help`, `/new`, `/status`, `/approvals`, `/model` (show;
//! switch when `telegram.model_switch` allows) and `/memory`. A command is answered here and
//! never reaches the model; an unknown one gets the list.
//!
//! Owns: parsing a command (with a group's `@botname` suffix) and each answer. Does not own:
//! what the answers read (the desks).

use std::sync::Arc;

use steward_protocol::{ActionStatus, Principal};

use super::{Shared, card_view, chats, send};
use crate::allowlist::ChatKind;

/// How many pending cards `/approvals` shows, and how many facts `/memory`.
const LISTED: usize = 5;
const FACTS_LISTED: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    Start,
    Help,
    New,
    Status,
    Approvals,
    Model(Option<String>),
    Memory,
    Unknown(String),
}

pub(crate) const HELP: &str = "I answer what you write here, and ask before anything consequential.\n\n\
/new — start a new conversation\n\
/status — model and pending approvals\n\
/approvals — show what waits for your decision\n\
/model — the model in use (/model NAME switches, when allowed)\n\
/memory — what I remember about you\n\
/help — this list\n\n\
React 👍 or 👎 to any of my messages to tell me how I did.";

/// `/name[@bot] [argument]` → a command; any other text is `None`.
pub(crate) fn parse(text: &str) -> Option<Command> {
    let text = text.trim();
    let rest = text.strip_prefix('/')?;
    let (head, argument) = match rest.split_once(char::is_whitespace) {
        Some((h, a)) => (h, Some(a.trim()).filter(|a| !a.is_empty())),
        None => (rest, None),
    };
    let name = head.split('@').next().unwrap_or("").to_ascii_lowercase();
    Some(match name.as_str() {
        "start" => Command::Start,
        "help" => Command::Help,
        "new" => Command::New,
        "status" => Command::Status,
        "approvals" => Command::Approvals,
        "model" => Command::Model(argument.map(str::to_owned)),
        "memory" => Command::Memory,
        _ => Command::Unknown(name.chars().take(32).collect()),
    })
}

pub(crate) async fn run(
    shared: &Arc<Shared>,
    chat: i64,
    _kind: ChatKind,
    principal: Principal,
    command: Command,
) {
    let text = match command {
        Command::Start => format!("Hello, I'm Steward.\n\n{HELP}"),
        Command::Help => HELP.to_owned(),
        Command::Unknown(name) => format!("I don't know /{name}.\n\n{HELP}"),
        Command::New => match chats::new_conversation(shared, chat).await {
            Ok(_) => "Started a new conversation: I won't see the earlier messages of this chat."
                .to_owned(),
            Err(()) => "I could not start a new conversation; see the server log.".to_owned(),
        },
        Command::Status => status(shared).await,
        Command::Approvals => return approvals(shared, chat).await,
        Command::Model(None) => match shared.deps.assistant.model_label() {
            Some(label) => format!("Answering with {label}."),
            None => "No model is configured.".to_owned(),
        },
        Command::Model(Some(name)) => switch_model(shared, &principal, &name).await,
        Command::Memory => memory(shared, &principal).await,
    };
    send::notice(shared, chat, &text).await;
}

async fn status(shared: &Shared) -> String {
    let model = shared
        .deps
        .assistant
        .model_label()
        .unwrap_or_else(|| "no model configured".to_owned());
    let pending = match shared.deps.approvals.pending_count().await {
        Ok(0) => "nothing waits for your approval".to_owned(),
        Ok(1) => "1 action waits for your approval (/approvals)".to_owned(),
        Ok(n) => format!("{n} actions wait for your approval (/approvals)"),
        Err(_) => "approvals could not be read".to_owned(),
    };
    format!("Model: {model}\nApprovals: {pending}")
}

async fn approvals(shared: &Shared, chat: i64) {
    match shared
        .deps
        .approvals
        .list(Some(ActionStatus::Pending), LISTED)
        .await
    {
        Ok(list) if list.is_empty() => {
            send::notice(shared, chat, "Nothing waits for your approval.").await
        }
        Ok(list) => {
            for action in list {
                card_view::post(shared, chat, &action.id, &action.trace_id).await;
            }
        }
        Err(_) => {
            send::notice(
                shared,
                chat,
                "Approvals could not be read; see the server log.",
            )
            .await
        }
    }
}

async fn switch_model(shared: &Shared, principal: &Principal, name: &str) -> String {
    if !shared.deps.model_switch {
        return "Switching the model from Telegram is off (telegram.model_switch).".to_owned();
    }
    match shared.deps.settings.set(principal, "model", name).await {
        Ok(view) => format!(
            "From the next message I answer with {}.",
            view.value.unwrap_or_else(|| name.to_owned())
        ),
        Err(e) => format!("Not switched: {e}"),
    }
}

async fn memory(shared: &Shared, principal: &Principal) -> String {
    match shared.deps.memory.facts(principal, FACTS_LISTED, 0).await {
        Ok(facts) if facts.is_empty() => "I don't remember anything about you yet.".to_owned(),
        Ok(facts) => {
            let mut text =
                String::from("What I remember (the first few; the web app lists all):\n");
            for fact in facts {
                text.push_str(&format!("\n• {}: {}", fact.key, fact.value));
            }
            text
        }
        Err(e) => format!("Memory could not be read: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_with_a_bot_suffix_and_arguments() {
        assert_eq!(parse("/start"), Some(Command::Start));
        assert_eq!(parse("  /help  "), Some(Command::Help));
        assert_eq!(parse("/new@steward_bot"), Some(Command::New));
        assert_eq!(parse("/STATUS"), Some(Command::Status));
        assert_eq!(parse("/model"), Some(Command::Model(None)));
        assert_eq!(
            parse("/model openai:gpt-4.1-mini"),
            Some(Command::Model(Some("openai:gpt-4.1-mini".to_owned())))
        );
        assert_eq!(parse("/model   "), Some(Command::Model(None)));
        assert_eq!(parse("/approvals"), Some(Command::Approvals));
        assert_eq!(parse("/memory"), Some(Command::Memory));
        assert_eq!(
            parse("hello /start"),
            None,
            "only a message that starts with one"
        );
        assert_eq!(parse("hello"), None);
    }

    #[test]
    fn an_unknown_command_is_named_short() {
        match parse(&format!("/{}", "x".repeat(500))) {
            Some(Command::Unknown(name)) => assert_eq!(name.chars().count(), 32),
            other => panic!("{other:?}"),
        }
        assert_eq!(parse("/"), Some(Command::Unknown(String::new())));
    }
}
