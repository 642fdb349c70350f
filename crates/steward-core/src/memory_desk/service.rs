//! `MemoryService`: the `MemoryDesk` over this process's `steward_memory::Memory`. Every
//! input is checked here once (values by `steward_protocol`'s rules, texts by the limits in
//! `memory_desk`), rows are looked up for the acting principal only, and memory failures
//! become `MemoryDeskError` (storage details go to the log).
//!
//! Owns: the checks and the mapping. Does not own: what memory does with a write (source
//! trust, the fact quality check, embeddings: `Memory`).

use super::{
    MAX_FACT_VALUE_BYTES, MAX_LISTING, MAX_NOTE_BODY_BYTES, MAX_NOTE_TITLE_BYTES, MAX_QUERY_BYTES,
    MAX_RECALL_HITS, MemoryDesk, MemoryDeskError, Missing, NoteAuthor, NoteChange, NoteDraft,
    RecallScope, Recalled, Unconfirmed,
};
use std::sync::Arc;
use steward_memory::{Memory, MemoryError, RecallOptions};
use steward_protocol::{
    Fact, FactKey, MemoryKind, MemoryRef, Note, Principal, Provenance, Tag, ValueError,
};
use steward_store::{Intention, Learning, MemoryFilter, NewNote, NoteEdit, ReadLater, StoreError};

/// The desk over one `Memory` (cheap to clone).
#[derive(Clone)]
pub struct MemoryService {
    memory: Arc<Memory>,
}

impl MemoryService {
    pub fn new(memory: Arc<Memory>) -> MemoryService {
        MemoryService { memory }
    }

    /// The note `id` if it is `who`'s.
    async fn owned_note(&self, who: &Principal, id: i64) -> Result<Note, MemoryDeskError> {
        if id <= 0 {
            return Err(MemoryDeskError::NotFound(Missing::Note));
        }
        match self.memory.get_note(id).await.map_err(failed)? {
            Some(note) if note.user == who.as_str() => Ok(note),
            _ => Err(MemoryDeskError::NotFound(Missing::Note)),
        }
    }
}

/// A row's own answer from the memory: found (`Some`/true) or not this principal's.
fn found<T>(row: Option<T>, missing: Missing) -> Result<T, MemoryDeskError> {
    row.ok_or(MemoryDeskError::NotFound(missing))
}

fn deleted(done: bool, missing: Missing) -> Result<(), MemoryDeskError> {
    if done {
        Ok(())
    } else {
        Err(MemoryDeskError::NotFound(missing))
    }
}

fn invalid(e: ValueError) -> MemoryDeskError {
    MemoryDeskError::Invalid(e.to_string())
}

fn fact_key(raw: &str) -> Result<FactKey, MemoryDeskError> {
    FactKey::parse(raw).map_err(invalid)
}

fn tags(raw: &[String]) -> Result<Vec<String>, MemoryDeskError> {
    Tag::normalise_strings(raw).map_err(invalid)
}

/// A required text: at most `max` bytes as given, not blank. Returns it trimmed.
fn text<'a>(field: &'static str, raw: &'a str, max: usize) -> Result<&'a str, MemoryDeskError> {
    if raw.len() > max {
        return Err(MemoryDeskError::TooLong { field, max });
    }
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(MemoryDeskError::Invalid(format!(
            "{field} must not be empty"
        )));
    }
    Ok(trimmed)
}

/// A memory failure as the desk reports it: refusals are the caller's to fix and keep their
/// words; anything else is ours and stays in the log.
fn failed(err: MemoryError) -> MemoryDeskError {
    match err {
        MemoryError::Invalid(message) | MemoryError::Store(StoreError::InvalidInput(message)) => {
            MemoryDeskError::Refused(message)
        }
        other => {
            tracing::warn!(error = %other, "memory operation failed");
            MemoryDeskError::Failed
        }
    }
}

