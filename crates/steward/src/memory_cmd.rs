//! `steward memory ...`: list, set, edit, delete and search what Steward remembers, and run
//! reflection, retention and the embedding backfill by hand.
//!
//! Owns: the subcommands, their output (one item per line, stored text made safe for a
//! terminal) and exit codes: 0 done, 1 failed or not found, 2 bad usage (clap). Opens the
//! store and builds a `Memory` itself (with the local model when its files are present).
//! Does not own: memory logic, source trust or the gate (`steward_memory`), or storage.

use crate::app;
use crate::config::{LoadedConfig, Settings, provider_configs};
use anyhow::{Context, bail};
use clap::Subcommand;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use steward_llm::{ModelRef, Models, RetryPolicy};
use steward_memory::embed::{Embedder, LocalMiniLm, default_model_dir};
use steward_memory::{Memory, MemoryConfig, RecallOptions, RetentionPlan};
use steward_protocol::{Fact, FactSource, MemoryKind, Provenance};
use steward_store::{MemoryFilter, NewNote, NoteEdit, SqliteStore};

/// The only principal there is for now.
const OWNER: &str = "owner";
/// Vectors filled per backfill round; rounds repeat until nothing is missing.
const BACKFILL_BATCH: usize = 256;
const MAX_BACKFILL_ROUNDS: usize = 10_000;
const DAY_SECS: u64 = 24 * 60 * 60;

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
    /// Search everything remembered (full text plus vectors when a model is available).
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
    memory: Memory,
}

pub async fn run(loaded: &LoadedConfig, command: MemoryCommand) -> anyhow::Result<ExitCode> {
    let settings = &loaded.settings;
    let filter = std::env::var("STEWARD_LOG").unwrap_or_else(|_| "warn".to_owned());
    app::init_logging(&filter);
    let opened = open(settings)?;
    match command {
        MemoryCommand::Facts { limit } => facts(&opened, limit as usize).await,
        MemoryCommand::Fact { command } => fact(&opened, command).await,
        MemoryCommand::Notes { tag, limit } => notes(&opened, tag, limit as usize).await,
        MemoryCommand::Note { command } => note(&opened, command).await,
        MemoryCommand::Search {
            query,
            kinds,
            limit,
        } => search(&opened, &query, kinds, limit as usize).await,
        MemoryCommand::Reflect { since } => reflect(&opened, settings, since).await,
        MemoryCommand::Retention {
            expired,
            prefixes,
            unseen_days,
            apply,
        } => retention(&opened, expired, prefixes, unseen_days, apply).await,
        MemoryCommand::Backfill => backfill(&opened).await,
    }
}

fn open(settings: &Settings) -> anyhow::Result<Opened> {
    std::fs::create_dir_all(&settings.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {} (set STEWARD_DATA_DIR to a writable place)",
            settings.data_dir.display()
        )
    })?;
    let store = Arc::new(SqliteStore::open(&app::database_path(settings))?);
    let memory = Memory::new(store, embedder(settings), MemoryConfig::default());
    Ok(Opened { memory })
}

