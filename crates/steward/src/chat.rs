//! `steward chat`: the terminal surface. Streams the answer to stdout and tool progress to
//! stderr, so `steward chat -m "…" > answer.txt` captures only the answer.
//!
//! The terminal belongs to the conversation: logs go to `<data dir>/steward.log` (see
//! `app::init_file_logging`), so no log line lands in a card or a prompt. A card stays on
//! screen until it is decided: after an edit that fails or is refused, the unchanged card is
//! shown again with its choices, so the next `y` confirms it rather than reaching the model.

use crate::app;
use crate::config::LoadedConfig;
use std::io::Write;
use std::process::ExitCode;
use steward_core::{
    ApprovalDesk, Assistant, Change, Resolution, Steward, ToolStatus, TurnEnd, TurnStream, TurnView,
};
use steward_protocol::{
    ActionCard, ActionStatus, Clock, ConversationId, Decision, Inbound, Principal, Surface,
    TurnEvent,
};
use tokio::io::{AsyncBufReadExt, BufReader};

type Lines = tokio::io::Lines<BufReader<tokio::io::Stdin>>;

pub async fn run(
    loaded: &LoadedConfig,
    message: Option<String>,
    conversation: &str,
    auto_approve: bool,
) -> anyhow::Result<ExitCode> {
    // Keep the terminal for the conversation: only warnings unless `log` says otherwise,
    // and in the log file, never between a prompt and its answer.
    let filter = app::terminal_log_filter(loaded);
    let log = app::log_path(&loaded.settings);
    let logging_to_file = app::init_file_logging(&filter, &log);
    let mut conversation = ConversationId::parse(conversation)
        .map_err(|e| anyhow::anyhow!("invalid --conversation: {e}"))?;
    let app = app::build(
        loaded,
        app::Overrides {
            cli_auto_approve: auto_approve,
        },
    )
    .await?;
    let steward = app.steward.clone();
    // The terminal's authentication: the local user who runs it.
    let who = crate::local_user::principal(&loaded.settings)?;
    // No scheduler runs in the terminal: the desk sweeps expired cards itself.
    steward
        .start_approvals(Some(loaded.settings.approvals.sweep))
        .await
        .map_err(|e| anyhow::anyhow!("cannot start the approval gate: {e}"))?;
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let stop = tokio_util::sync::CancellationToken::new();
    let code = match message {
        Some(text) => {
            if converse(&steward, &who, &conversation, text, &mut lines).await {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        None => {
            if logging_to_file {
                eprintln!("Logs: {}", log.display());
            }
            // While the terminal is open, reminders due reach it (and Telegram, when a bot
            // is set up) even with no `steward serve` running; with one running, the two
            // share the work through their leases.
            app.steward
                .register_delivery(Surface::Cli, std::sync::Arc::new(TerminalNotice));
            let memory: std::sync::Arc<dyn steward_core::MemoryDesk> =
                std::sync::Arc::new(steward_core::MemoryService::new(app.memory.clone()));
            crate::telegram_wiring::register_deliverer_only(&app, &loaded.settings, memory)?;
            let effective = app::effective(loaded, &*app.store).await?;
            crate::jobs_wiring::start_these(&app, &effective, &stop, |name| name == "reminders")?;
            interactive(
                &steward,
                &who,
                app.clock.as_ref(),
                &mut conversation,
                &mut lines,
            )
            .await?;
            ExitCode::SUCCESS
        }
    };
    stop.cancel();
    steward.shutdown(loaded.settings.shutdown_grace).await;
    // MCP sessions end properly, as in `serve`: DELETE for HTTP servers, SIGTERM to stdio
    // servers' process groups.
    if let Some(mcp) = &app.mcp
        && !mcp
            .shutdown_and_wait(std::time::Duration::from_secs(5))
            .await
    {
        tracing::warn!("some MCP sessions did not end in time; exiting anyway");
    }
    Ok(code)
}

async fn interactive(
    steward: &Steward,
    who: &Principal,
    clock: &dyn Clock,
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
                let id = format!("cli-{}", clock.now_ms());
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
        converse(steward, who, conversation, text.to_owned(), lines).await;
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
    who: &Principal,
    conversation: &ConversationId,
    text: String,
    lines: &mut Lines,
) -> bool {
    let mut stream = steward.submit(Inbound::new(
        conversation.clone(),
        who.clone(),
        Surface::Cli,
        text,
    ));
    // The action whose edit the current turn carries, if it does.
    let mut editing: Option<String> = None;
    loop {
        let (ok, mut cards) = print_turn(stream).await;
        if let Some(id) = editing.take()
            && cards.is_empty()
            && let Some(card) = still_pending(steward, &id).await
        {
            // The edit failed or was refused: the action waits, so its card comes back.
            cards.push(card);
        }
        let mut next = Next::Done;
        for card in &cards {
            if !matches!(next, Next::Done) {
                eprintln!("Left pending: {} (id {}).", card.tool, card.action_id);
                continue;
            }
            next = decide(steward, who, conversation, card, lines).await;
        }
        match next {
            Next::Turn(rx) => stream = rx,
            Next::Edit { action_id, turn } => {
                editing = Some(action_id);
                stream = turn;
            }
            Next::Done => return ok,
        }
    }
}

/// What deciding a card leads to.
enum Next {
    /// A turn to follow: the agent going on after a confirm.
    Turn(TurnStream),
    /// The turn that revises `action_id` in words; if it shows no new card, the action is
    /// shown again.
    Edit {
        action_id: String,
        turn: TurnStream,
    },
    Done,
}

/// The action's card as it is now, if it still awaits a decision.
async fn still_pending(steward: &Steward, id: &str) -> Option<ActionCard> {
    match steward.get(id).await {
        Ok(Some(action)) if action.status == ActionStatus::Pending => {
            Some(steward.card(&action, None))
        }
        _ => None,
    }
}

async fn decide(
    steward: &Steward,
    who: &Principal,
    conversation: &ConversationId,
    card: &ActionCard,
    lines: &mut Lines,
) -> Next {
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
                return Next::Done;
            }
            Answer::Edit(change) => {
                if let Err(e) = steward
                    .request_edit(&card.action_id, who.clone(), Surface::Cli)
                    .await
                {
                    eprintln!("  → cannot edit: {e}");
                    // Refused, yet perhaps still pending: then decide it here and now.
                    match still_pending(steward, &card.action_id).await {
                        Some(current) => {
                            card = current;
                            continue;
                        }
                        None => return Next::Done,
                    }
                }
                return Next::Edit {
                    action_id: card.action_id.clone(),
                    turn: steward.submit(Inbound::new(
                        conversation.clone(),
                        who.clone(),
                        Surface::Cli,
                        change,
                    )),
                };
            }
        };
        match steward
            .resolve(&card.action_id, decision, who.clone(), Surface::Cli)
            .await
        {
            Ok(resolution) => {
                eprintln!("  → {}", resolution_words(&resolution));
                match resolution {
                    Resolution::Applied { follow_up, .. } => {
                        return follow_up.map_or(Next::Done, Next::Turn);
                    }
                    // Revised elsewhere while this card was on screen: show the current one.
                    Resolution::Stale { action } => card = steward.card(&action, None),
                    Resolution::AlreadyDone { .. } | Resolution::Conflict { .. } => {
                        return Next::Done;
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                return Next::Done;
            }
        }
    }
}

/// What a decision came to, in the terminal's words (`chat` and `steward approvals`).
pub(crate) fn resolution_words(resolution: &Resolution) -> String {
    match resolution {
        Resolution::Applied { action, .. } => action.status.as_str().to_owned(),
        Resolution::AlreadyDone { action } => format!("already {}", action.status.as_str()),
        Resolution::Conflict { action } => {
            format!("not applied: the action is {}", action.status.as_str())
        }
        Resolution::Stale { action } => format!(
            "not run: the card changed since it was shown (now revision {})",
            action.revision
        ),
    }
}

/// Prints one turn as it streams. Returns whether it ended with an answer, and its cards.
pub(crate) async fn print_turn(mut events: TurnStream) -> (bool, Vec<ActionCard>) {
    let mut painter = Painter::new(std::io::stdout(), std::io::stderr());
    while let Some(event) = events.recv().await {
        if painter.apply(event) {
            break;
        }
    }
    painter.finish()
}

/// The terminal's painting of `TurnView`'s changes: the answer on `out`, tool progress and
/// errors on `err` (so `chat -m … > answer.txt` captures only the answer).
struct Painter<O: Write, E: Write> {
    out: O,
    err: E,
    view: TurnView,
    /// Streamed text is on the current line of `out`.
    streamed: bool,
}

impl<O: Write, E: Write> Painter<O, E> {
    fn new(out: O, err: E) -> Self {
        Self {
            out,
            err,
            view: TurnView::default(),
            streamed: false,
        }
    }

    /// Paint one event; true once the turn ended.
    fn apply(&mut self, event: TurnEvent) -> bool {
        match self.view.apply(event) {
            Change::Started | Change::Card(_) => false,
            Change::Text(text) => {
                self.streamed = true;
                // Line breaks and tabs stay; an escape sequence (from a page the model
                // quoted, say) is shown, never obeyed by the terminal.
                let text = answer_safe(&text);
                let _ = self.out.write_all(text.as_bytes());
                let _ = self.out.flush();
                false
            }
            Change::ToolStarted(i) => {
                if self.streamed {
                    let _ = writeln!(self.out);
                    self.streamed = false;
                }
                let t = &self.view.tools[i];
                let _ = match &t.touched {
                    // What the call touches, made terminal-safe (it may come from the model).
                    Some(touched) => writeln!(
                        self.err,
                        "  ⚙ {}: {} …",
                        t.name,
                        truncate(&crate::memory_cmd::terminal_safe(touched), 160)
                    ),
                    None => writeln!(self.err, "  ⚙ {} …", t.name),
                };
                false
            }
            Change::ToolFinished(i) => {
                let t = &self.view.tools[i];
                let first_line = t
                    .output
                    .as_deref()
                    .and_then(|o| o.lines().next())
                    .unwrap_or("");
                let mark = if t.status == ToolStatus::Ok {
                    "✓"
                } else {
                    "✗"
                };
                let _ = writeln!(
                    self.err,
                    "  {mark} {}: {}",
                    t.name,
                    truncate(&crate::memory_cmd::terminal_safe(first_line), 120)
                );
                false
            }
            Change::Ended => true,
        }
    }

    /// Whether the turn answered, and the cards it raised.
    fn finish(mut self) -> (bool, Vec<ActionCard>) {
        self.view.close();
        let answered = match &self.view.end {
            Some(TurnEnd::Final { text, .. }) => {
                // Providers that do not stream (or a model set to non-streaming) arrive whole.
                if !self.streamed {
                    let _ = self.out.write_all(text.as_bytes());
                }
                let _ = writeln!(self.out);
                let _ = self.out.flush();
                true
            }
            Some(TurnEnd::Failed { message, .. }) => {
                if self.streamed {
                    let _ = writeln!(self.out);
                }
                let _ = writeln!(self.err, "error: {message}");
                false
            }
            Some(TurnEnd::Vanished) | None => {
                let _ = writeln!(self.err, "error: the turn ended without an answer");
                false
            }
        };
        (answered, self.view.cards)
    }
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// Answer text as the terminal may print it: line breaks and tabs kept, every other control
/// character (ESC above all) shown as its escape instead of acted on.
fn answer_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\t'))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    text.split('\n')
        .map(|line| {
            line.split('\t')
                .map(crate::memory_cmd::terminal_safe)
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect::<Vec<_>>()
        .join("\n")
        .into()
}

/// A proactive message for the terminal, printed where the owner is typing (stderr, so an
/// answer piped to a file stays clean), its text made safe for the terminal line by line.
struct TerminalNotice;

#[async_trait::async_trait]
impl steward_core::Deliver for TerminalNotice {
    async fn deliver(
        &self,
        target: &steward_core::DeliveryTarget,
        message: &steward_core::Proactive,
    ) -> Result<(), String> {
        let text: Vec<String> = message
            .text
            .lines()
            .map(crate::memory_cmd::terminal_safe)
            .collect();
        let mut notice = format!(
            "\n🔔 {}\n   (conversation {})",
            text.join("\n   "),
            target.conversation
        );
        if !message.cards.is_empty() {
            notice.push_str("\n   A card waits for you: `steward approvals`, or the web app.");
        }
        eprint!("{notice}\n› ");
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

#[cfg(test)]
mod pinning {
    use super::*;
    use steward_testkit::pinning::{PINNED_CARD, PINNED_TEXT, PINNED_TOOLS, pinning_turn};

    /// An answer's escape sequences (and a tool output's) are shown, never sent to the
    /// terminal raw; its line breaks and tabs stay.
    #[test]
    fn escape_sequences_in_an_answer_or_a_tool_output_never_reach_the_terminal() {
        let conv = ConversationId::parse("esc").unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut painter = Painter::new(&mut out, &mut err);
        painter.apply(TurnEvent::Started {
            conversation_id: conv.clone(),
            turn_id: steward_protocol::TurnId::from_u128(7),
        });
        painter.apply(TurnEvent::ToolStarted {
            call_id: "c1".into(),
            name: "fetch_url".into(),
            arguments: "{}".into(),
            touched: None,
        });
        painter.apply(TurnEvent::ToolFinished {
            call_id: "c1".into(),
            name: "fetch_url".into(),
            ok: true,
            output: "page \u{1b}]0;owned\u{7} title".into(),
        });
        painter.apply(TurnEvent::TextDelta {
            text: "line one\n\tline \u{1b}[2J two".into(),
        });
        let out = String::from_utf8(out).unwrap();
        let err = String::from_utf8(err).unwrap();
        assert!(
            !out.contains('\u{1b}') && !err.contains('\u{1b}'),
            "{out:?} {err:?}"
        );
        assert!(out.contains("line one\n\tline \\u{1b}[2J two"), "{out:?}");
        assert!(err.contains("\\u{1b}]0;owned"), "{err:?}");
    }

    /// The terminal shows the pinning turn as every surface must: the answer, each call with
    /// what it touched and how it ended, the card.
    #[test]
    fn the_terminal_paints_the_pinning_turn() {
        let conv = ConversationId::parse("pin").unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut painter = Painter::new(&mut out, &mut err);
        for ev in pinning_turn(&conv) {
            if painter.apply(ev) {
                break;
            }
        }
        let (answered, cards) = painter.finish();
        assert!(answered);
        assert_eq!(cards.len(), 1);
        assert_eq!(cards[0].action_id, PINNED_CARD);
        let out = String::from_utf8(out).unwrap();
        let err = String::from_utf8(err).unwrap();
        // The streamed pieces, split by the tool lines, make up the answer.
        assert_eq!(out.replace('\n', ""), PINNED_TEXT, "{out:?}");
        for (name, ok, touched) in PINNED_TOOLS {
            assert!(err.contains(&format!("⚙ {name}: {touched} …")), "{err}");
            let mark = if *ok { "✓" } else { "✗" };
            assert!(err.contains(&format!("{mark} {name}:")), "{err}");
        }
    }
}
