//! The browsing subcommands: list, set, edit and delete facts and notes, and search, each
//! one call of `steward_core::MemoryDesk` for the local user. Does not own argument parsing
//! (`memory_cmd`), any check of keys, tags or texts (the desk) or any memory logic.

use super::{FactCommand, NoteCommand, Opened, failure, origin, refused, snippet, terminal_safe};
use std::process::ExitCode;
use steward_core::MemoryDesk;
use steward_core::memory_desk::{NoteAuthor, NoteChange, NoteDraft, RecallScope};
use steward_protocol::MemoryKind;

pub(super) async fn facts(o: &Opened, limit: usize) -> anyhow::Result<ExitCode> {
    let facts = match o.desk.facts(&o.who, limit, 0).await {
        Ok(facts) => facts,
        Err(e) => return failure(e),
    };
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
        FactCommand::Set { key, value } => match o.desk.set_fact(&o.who, &key, &value).await {
            Ok(fact) => {
                println!(
                    "set {} = {} (source {})",
                    fact.key,
                    terminal_safe(&fact.value),
                    fact.source.as_str()
                );
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => failure(e),
        },
        FactCommand::Delete { key } => match o.desk.forget_fact(&o.who, &key).await {
            Ok(()) => {
                println!("deleted {key}");
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => refused(e, |_| format!("no fact is stored under {key}")),
        },
    }
}

pub(super) async fn notes(
    o: &Opened,
    tag: Option<String>,
    limit: usize,
) -> anyhow::Result<ExitCode> {
    let tags: Vec<String> = tag.into_iter().collect();
    let notes = match o.desk.notes(&o.who, &tags, limit).await {
        Ok(notes) => notes,
        Err(e) => return failure(e),
    };
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
            let draft = NoteDraft {
                title,
                body,
                tags,
                author: NoteAuthor::Person,
            };
            match o.desk.save_note(&o.who, draft).await {
                Ok(note) => {
                    println!("saved note {}", note.id);
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => failure(e),
            }
        }
        NoteCommand::Edit {
            id,
            title,
            body,
            tags,
        } => {
            let change = NoteChange {
                title,
                body,
                // No --tag leaves the tags alone (clap gives an empty list either way).
                tags: (!tags.is_empty()).then_some(tags),
            };
            match o.desk.edit_note(&o.who, id, change).await {
                Ok(n) => {
                    println!("updated note {}", n.id);
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => refused(e, |_| format!("no note {id}")),
            }
        }
        NoteCommand::Delete { id } => match o.desk.delete_note(&o.who, id).await {
            Ok(()) => {
                println!("deleted note {id}");
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => refused(e, |_| format!("no note {id}")),
        },
    }
}

pub(super) async fn search(
    o: &Opened,
    query: &str,
    kinds: Vec<MemoryKind>,
    limit: usize,
) -> anyhow::Result<ExitCode> {
    let scope = RecallScope {
        kinds,
        tags: Vec::new(),
        limit,
        // The person's own search: quarantined rows are shown (and marked by provenance).
        quarantine: steward_protocol::Quarantine::ShowAll,
    };
    let recalled = match o.desk.recall(&o.who, query, scope).await {
        Ok(recalled) => recalled,
        Err(e) => return failure(e),
    };
    if recalled.hits.is_empty() {
        eprintln!("no matches");
    }
    let model = recalled.model.as_deref();
    for hit in recalled.hits {
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