#[async_trait::async_trait]
impl MemoryDesk for MemoryService {
    async fn facts(
        &self,
        who: &Principal,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Fact>, MemoryDeskError> {
        let limit = limit.min(MAX_LISTING);
        self.memory
            .list_facts(who.as_str(), limit, offset)
            .await
            .map_err(failed)
    }

    async fn set_fact(
        &self,
        who: &Principal,
        key: &str,
        value: &str,
    ) -> Result<Fact, MemoryDeskError> {
        let key = fact_key(key)?;
        let value = text("value", value, MAX_FACT_VALUE_BYTES)?;
        self.memory
            .user_set_fact(who.as_str(), key.as_str(), value)
            .await
            .map_err(failed)
    }

    async fn forget_fact(&self, who: &Principal, key: &str) -> Result<(), MemoryDeskError> {
        let key = fact_key(key)?;
        match self.memory.forget_fact(who.as_str(), key.as_str()).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(MemoryDeskError::NotFound(Missing::Fact)),
            Err(e) => Err(failed(e)),
        }
    }

    async fn notes(
        &self,
        who: &Principal,
        tags_wanted: &[String],
        limit: usize,
    ) -> Result<Vec<Note>, MemoryDeskError> {
        let filter = MemoryFilter {
            kinds: vec![MemoryKind::Note],
            tags: tags(tags_wanted)?,
            ..MemoryFilter::default()
        };
        self.memory
            .list_notes(who.as_str(), &filter, limit.min(MAX_LISTING))
            .await
            .map_err(failed)
    }

    async fn note(&self, who: &Principal, id: i64) -> Result<Note, MemoryDeskError> {
        self.owned_note(who, id).await
    }

    async fn save_note(&self, who: &Principal, draft: NoteDraft) -> Result<Note, MemoryDeskError> {
        let title = text("title", &draft.title, MAX_NOTE_TITLE_BYTES)?.to_owned();
        text("body", &draft.body, MAX_NOTE_BODY_BYTES)?;
        let provenance = match draft.author {
            NoteAuthor::Person => Provenance::User { conversation: None },
            NoteAuthor::Client { conversation } => Provenance::Assistant {
                conversation: Some(conversation),
            },
        };
        let note = NewNote {
            title,
            body: draft.body,
            tags: tags(&draft.tags)?,
            provenance,
        };
        self.memory
            .save_note(who.as_str(), note)
            .await
            .map_err(failed)
    }

    async fn edit_note(
        &self,
        who: &Principal,
        id: i64,
        change: NoteChange,
    ) -> Result<Note, MemoryDeskError> {
        if change.title.is_none() && change.body.is_none() && change.tags.is_none() {
            return Err(MemoryDeskError::Invalid(
                "nothing to change: give a title, a body or tags".to_owned(),
            ));
        }
        let title = match &change.title {
            Some(t) => Some(text("title", t, MAX_NOTE_TITLE_BYTES)?.to_owned()),
            None => None,
        };
        if let Some(body) = &change.body {
            text("body", body, MAX_NOTE_BODY_BYTES)?;
        }
        let edit = NoteEdit {
            title,
            body: change.body,
            tags: change.tags.as_deref().map(tags).transpose()?,
        };
        self.owned_note(who, id).await?;
        self.memory
            .edit_note(id, edit)
            .await
            .map_err(failed)?
            .ok_or(MemoryDeskError::NotFound(Missing::Note))
    }

