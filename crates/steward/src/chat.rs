//! `steward chat`: the terminal surface. Streams the answer to stdout and tool progress to
//! stderr, so `steward chat -m "…" > answer.txt` captures only the answer.

use crate::app;
use crate::config::LoadedConfig;
use std::io::Write;
use std::process::ExitCode;
use steward_core::{ApprovalDesk, Assistant, Resolution, Steward, TurnStream};
use steward_protocol::{
    ActionCard, ConversationId, Decision, Inbound, Principal, Surface, TurnEvent,
};
use tokio::io::{AsyncBufReadExt, BufReader};

type Lines = tokio::io::Lines<BufReader<tokio::io::Stdin>>;

pub async fn run(
    loaded: &LoadedConfig,
    message: Option<String>,
    conversation: &str,
    auto_approve: bool,
) -> anyhow::Result<ExitCode> {
    // Keep the terminal for the conversation: only warnings unless STEWARD_LOG says otherwise.
    let filter = std::env::var("STEWARD_LOG").unwrap_or_else(|_| "warn".to_owned());
    app::init_logging(&filter);
    let mut conversation = ConversationId::parse(conversation)
        .map_err(|e| anyhow::anyhow!("invalid --conversation: {e}"))?;
    let app = app::build(
        loaded,
        app::Overrides {
            cli_auto_approve: auto_approve,
        },
    )?;
    let steward = app.steward.clone();
    steward
        .start_approvals(loaded.settings.approvals.sweep)
        .await
        .map_err(|e| anyhow::anyhow!("cannot start the approval gate: {e}"))?;
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let code = match message {
        Some(text) => {
            if converse(&steward, &conversation, text, &mut lines).await {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        None => {
            interactive(&steward, &mut conversation, &mut lines).await?;
            ExitCode::SUCCESS
        }
    };
    steward.shutdown(loaded.settings.shutdown_grace).await;
    Ok(code)
}

async fn interactive(
    steward: &Steward,
    conversation: &mut ConversationId,
    lines: &mut Lines,
) -> anyhow::Result<()> {
    let label = steward
        .model_label()
        .unwrap_or_else(|| "no model configured".into());
    eprintln!(
        "Steward chat — conversation {conversation}, model {label}. /new starts a thread, /exit quits."
    );
    loop {
        eprint!("› ");
        let Some(line) = lines.next_line().await? else {
            eprintln!();
            return Ok(());
        };
        let text = line.trim();
        match text {
            "" => continue,
            "/exit" | "/quit" => return Ok(()),
            "/new" => {
                let id = format!("cli-{}", unix_millis());
                *conversation = ConversationId::parse(&id)?;
                eprintln!("New conversation {conversation}.");
                continue;
            }
            "/help" => {
                eprintln!("/new — start a new conversation · /exit — quit");
                continue;
            }
            _ => {}
        }
        converse(steward, conversation, text.to_owned(), lines).await;
    }
}

enum Answer {
    Yes,
    No,
    Edit(String),
    Later,
}

/// Show a card and read the decision from the terminal, in place.
async fn ask(card: &ActionCard, lines: &mut Lines) -> Answer {
    eprintln!("\n┌ approval needed ─ {}\n{}\n└", card.tool, card.text);
    if !card.confirmable {
        eprintln!("This card is too long to show here; decide it via the API.");
        return Answer::Later;
    }
    eprint!("Approve? [y]es / [n]o / [e]dit / [l]ater: ");
    let Ok(Some(answer)) = lines.next_line().await else {
        return Answer::Later;
    };
    match answer.trim().to_lowercase().as_str() {
        "y" | "yes" => Answer::Yes,
        "n" | "no" => Answer::No,
        "e" | "edit" => {
            eprint!("Describe the change: ");
            match lines.next_line().await {
                Ok(Some(change)) if !change.trim().is_empty() => Answer::Edit(change),
                _ => Answer::Later,
            }
        }
        _ => Answer::Later,
    }
}

/// One message, then any approval cards it raised answered in place, following the agent
/// as it continues. Returns whether the last turn ended with an answer.
async fn converse(
    steward: &Steward,
    conversation: &ConversationId,
    text: String,
    lines: &mut Lines,
) -> bool {
    let mut stream = steward.submit(Inbound::new(
        conversation.clone(),
        Principal::owner(),
        Surface::Cli,
        text,
    ));
    loop {
        let (ok, cards) = print_turn(stream).await;
        let mut next = None;
        for card in &cards {
            if next.is_some() {
                eprintln!("Left pending: {} (id {}).", card.tool, card.action_id);
                continue;
            }
            next = decide(steward, conversation, card, lines).await;
        }
        match next {
            Some(rx) => stream = rx,
            None => return ok,
        }
    }
}

async fn decide(
    steward: &Steward,
    conversation: &ConversationId,
    card: &ActionCard,
    lines: &mut Lines,
) -> Option<TurnStream> {
    let mut card = card.clone();
    loop {
        let decision = match ask(&card, lines).await {
            // Binds the approval to the revision this terminal just showed.
            Answer::Yes => Decision::Confirm {
                revision: card.revision,
            },
            Answer::No => Decision::Cancel,
            Answer::Later => {
                eprintln!(
                    "Left pending (id {}); it expires if nobody decides.",
                    card.action_id
                );
                return None;
            }
            Answer::Edit(change) => {
                if let Err(e) = steward
                    .request_edit(&card.action_id, Principal::owner(), Surface::Cli)
                    .await
                {
                    eprintln!("error: {e}");
                    return None;
                }
                return Some(steward.submit(Inbound::new(
                    conversation.clone(),
                    Principal::owner(),
                    Surface::Cli,
                    change,
                )));
            }
        };
        match steward
            .resolve(&card.action_id, decision, Principal::owner(), Surface::Cli)
            .await
        {
            Ok(Resolution::Applied { action, follow_up }) => {
                eprintln!("  → {}", action.status.as_str());
                return follow_up;
            }
            Ok(Resolution::AlreadyDone { action }) => {
                eprintln!("  → already {}", action.status.as_str());
                return None;
            }
            Ok(Resolution::Conflict { action }) => {
                eprintln!("  → not applied: the action is {}", action.status.as_str());
                return None;
            }
            Ok(Resolution::Stale { action }) => {
                // Revised elsewhere while this card was on screen: show the current one.
                eprintln!(
                    "  → not run: the card changed since it was shown (now revision {})",
                    action.revision
                );
                card = steward.card(&action, None);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return None;
            }
        }
    }
}

/// Prints one turn as it streams. Returns whether it ended with an answer, and its cards.
async fn print_turn(mut events: TurnStream) -> (bool, Vec<ActionCard>) {
    let mut out = std::io::stdout();
    let mut streamed = false;
    let mut cards = Vec::new();
    while let Some(event) = events.recv().await {
        match event {
            TurnEvent::Started { .. } => {}
            TurnEvent::TextDelta { text } => {
                streamed = true;
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            TurnEvent::ToolStarted { name, touched, .. } => {
                if streamed {
                    let _ = writeln!(out);
                    streamed = false;
                }
                match touched {
                    // What the call touches, made terminal-safe (it may come from the model).
                    Some(t) => eprintln!(
                        "  ⚙ {name}: {} …",
                        truncate(&crate::memory_cmd::terminal_safe(&t), 160)
                    ),
                    None => eprintln!("  ⚙ {name} …"),
                }
            }
            TurnEvent::ToolFinished {
                name, ok, output, ..
            } => {
                let first_line = output.lines().next().unwrap_or("");
                let mark = if ok { "✓" } else { "✗" };
                eprintln!("  {mark} {name}: {}", truncate(first_line, 120));
            }
            TurnEvent::ApprovalRequired { card } => cards.push(card),
            TurnEvent::Final { text, .. } => {
                // Providers that do not stream (or a model set to non-streaming) arrive whole.
                if !streamed {
                    let _ = out.write_all(text.as_bytes());
                }
                let _ = writeln!(out);
                let _ = out.flush();
                return (true, cards);
            }
            TurnEvent::Failed { message, .. } => {
                if streamed {
                    let _ = writeln!(out);
                }
                eprintln!("error: {message}");
                return (false, cards);
            }
        }
    }
    eprintln!("error: the turn ended without an answer");
    (false, cards)
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn unix_millis() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}
