//! `steward memory ...`: list, set, edit, delete and search what Steward remembers, and run
//! reflection, retention and the embedding backfill by hand.
//!
//! Owns: the subcommands, their output (one item per line, stored text made safe for a
//! terminal) and exit codes: 0 done, 1 failed, refused or not found, 2 bad usage (clap).
//! Opens the store and builds a `Memory` as the server does (`memory_wiring`), without the
//! agent; browsing and editing go through `steward_core::MemoryDesk` for the local user
//! (`local_user`), like every surface. Does not own: any check of keys, tags or texts (the
//! desk), memory logic, source trust or the gate (`steward_memory`), or storage.

mod browse;
mod upkeep;

use crate::config::{LoadedConfig, Settings};
use crate::{app, memory_wiring};
use anyhow::Context;
use clap::Subcommand;
use std::process::ExitCode;
use std::sync::Arc;
use steward_core::memory_desk::{MemoryDeskError, Missing, Unconfirmed};
use steward_core::{MemoryDesk, MemoryService};
use steward_memory::Memory;
use steward_protocol::{MemoryKind, Principal, Provenance};

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// List stored facts in key order, with their source and confidence.
    Facts {
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
    },
    /// Set or delete one fact.
    Fact {
        #[command(subcommand)]
        command: FactCommand,
    },
    /// List notes, newest first.
    Notes {
        /// Only notes with this tag.
        #[arg(long)]
        tag: Option<String>,
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        limit: u32,
    },
    /// Add, edit or delete one note.
    Note {
        #[command(subcommand)]
        command: NoteCommand,
    },
    /// Search everything remembered (full text plus vectors when a model is available). Each
    /// hit says how well it matches ("strong match (61% similar)", "matched by words"); items
    /// below the relevance floor (`memory.min_similarity_percent`) are not listed.
    Search {
        query: String,
        /// Only this kind (repeatable): fact, note, learning, read_later, intention.
        #[arg(long = "kind", value_name = "KIND", value_parser = parse_kind)]
        kinds: Vec<MemoryKind>,
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100))]
        limit: u32,
    },
    /// Reflect on recent conversations (needs a model): update facts, learnings, intentions.
    Reflect {
        /// Look back this many hours.
        #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..=24 * 365))]
        since: u32,
    },
    /// Delete expired facts and facts under a key prefix not seen for a while. A dry run
    /// (prints what would go) unless --apply.
    Retention {
        /// Facts past their expiry.
        #[arg(long)]
        expired: bool,
        /// An exact key prefix (e.g. "episode."); pair each with --unseen-days.
        #[arg(long = "prefix", value_name = "P")]
        prefixes: Vec<String>,
        /// Days unseen for the --prefix in the same position.
        #[arg(long = "unseen-days", value_name = "D", value_parser = clap::value_parser!(u32).range(1..=36_500))]
        unseen_days: Vec<u32>,
        /// Really delete (default: only show what would be deleted).
        #[arg(long)]
        apply: bool,
    },
    /// Compute the vectors that are missing (after a model change or an embedder outage).
    Backfill,
    /// Confirm a fact or note written in a turn that had read untrusted content (listed
    /// as "tainted: … (unconfirmed)"): from then on every conversation may see it.
    Confirm {
        /// fact or note
        #[arg(value_parser = parse_confirmable)]
        kind: MemoryKind,
        /// The row's id (shown by `memory facts` / `memory notes`).
        id: i64,
    },
}

fn parse_confirmable(raw: &str) -> Result<MemoryKind, String> {
    match MemoryKind::parse(raw) {
        Some(k @ (MemoryKind::Fact | MemoryKind::Note)) => Ok(k),
        _ => Err("expected fact or note".to_owned()),
    }
}

#[derive(Debug, Subcommand)]
pub enum FactCommand {
    /// Set a fact as the user's own word (source user: extraction never overwrites it).
    Set { key: String, value: String },
    /// Delete a fact.
    Delete { key: String },
}

#[derive(Debug, Subcommand)]
pub enum NoteCommand {
    /// Add a note.
    Add {
        #[arg(long)]
        title: String,
        body: String,
        /// A tag (repeatable).
        #[arg(long = "tag", value_name = "T")]
        tags: Vec<String>,
    },
    /// Change a note's title, body or tags.
    Edit {
        id: i64,
        #[arg(long)]
        title: Option<String>,
        #[arg(long)]
        body: Option<String>,
        /// Replace the tags with these (repeatable).
        #[arg(long = "tag", value_name = "T")]
        tags: Vec<String>,
    },
    /// Delete a note.
    Delete { id: i64 },
}