    async fn delete_note(&self, who: &Principal, id: i64) -> Result<(), MemoryDeskError> {
        self.owned_note(who, id).await?;
        match self.memory.delete_note(id).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(MemoryDeskError::NotFound(Missing::Note)),
            Err(e) => Err(failed(e)),
        }
    }

    async fn recall(
        &self,
        who: &Principal,
        query: &str,
        scope: RecallScope,
    ) -> Result<Recalled, MemoryDeskError> {
        let query = text("query", query, MAX_QUERY_BYTES)?;
        let opts = RecallOptions {
            filter: MemoryFilter {
                kinds: scope.kinds,
                tags: tags(&scope.tags)?,
                ..MemoryFilter::default()
            },
            limit: scope.limit.clamp(1, MAX_RECALL_HITS),
            quarantine: scope.quarantine,
            ..RecallOptions::default()
        };
        let mut hits = self
            .memory
            .recall(who.as_str(), query, &opts)
            .await
            .map_err(failed)?;
        hits.truncate(opts.limit);
        Ok(Recalled {
            hits,
            model: self.memory.embedder_id().map(str::to_owned),
        })
    }

    async fn confirm(&self, who: &Principal, row: Unconfirmed) -> Result<(), MemoryDeskError> {
        let (r, missing) = match row {
            Unconfirmed::FactKey(key) => {
                let key = fact_key(&key)?;
                let fact = self
                    .memory
                    .get_fact(who.as_str(), key.as_str())
                    .await
                    .map_err(failed)?
                    .ok_or(MemoryDeskError::NotFound(Missing::UnconfirmedFact))?;
                let r = MemoryRef {
                    kind: MemoryKind::Fact,
                    id: fact.id,
                };
                (r, Missing::UnconfirmedFact)
            }
            Unconfirmed::Row(r) => match r.kind {
                MemoryKind::Fact => (r, Missing::UnconfirmedFact),
                MemoryKind::Note => (r, Missing::UnconfirmedNote),
                _ => {
                    return Err(MemoryDeskError::Invalid(
                        "only a fact or a note is confirmed".to_owned(),
                    ));
                }
            },
        };
        // `Memory::confirm` looks the row up for `who` only: another principal's is not found.
        if self.memory.confirm(who.as_str(), r).await.map_err(failed)? {
            Ok(())
        } else {
            Err(MemoryDeskError::NotFound(missing))
        }
    }

    async fn reminders(
        &self,
        who: &Principal,
        include_done: bool,
    ) -> Result<Vec<Intention>, MemoryDeskError> {
        self.memory
            .list_intentions(who.as_str(), include_done)
            .await
            .map_err(failed)
    }

    async fn read_later(
        &self,
        who: &Principal,
        tags_wanted: &[String],
        include_read: bool,
        limit: usize,
    ) -> Result<Vec<ReadLater>, MemoryDeskError> {
        let tags = tags(tags_wanted)?;
        self.memory
            .list_read_later(who.as_str(), &tags, include_read, limit.min(MAX_LISTING))
            .await
            .map_err(failed)
    }

    // Ids are global and rows per person: the memory looks each row up by principal and id
    // together, so another principal's id is simply not found (and nothing changes).
    async fn mark_read_later(
        &self,
        who: &Principal,
        id: i64,
        read: bool,
    ) -> Result<ReadLater, MemoryDeskError> {
        let row = self.memory.mark_read_later(who.as_str(), id, read).await;
        found(row.map_err(failed)?, Missing::ReadLater)
    }

    async fn delete_read_later(&self, who: &Principal, id: i64) -> Result<(), MemoryDeskError> {
        let done = self.memory.delete_read_later(who.as_str(), id).await;
        deleted(done.map_err(failed)?, Missing::ReadLater)
    }

    async fn learnings(
        &self,
        who: &Principal,
        limit: usize,
    ) -> Result<Vec<Learning>, MemoryDeskError> {
        self.memory
            .list_learnings(who.as_str(), limit.min(MAX_LISTING))
            .await
            .map_err(failed)
    }

    async fn delete_learning(&self, who: &Principal, id: i64) -> Result<(), MemoryDeskError> {
        let done = self.memory.delete_learning(who.as_str(), id).await;
        deleted(done.map_err(failed)?, Missing::Learning)
    }

    async fn mark_reminder(
        &self,
        who: &Principal,
        id: i64,
        done: bool,
    ) -> Result<Intention, MemoryDeskError> {
        let row = self.memory.set_intention_done(who.as_str(), id, done).await;
        found(row.map_err(failed)?, Missing::Reminder)
    }

    async fn delete_reminder(&self, who: &Principal, id: i64) -> Result<(), MemoryDeskError> {
        let done = self.memory.delete_intention(who.as_str(), id).await;
        deleted(done.map_err(failed)?, Missing::Reminder)
    }
}
