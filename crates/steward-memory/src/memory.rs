//! The `Memory` facade: writes (facts, notes, read-later) with rows first and vectors
//! best-effort, and the backfill that fills missing vectors later.
//!
//! Owns: write-side validation, the embed-after-write policy and this memory's clock (every
//! timestamp, expiry, recency and retention age reads `Memory::now_ms`). Does not own: recall
//! (`recall`), the context block (`context`), extraction (`extract`), reflection (`reflect`),
//! retention (`retention`) — each adds its own `impl Memory` block — nor SQL (steward-store).
//!
//! Every fact not stated by the user passes the gate's shape and content rules here too, so a
//! tool or integration calling `remember` directly cannot store a secret or the assistant's
//! own state; a fact with untrusted provenance (tool output, fetched content) is refused.

use crate::embed::Embedder;
use crate::gate;
use crate::{MemoryConfig, MemoryError};

/// The tag of reflection summaries; reserved to reflection (see `save_note`).
pub const SUMMARY_TAG: &str = "summary";
use std::sync::Arc;
use steward_protocol::{
    Clock, Fact, FactSource, MemoryKind, MemoryRef, Note, Provenance, SystemClock, ValueKind,
};
use steward_store::{FactWrite, NewFact, NewNote, NoteEdit, ReadLater, Store};

/// Rows embedded per backfill batch: small enough that one slow batch does not hold the
/// store, large enough to amortise a remote embedding call.
const BACKFILL_BATCH: usize = 32;
/// Vectors filled per round of `backfill_all`.
pub const BACKFILL_ROUND: usize = 256;
/// Most rounds of one `backfill_all`: rows that never get a vector cannot keep it spinning.
pub const MAX_BACKFILL_ROUNDS: usize = 10_000;

/// Memory for one Steward: the store, the (optional) embedder and the config.
pub struct Memory {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) embedder: Option<Arc<dyn Embedder>>,
    pub(crate) cfg: MemoryConfig,
    /// "Now" for every write's timestamp, expiry, recency and retention age.
    pub(crate) clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("store", &self.store.describe())
            .field("embedder", &self.embedder_id())
            .field("cfg", &self.cfg)
            .finish()
    }
}

fn has_summary_tag(tags: &[String]) -> bool {
    tags.iter().any(|t| t.trim() == SUMMARY_TAG)
}

fn summary_reserved() -> MemoryError {
    MemoryError::Invalid(format!(
        "the `{SUMMARY_TAG}` tag is reserved for Steward's own summaries"
    ))
}

impl Memory {
    pub fn new(
        store: Arc<dyn Store>,
        embedder: Option<Arc<dyn Embedder>>,
        cfg: MemoryConfig,
    ) -> Memory {
        Memory {
            store,
            embedder,
            cfg,
            clock: SystemClock::shared(),
        }
    }

