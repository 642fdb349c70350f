//! The browsing subcommands: list, set, edit and delete facts and notes, and search.
//! Does not own argument parsing (`memory_cmd`), the key and tag rules (`steward_protocol`'s
//! `FactKey` and `Tag`) or any memory logic.

use super::{FactCommand, NoteCommand, OWNER, Opened, failure, origin, snippet, terminal_safe};
use anyhow::bail;
use std::process::ExitCode;
use steward_memory::RecallOptions;
use steward_protocol::{FactKey, MemoryKind, Provenance, Tag};
use steward_store::{MemoryFilter, NewNote, NoteEdit};

pub(super) async fn facts(o: &Opened, limit: usize) -> anyhow::Result<ExitCode> {
    let facts = o.memory.list_facts(OWNER, limit, 0).await?;
    if facts.is_empty() {
        eprintln!("no facts stored");
    }
    for f in facts {
        println!(
            "{} = {}  (source {}, confidence {:.2}, from {}, id {})",
            f.key,
            terminal_safe(&f.value),
            f.source.as_str(),
            f.confidence,
            origin(&f.provenance),
            f.id
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) async fn fact(o: &Opened, command: FactCommand) -> anyhow::Result<ExitCode> {
    match command {
        FactCommand::Set { key, value } => {
            let key = FactKey::parse(&key)?;
            if value.trim().is_empty() {
                bail!("the value is empty");
            }
            let fact = o
                .memory
                .user_set_fact(OWNER, key.as_str(), value.trim())
                .await?;
            println!(
                "set {} = {} (source {})",
                fact.key,
                terminal_safe(&fact.value),
                fact.source.as_str()
            );
            Ok(ExitCode::SUCCESS)
        }
        FactCommand::Delete { key } => {
            let key = FactKey::parse(&key)?;
            if o.memory.forget_fact(OWNER, key.as_str()).await? {
                println!("deleted {key}");
                Ok(ExitCode::SUCCESS)
            } else {
                failure(format_args!("no fact is stored under {key}"))
            }
        }
    }
}

pub(super) async fn notes(
    o: &Opened,
    tag: Option<String>,
    limit: usize,
) -> anyhow::Result<ExitCode> {
    let filter = MemoryFilter {
        kinds: vec![MemoryKind::Note],
        tags: Tag::normalise_strings(tag)?,
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
        let unconfirmed = if n.provenance.taint_sources().is_some() {
            format!("  ({})", origin(&n.provenance))
        } else {
            String::new()
        };
        println!("{}  {}{tags}{unconfirmed}", n.id, terminal_safe(&n.title));
        println!("    {}", terminal_safe(&snippet(&n.body, 160)));
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) async fn note(o: &Opened, command: NoteCommand) -> anyhow::Result<ExitCode> {
    match command {
        NoteCommand::Add { title, body, tags } => {
            if title.trim().is_empty() || body.trim().is_empty() {
                bail!("a note needs a non-empty --title and body");
            }
            let note = NewNote {
                title: title.trim().to_owned(),
                body,
                tags: Tag::normalise_strings(tags)?,
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
                    Some(Tag::normalise_strings(tags)?)
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

pub(super) async fn search(
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
        // The owner's own search: quarantined rows are shown (and marked by provenance).
        quarantine: steward_protocol::Quarantine::ShowAll,
        ..RecallOptions::default()
    };
    let hits = o.memory.recall(OWNER, query, &opts).await?;
    if hits.is_empty() {
        eprintln!("no matches");
    }
    let model = o.memory.embedder_id();
    for hit in hits {
        let item = &hit.item;
        let source = item
            .source
            .map(|s| format!(", source {}", s.as_str()))
            .unwrap_or_default();
        // How well it matches, in words and percent: the fused score only orders the hits.
        println!(
            "{} {}  {}{source}, from {}",
            item.r#ref.kind.as_str(),
            item.r#ref.id,
            steward_memory::relevance::describe(hit.similarity, model),
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
