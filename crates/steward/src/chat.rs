//! `steward chat`: the terminal surface. Streams the answer to stdout and tool progress to
//! stderr, so `steward chat -m "…" > answer.txt` captures only the answer.

use crate::app;
use crate::config::LoadedConfig;
use std::io::Write;
use std::process::ExitCode;
use steward_core::{Assistant, Steward};
use steward_protocol::{ConversationId, Inbound, Principal, Surface, TurnEvent};
use tokio::io::{AsyncBufReadExt, BufReader};

pub async fn run(
    loaded: &LoadedConfig,
    message: Option<String>,
    conversation: &str,
) -> anyhow::Result<ExitCode> {
    // Keep the terminal for the conversation: only warnings unless STEWARD_LOG says otherwise.
    let filter = std::env::var("STEWARD_LOG").unwrap_or_else(|_| "warn".to_owned());
    app::init_logging(&filter);
    let mut conversation = ConversationId::parse(conversation)
        .map_err(|e| anyhow::anyhow!("invalid --conversation: {e}"))?;
    let app = app::build(loaded)?;
    let steward = app.steward.clone();
    let code = match message {
        Some(text) => {
            if one_turn(&steward, &conversation, text).await {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        None => {
            interactive(&steward, &mut conversation).await?;
            ExitCode::SUCCESS
        }
    };
    steward.shutdown(loaded.settings.shutdown_grace).await;
    Ok(code)
}

async fn interactive(steward: &Steward, conversation: &mut ConversationId) -> anyhow::Result<()> {
    let label = steward
        .model_label()
        .unwrap_or_else(|| "no model configured".into());
    eprintln!(
        "Steward chat — conversation {conversation}, model {label}. /new starts a thread, /exit quits."
    );
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
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
        one_turn(steward, conversation, text.to_owned()).await;
    }
}

/// Runs one turn, printing as it streams. Returns whether it ended with an answer.
async fn one_turn(steward: &Steward, conversation: &ConversationId, text: String) -> bool {
    let mut events = steward.submit(Inbound {
        conversation: conversation.clone(),
        principal: Principal::owner(),
        surface: Surface::Cli,
        text,
    });
    let mut out = std::io::stdout();
    let mut streamed = false;
    while let Some(event) = events.recv().await {
        match event {
            TurnEvent::Started { .. } => {}
            TurnEvent::TextDelta { text } => {
                streamed = true;
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            TurnEvent::ToolStarted { name, .. } => {
                if streamed {
                    let _ = writeln!(out);
                    streamed = false;
                }
                eprintln!("  ⚙ {name} …");
            }
            TurnEvent::ToolFinished {
                name, ok, output, ..
            } => {
                let first_line = output.lines().next().unwrap_or("");
                let mark = if ok { "✓" } else { "✗" };
                eprintln!("  {mark} {name}: {}", truncate(first_line, 120));
            }
            TurnEvent::Final { text, .. } => {
                // Providers that do not stream (or a model set to non-streaming) arrive whole.
                if !streamed {
                    let _ = out.write_all(text.as_bytes());
                }
                let _ = writeln!(out);
                let _ = out.flush();
                return true;
            }
            TurnEvent::Failed { message, .. } => {
                if streamed {
                    let _ = writeln!(out);
                }
                eprintln!("error: {message}");
                return false;
            }
        }
    }
    eprintln!("error: the turn ended without an answer");
    false
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