    /// The same memory reading "now" from `clock` (the composition root's; a test's
    /// `ManualClock`). Without it, the system clock.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Memory {
        self.clock = clock;
        self
    }

    /// Unix milliseconds now, by this memory's clock.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    pub fn config(&self) -> &MemoryConfig {
        &self.cfg
    }

    /// The embedder's model id, or None when recall is full-text only.
    pub fn embedder_id(&self) -> Option<&str> {
        self.embedder.as_deref().map(|e| e.model_id())
    }

    /// Whether the embedder's model is in memory (false too when there is no embedder).
    pub fn embedder_loaded(&self) -> bool {
        self.embedder.as_deref().is_some_and(|e| e.loaded())
    }

    /// Row first; vector best-effort (an embedder failure leaves the row, findable by full
    /// text). Source trust is the store's: a non-user fact never replaces a user fact
    /// (`FactWrite::KeptUserFact`).
    pub async fn remember(&self, user: &str, fact: NewFact) -> Result<FactWrite, MemoryError> {
        check_new_fact(&fact)?;
        let write = self.store.upsert_fact(user, &fact, self.now_ms()).await?;
        if let FactWrite::Inserted(f) | FactWrite::Updated(f) = &write {
            self.embed_fact(f).await;
        }
        Ok(write)
    }

    /// A fact the user stated or edited: source = User, confidence 1.0. Only the shape is
    /// checked: the user may tell Steward anything about themselves.
    pub async fn user_set_fact(
        &self,
        user: &str,
        key: &str,
        value: &str,
    ) -> Result<Fact, MemoryError> {
        let fact = NewFact {
            key: key.trim().to_owned(),
            value: value.trim().to_owned(),
            source: FactSource::User,
            confidence: 1.0,
            expires_at_ms: None,
            provenance: Provenance::User { conversation: None },
        };
        gate::check_shape(&fact.key, &fact.value).map_err(refused)?;
        let write = self.store.upsert_fact(user, &fact, self.now_ms()).await?;
        if let FactWrite::Inserted(f) | FactWrite::Updated(f) = &write {
            self.embed_fact(f).await;
        }
        Ok(write.fact().clone())
    }

    pub async fn forget_fact(&self, user: &str, key: &str) -> Result<bool, MemoryError> {
        Ok(self.store.delete_fact(user, key).await?)
    }

    pub async fn save_note(&self, user: &str, note: NewNote) -> Result<Note, MemoryError> {
        if note.provenance != Provenance::Reflection && has_summary_tag(&note.tags) {
            // Summaries reach the context block as the user's own history, so the tag is
            // reserved to the code that makes them (reflection); nobody else may claim it.
            return Err(summary_reserved());
        }
        let saved = self.store.insert_note(user, &note, self.now_ms()).await?;
        self.embed_note(&saved).await;
        Ok(saved)
    }

    /// An edit may keep a summary's own `summary` tag but never add it to another note.
    pub async fn edit_note(&self, id: i64, edit: NoteEdit) -> Result<Option<Note>, MemoryError> {
        if let Some(tags) = &edit.tags
            && has_summary_tag(tags)
        {
            match self.store.get_note(id).await? {
                None => return Ok(None),
                Some(n) if !has_summary_tag(&n.tags) => return Err(summary_reserved()),
                Some(_) => {}
            }
        }
        let text_changed = edit.title.is_some() || edit.body.is_some();
        let updated = self.store.update_note(id, &edit, self.now_ms()).await?;
        if let Some(n) = &updated
            && text_changed
        {
            // The store dropped the old vectors with the old text.
            self.embed_note(n).await;
        }
        Ok(updated)
    }

    /// The owner confirms a tainted fact or note: its provenance becomes `Assistant` (same
    /// conversation), so it is no longer quarantined. False when there is no such row or it
    /// was not tainted.
    pub async fn confirm(&self, user: &str, r: MemoryRef) -> Result<bool, MemoryError> {
        let items = self.store.get_items(&[r]).await?;
        let Some(item) = items.into_iter().find(|i| i.user == user) else {
            return Ok(false);
        };
        let Provenance::Tainted { conversation, .. } = item.provenance else {
            return Ok(false);
        };
        let confirmed = Provenance::Assistant { conversation };
        Ok(self.store.set_provenance(r, &confirmed).await?)
    }

    pub async fn delete_note(&self, id: i64) -> Result<bool, MemoryError> {
        Ok(self.store.delete_note(id).await?)
    }

    pub async fn read_later(
        &self,
        user: &str,
        url: &str,
        title: &str,
        tags: Vec<String>,
    ) -> Result<ReadLater, MemoryError> {
        let item = self
            .store
            .add_read_later(user, url, title, &tags, self.now_ms())
            .await?;
        let r = MemoryRef {
            kind: MemoryKind::ReadLater,
            id: item.id,
        };
        // Same text as `MemoryItem::embedding_text` for a read-later row: url, space, title.
        self.embed_best_effort(r, format!("{} {}", item.url, item.title))
            .await;
        Ok(item)
    }

    /// Fill missing vectors, at most `limit`; returns how many were added. Without an
    /// embedder there is nothing to fill (0). An embedder failure stops the run with the
    /// error; rows already filled stay filled.
    pub async fn backfill(&self, limit: usize) -> Result<usize, MemoryError> {
        let Some(embedder) = self.embedder.clone() else {
            return Ok(0);
        };
        let model = embedder.model_id().to_owned();
        let mut added = 0;
        while added < limit {
            let batch = self
                .store
                .missing_embeddings(&model, BACKFILL_BATCH.min(limit - added))
                .await?;
            if batch.is_empty() {
                break;
            }
            let texts: Vec<String> = batch.iter().map(|(_, t)| t.clone()).collect();
            let vectors = embedder.embed(&texts).await?;
            if vectors.len() != batch.len() {
                return Err(MemoryError::Model(format!(
                    "embedder {model} returned {} vectors for {} texts",
                    vectors.len(),
                    batch.len()
                )));
            }
            for ((r, _), v) in batch.iter().zip(&vectors) {
                self.store.put_embedding(*r, &model, v).await?;
                added += 1;
            }
        }
        Ok(added)
    }

    /// Fill every missing vector: `backfill` in rounds of `BACKFILL_ROUND` until a round
    /// comes up short (nothing more is missing), at most `MAX_BACKFILL_ROUNDS`. Returns how
    /// many were added; an error stops it (rows already filled stay filled). The one loop of
    /// `steward memory backfill` and the scheduled backfill job.
    pub async fn backfill_all(&self) -> Result<usize, MemoryError> {
        let mut total = 0;
        for _ in 0..MAX_BACKFILL_ROUNDS {
            let added = self.backfill(BACKFILL_ROUND).await?;
            total += added;
            if added < BACKFILL_ROUND {
                break;
            }
        }
        Ok(total)
    }

    async fn embed_fact(&self, f: &Fact) {
        let r = MemoryRef {
            kind: MemoryKind::Fact,
            id: f.id,
        };
        self.embed_best_effort(r, format!("{}: {}", f.key, f.value))
            .await;
    }

    async fn embed_note(&self, n: &Note) {
        let r = MemoryRef {
            kind: MemoryKind::Note,
            id: n.id,
        };
        let text = if n.title.is_empty() {
            n.body.clone()
        } else {
            format!("{}\n{}", n.title, n.body)
        };
        self.embed_best_effort(r, text).await;
    }

    /// Embed and store one row's vector; on any failure log (kind, id, model, error — never
    /// the text) and leave the row to `backfill`.
    pub(crate) async fn embed_best_effort(&self, r: MemoryRef, text: String) {
        let Some(embedder) = self.embedder.as_deref() else {
            return;
        };
        let model = embedder.model_id();
        let result = match embedder.embed(std::slice::from_ref(&text)).await {
            Ok(mut v) if v.len() == 1 => match v.pop() {
                Some(vector) => self
                    .store
                    .put_embedding(r, model, &vector)
                    .await
                    .map_err(MemoryError::from),
                None => Ok(()),
            },
            Ok(v) => Err(MemoryError::Model(format!(
                "embedder returned {} vectors for 1 text",
                v.len()
            ))),
            Err(e) => Err(e.into()),
        };
        if let Err(e) = result {
            tracing::warn!(
                kind = r.kind.as_str(),
                id = r.id,
                model,
                error = %e,
                "embedding failed; the row is saved and left to the backfill"
            );
        }
    }
}