/// The local model when its files are there; otherwise none, and recall runs on full text.
fn embedder(settings: &Settings) -> Option<Arc<dyn Embedder>> {
    let dir = default_model_dir(&settings.data_dir);
    if !dir.join("model.safetensors").exists() {
        return None;
    }
    match LocalMiniLm::load(&dir) {
        Ok(model) => Some(Arc::new(model)),
        Err(e) => {
            eprintln!("warning: embedding model not loaded ({e}); using full text only");
            None
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
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
    }
}

fn check_key(key: &str) -> anyhow::Result<()> {
    let ok = !key.is_empty()
        && key.len() <= 64
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.');
    if !ok {
        bail!("invalid key {:?}: use 1 to 64 of a-z, 0-9, _ and . (e.g. home.city)", terminal_safe(key));
    }
    Ok(())
}

fn clean_tags(raw: Vec<String>) -> anyhow::Result<Vec<String>> {
    let mut tags: Vec<String> = Vec::with_capacity(raw.len());
    for tag in raw {
        let tag = tag.trim().to_lowercase();
        let ok = !tag.is_empty()
            && tag.len() <= 32
            && tag
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        if !ok {
            bail!("invalid tag {:?}: use 1 to 32 of a-z, 0-9, _ and -", terminal_safe(&tag));
        }
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    Ok(tags)
}

fn failure(message: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {message}");
    Ok(ExitCode::FAILURE)
}

async fn facts(o: &Opened, limit: usize) -> anyhow::Result<ExitCode> {
    let facts = o.memory.list_facts(OWNER, limit, 0).await?;
    if facts.is_empty() {
        eprintln!("no facts stored");
    }
    for f in facts {
        println!(
            "{} = {}  (source {}, confidence {:.2}, from {})",
            f.key,
            terminal_safe(&f.value),
            f.source.as_str(),
            f.confidence,
            origin(&f.provenance)
        );
    }
    Ok(ExitCode::SUCCESS)
}

async fn fact(o: &Opened, command: FactCommand) -> anyhow::Result<ExitCode> {
    match command {
        FactCommand::Set { key, value } => {
            check_key(&key)?;
            if value.trim().is_empty() {
                bail!("the value is empty");
            }
            let fact = o.memory.user_set_fact(OWNER, &key, value.trim()).await?;
            debug_assert_eq!(fact.source, FactSource::User);
            println!(
                "set {} = {} (source {})",
                fact.key,
                terminal_safe(&fact.value),
                fact.source.as_str()
            );
            Ok(ExitCode::SUCCESS)
        }
        FactCommand::Delete { key } => {
            check_key(&key)?;
            if o.memory.forget_fact(OWNER, &key).await? {
                println!("deleted {key}");
                Ok(ExitCode::SUCCESS)
            } else {
                failure(format_args!("no fact is stored under {key}"))
            }
        }
    }
}

async fn notes(o: &Opened, tag: Option<String>, limit: usize) -> anyhow::Result<ExitCode> {
    let filter = MemoryFilter {
        kinds: vec![MemoryKind::Note],
        tags: clean_tags(tag.into_iter().collect())?,
        ..MemoryFilter::default()
    };
    let notes = o.memory.list_notes(OWNER, &filter, limit).await?;
    if notes.is_empty() {
        eprintln!("no notes");
    }
    for n in notes {
        let tags = if n.tags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", n.tags.join(", "))
        };
        println!("{}  {}{tags}", n.id, terminal_safe(&n.title));
        println!("    {}", terminal_safe(&snippet(&n.body, 160)));
    }
    Ok(ExitCode::SUCCESS)
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

async fn note(o: &Opened, command: NoteCommand) -> anyhow::Result<ExitCode> {
    match command {
        NoteCommand::Add { title, body, tags } => {
            if title.trim().is_empty() || body.trim().is_empty() {
                bail!("a note needs a non-empty --title and body");
            }
            let note = NewNote {
                title: title.trim().to_owned(),
                body,
                tags: clean_tags(tags)?,
                provenance: Provenance::User { conversation: None },
            };
            let note = o.memory.save_note(OWNER, note).await?;
            println!("saved note {}", note.id);
            Ok(ExitCode::SUCCESS)
        }
        NoteCommand::Edit {
            id,
            title,
            body,
            tags,
        } => {
            if title.is_none() && body.is_none() && tags.is_empty() {
                bail!("nothing to change: give --title, --body or --tag");
            }
            if title.as_deref().is_some_and(|t| t.trim().is_empty())
                || body.as_deref().is_some_and(|b| b.trim().is_empty())
            {
                bail!("--title and --body must not be empty");
            }
            let edit = NoteEdit {
                title: title.map(|t| t.trim().to_owned()),
                body,
                tags: if tags.is_empty() {
                    None
                } else {
                    Some(clean_tags(tags)?)
                },
            };
            match o.memory.edit_note(id, edit).await? {
                Some(n) => {
                    println!("updated note {}", n.id);
                    Ok(ExitCode::SUCCESS)
                }
                None => failure(format_args!("no note {id}")),
            }
        }
        NoteCommand::Delete { id } => {
            if o.memory.delete_note(id).await? {
                println!("deleted note {id}");
                Ok(ExitCode::SUCCESS)
            } else {
                failure(format_args!("no note {id}"))
            }
        }
    }
}

async fn search(
    o: &Opened,
    query: &str,
    kinds: Vec<MemoryKind>,
    limit: usize,
) -> anyhow::Result<ExitCode> {
    if query.trim().is_empty() {
        bail!("the query is empty");
    }
    let opts = RecallOptions {
        filter: MemoryFilter {
            kinds,
            ..MemoryFilter::default()
        },
        limit,
        ..RecallOptions::default()
    };
    let hits = o.memory.recall(OWNER, query, &opts).await?;
    if hits.is_empty() {
        eprintln!("no matches");
    }
    for hit in hits {
        let item = &hit.item;
        let source = item
            .source
            .map(|s| format!(", source {}", s.as_str()))
            .unwrap_or_default();
        println!(
            "{} {}  score {:.4}{source}, from {}",
            item.r#ref.kind.as_str(),
            item.r#ref.id,
            hit.score,
            origin(&item.provenance)
        );
        let title = terminal_safe(&item.title);
        let text = terminal_safe(&snippet(&item.text, 200));
        match (item.r#ref.kind, title.is_empty()) {
            (MemoryKind::Fact, _) => println!("    {title} = {text}"),
            (_, true) => println!("    {text}"),
            (_, false) => println!("    {title}: {text}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn reflect(o: &Opened, settings: &Settings, since_hours: u32) -> anyhow::Result<ExitCode> {
    let Some(model) = settings
        .memory
        .extraction_model
        .as_deref()
        .or(settings.model.as_deref())
    else {
        bail!(
            "reflection needs a model: set STEWARD_MODEL (or memory.extraction_model in steward.toml); `steward doctor` helps"
        );
    };
    let models = Models::new(
        provider_configs(settings),
        RetryPolicy {
            max_retries: settings.model_retries,
            ..RetryPolicy::default()
        },
    )?;
    let model = ModelRef::parse(model)?;
    models.check(&model)?;
    let since_ms = now_ms() - i64::from(since_hours) * 60 * 60 * 1000;
    let r = o.memory.reflect(&models, &model, OWNER, since_ms).await?;
    if r.messages == 0 {
        println!("nothing to reflect on since {since_hours} hour(s) ago");
        return Ok(ExitCode::SUCCESS);
    }
    let f = &r.facts;
    println!(
        "reflected on {} message(s): facts {} new, {} updated, {} unchanged, {} kept as the user set them; \
         {} learning(s), {} intention(s), {} summary(ies); {} refused, {} skipped",
        r.messages,
        f.inserted,
        f.updated,
        f.unchanged,
        f.kept_user_fact,
        r.learnings,
        r.intentions,
        r.summaries,
        r.refused.len(),
        r.skipped
    );
    for refusal in &r.refused {
        println!(
            "refused {}: {}",
            terminal_safe(&refusal.key),
            refusal.reason.as_str()
        );
    }
    Ok(ExitCode::SUCCESS)
}

async fn retention(
    o: &Opened,
    expired: bool,
    prefixes: Vec<String>,
    unseen_days: Vec<u32>,
    apply: bool,
) -> anyhow::Result<ExitCode> {
    if prefixes.len() != unseen_days.len() {
        bail!("give exactly one --unseen-days D for each --prefix P");
    }
    if !expired && prefixes.is_empty() {
        bail!("nothing to sweep: give --expired and/or --prefix P --unseen-days D");
    }
    let plan = RetentionPlan {
        user: OWNER.to_owned(),
        expired_facts: expired,
        prefixes: prefixes
            .into_iter()
            .zip(unseen_days)
            .map(|(p, d)| (p, Duration::from_secs(u64::from(d) * DAY_SECS)))
            .collect(),
    };
    // `retention` validates the whole plan before deleting anything.
    let report = o.memory.retention(&plan, !apply).await?;
    let verb = if apply { "deleted" } else { "would delete" };
    let line = |f: &Fact, why: &str| {
        println!(
            "{verb}: {} = {}  ({why})",
            f.key,
            terminal_safe(&snippet(&f.value, 120))
        );
    };
    for f in &report.expired {
        line(f, "expired");
    }
    for (prefix, facts) in &report.by_prefix {
        for f in facts {
            line(f, &format!("unseen under {prefix}"));
        }
    }
    let n = report.total();
    if apply {
        println!("{n} fact(s) deleted");
    } else {
        println!("{n} fact(s) would be deleted (dry run; add --apply to delete them)");
    }
    Ok(ExitCode::SUCCESS)
}

async fn backfill(o: &Opened) -> anyhow::Result<ExitCode> {
    let Some(model) = o.memory.embedder_id().map(str::to_owned) else {
        return failure(
            "no embedding model: put the MiniLM files in <data_dir>/models/all-MiniLM-L6-v2 \
             (or set STEWARD_EMBED_MODEL_DIR); see scripts/fetch-model.sh",
        );
    };
    let mut total = 0;
    // Bounded so that rows which never get a vector cannot keep the command spinning.
    for _ in 0..MAX_BACKFILL_ROUNDS {
        let added = o.memory.backfill(BACKFILL_BATCH).await?;
        total += added;
        if added < BACKFILL_BATCH {
            break;
        }
    }
    println!("added {total} vector(s) for {model}");
    Ok(ExitCode::SUCCESS)
}
