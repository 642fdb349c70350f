//! `steward approvals list|show|confirm|cancel`: decide, from the terminal, an action that
//! any surface raised (an HTTP turn, the web app, Telegram later), through the same
//! `ApprovalDesk::resolve` every surface uses. A confirm is bound to the revision this command
//! shows (or the one `--revision` names), so a card revised meanwhile never runs unseen.
//!
//! Owns: the command's wording and exit codes. Does not own the decision rules (steward-core).

use crate::app;
use crate::config::LoadedConfig;
use std::process::ExitCode;
use steward_core::{ApprovalDesk, Resolution, Steward};
use steward_protocol::{ActionStatus, Decision, PendingAction, Principal, Surface};

#[derive(clap::Subcommand)]
pub enum ApprovalsCommand {
    /// Actions waiting for a decision, newest first.
    List,
    /// One action's card.
    Show { id: String },
    /// Run the action (prints its card first). The follow-up answer is printed.
    Confirm {
        id: String,
        /// Only if the card is still at this revision (as shown by `list` or `show`).
        #[arg(long)]
        revision: Option<u32>,
    },
    /// Cancel the action: it never runs.
    Cancel { id: String },
}

pub async fn run(loaded: &LoadedConfig, command: ApprovalsCommand) -> anyhow::Result<ExitCode> {
    app::init_file_logging(
        &app::terminal_log_filter(loaded),
        &app::log_path(&loaded.settings),
    );
    let app = app::build(loaded, app::Overrides::default()).await?;
    let steward = app.steward.clone();
    // The terminal's authentication: the local user who runs it.
    let who = crate::local_user::principal(&loaded.settings)?;
    let code = match command {
        ApprovalsCommand::List => list(&steward).await?,
        ApprovalsCommand::Show { id } => match pending(&steward, &id).await? {
            Some(action) => {
                println!("{}", steward.card(&action, None).text);
                ExitCode::SUCCESS
            }
            None => ExitCode::FAILURE,
        },
        ApprovalsCommand::Confirm { id, revision } => {
            confirm(&steward, &who, &id, revision).await?
        }
        ApprovalsCommand::Cancel { id } => decide(&steward, &who, &id, Decision::Cancel).await?,
    };
    steward.shutdown(loaded.settings.shutdown_grace).await;
    Ok(code)
}

async fn list(steward: &Steward) -> anyhow::Result<ExitCode> {
    let actions = steward
        .list(Some(ActionStatus::Pending), 100)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if actions.is_empty() {
        println!("Nothing awaits a decision.");
    }
    for a in &actions {
        let card = steward.card(a, Some(200));
        let first = card.text.lines().next().unwrap_or_default().to_owned();
        println!(
            "{}  revision {}  {}  (conversation {}, from {})",
            a.id,
            a.revision,
            first,
            a.conversation,
            a.surface.as_str()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The action if it exists; says why not otherwise.
async fn pending(steward: &Steward, id: &str) -> anyhow::Result<Option<PendingAction>> {
    match steward.get(id).await.map_err(|e| anyhow::anyhow!("{e}"))? {
        Some(a) => Ok(Some(a)),
        None => {
            eprintln!("No action {id:?}. `steward approvals list` shows those waiting.");
            Ok(None)
        }
    }
}

async fn confirm(
    steward: &Steward,
    who: &Principal,
    id: &str,
    revision: Option<u32>,
) -> anyhow::Result<ExitCode> {
    let Some(action) = pending(steward, id).await? else {
        return Ok(ExitCode::FAILURE);
    };
    let card = steward.card(&action, None);
    eprintln!("{}", card.text);
    // Bound to what was shown: this card, or the revision the owner saw earlier.
    let revision = revision.unwrap_or(card.revision);
    decide(steward, who, id, Decision::Confirm { revision }).await
}

async fn decide(
    steward: &Steward,
    who: &Principal,
    id: &str,
    decision: Decision,
) -> anyhow::Result<ExitCode> {
    let resolution = steward
        .resolve(id, decision, who.clone(), Surface::Cli)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    eprintln!("→ {}", crate::chat::resolution_words(&resolution));
    match resolution {
        Resolution::Applied { follow_up, .. } => {
            if let Some(turn) = follow_up {
                crate::chat::print_turn(turn).await;
            }
            Ok(ExitCode::SUCCESS)
        }
        Resolution::AlreadyDone { .. } => Ok(ExitCode::SUCCESS),
        Resolution::Conflict { .. } => Ok(ExitCode::FAILURE),
        Resolution::Stale { .. } => {
            eprintln!("  `steward approvals show {id}` shows the current card");
            Ok(ExitCode::FAILURE)
        }
    }
}