/// Shape for every fact; untrusted provenance never; gate content rules for non-user facts.
fn check_new_fact(f: &NewFact) -> Result<(), MemoryError> {
    gate::check_shape(&f.key, &f.value).map_err(refused)?;
    if !(0.0..=1.0).contains(&f.confidence) {
        return Err(MemoryError::Invalid(
            "fact confidence must be between 0 and 1".into(),
        ));
    }
    if f.provenance.is_untrusted() {
        return Err(refused(gate::RefusalReason::UntrustedOrigin));
    }
    if f.source != FactSource::User {
        gate::check_content(&f.key, &f.value).map_err(refused)?;
    }
    Ok(())
}

/// The caller-facing message for a refusal (never echoes the key or value).
fn refused(r: gate::RefusalReason) -> MemoryError {
    let rule;
    let why = match r {
        gate::RefusalReason::BadKey => {
            rule = format!("the key must be {}", ValueKind::FactKey.rule());
            rule.as_str()
        }
        gate::RefusalReason::EmptyValue => "the value is empty",
        gate::RefusalReason::ValueTooLong => "the value is longer than 500 characters",
        gate::RefusalReason::UntrustedOrigin => {
            "it comes from tool output or fetched content, which never becomes a fact"
        }
        gate::RefusalReason::Secret => "it looks like a credential or secret",
        gate::RefusalReason::AboutAssistant => "it is about the assistant, not the user",
        gate::RefusalReason::FirstPerson => "write facts about the user in the third person",
        _ => r.as_str(),
    };
    MemoryError::Invalid(format!("fact refused ({}): {why}", r.as_str()))
}