fn parse_kind(raw: &str) -> Result<MemoryKind, String> {
    MemoryKind::parse(raw)
        .ok_or_else(|| "expected fact, note, learning, read_later or intention".to_owned())
}

/// What the subcommands work on.
struct Opened {
    /// For the upkeep commands (reflection, retention, backfill).
    memory: Arc<Memory>,
    /// For everything a person browses or edits.
    desk: MemoryService,
    /// Whom they act for: the local user.
    who: Principal,
}

pub async fn run(loaded: &LoadedConfig, command: MemoryCommand) -> anyhow::Result<ExitCode> {
    let settings = &loaded.settings;
    app::init_logging(&app::terminal_log_filter(loaded));
    let opened = open(settings)?;
    match command {
        MemoryCommand::Facts { limit } => browse::facts(&opened, limit as usize).await,
        MemoryCommand::Fact { command } => browse::fact(&opened, command).await,
        MemoryCommand::Notes { tag, limit } => browse::notes(&opened, tag, limit as usize).await,
        MemoryCommand::Note { command } => browse::note(&opened, command).await,
        MemoryCommand::Search {
            query,
            kinds,
            limit,
        } => browse::search(&opened, &query, kinds, limit as usize).await,
        MemoryCommand::Reflect { since } => upkeep::reflect(&opened, settings, since).await,
        MemoryCommand::Retention {
            expired,
            prefixes,
            unseen_days,
            apply,
        } => upkeep::retention(&opened, expired, prefixes, unseen_days, apply).await,
        MemoryCommand::Backfill => upkeep::backfill(&opened).await,
        MemoryCommand::Confirm { kind, id } => {
            let row = Unconfirmed::Row(steward_protocol::MemoryRef { kind, id });
            match opened.desk.confirm(&opened.who, row).await {
                Ok(()) => {
                    println!(
                        "confirmed {} {id}: every conversation may now see it",
                        kind.as_str()
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(MemoryDeskError::NotFound(_)) => failure(format_args!(
                    "no unconfirmed {} with id {id}",
                    kind.as_str()
                )),
                Err(e) => failure(e),
            }
        }
    }
}

/// The store and a `Memory` built from the configuration as `steward serve` builds it (the
/// embedder named by memory.embedder; none when the local model files are missing).
fn open(settings: &Settings) -> anyhow::Result<Opened> {
    std::fs::create_dir_all(&settings.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {} (set STEWARD_DATA_DIR to a writable place)",
            settings.data_dir.display()
        )
    })?;
    let clock = app::clock();
    let store = app::open_store(settings, clock.clone())?;
    let memory = memory_wiring::build_memory(settings, store, clock)?;
    Ok(Opened {
        desk: MemoryService::new(memory.clone()),
        memory,
        who: crate::local_user::principal(settings)?,
    })
}

/// Stored text for a terminal: control characters (escape sequences, line breaks) are
/// shown escaped, so remembered text can neither drive the terminal nor fake extra lines.
pub fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn origin(p: &Provenance) -> String {
    match p {
        Provenance::User { .. } => "user".to_owned(),
        Provenance::Assistant { .. } => "assistant".to_owned(),
        Provenance::ToolOutput { tool } => format!("tool:{}", terminal_safe(tool)),
        Provenance::Fetched { url } => format!("fetched:{}", terminal_safe(url)),
        Provenance::Reflection => "reflection".to_owned(),
        Provenance::Tainted { sources, .. } => {
            let s = sources.join(",");
            format!("tainted:{} (unconfirmed)", terminal_safe(&s))
        }
    }
}

fn failure(message: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {message}");
    Ok(ExitCode::FAILURE)
}

/// A desk refusal in the terminal's words: `missing` names what was not found (the
/// terminal's own wording, with the key or id the person typed); anything else is the
/// desk's message, the same on every surface.
fn refused(
    err: MemoryDeskError,
    missing: impl FnOnce(Missing) -> String,
) -> anyhow::Result<ExitCode> {
    match err {
        MemoryDeskError::NotFound(what) => failure(missing(what)),
        other => failure(other),
    }
}

fn snippet(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    }
}
