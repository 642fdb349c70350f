//! `MemoryStore` for SQLite: validates inputs, then runs each operation's SQL (in the submodules)
//! on the blocking thread. Owns the JSON spellings of provenance and tags. The SQL lives in
//! `facts.rs`, `notes.rs`, `read_later.rs`, `agenda.rs` (learnings, intentions), `index.rs` (the shared doc map
//! and FTS5), `vectors/` (vector tables and the in-process sign-bit index) and `items.rs`
//! (uniform reads, the message log).

mod agenda;
mod facts;
mod index;
mod items;
mod notes;
mod read_later;
#[cfg(test)]
mod search_tests;
pub(super) mod vectors;

use super::{SqliteStore, decode_err};
use crate::validate::memory as check;
use crate::{
    FactWrite, Intention, Learning, MemoryFilter, MemoryItem, MemoryStore, NewFact, NewNote,
    NoteEdit, ReadLater, StoreError, StoredMessage,
};
use steward_protocol::{Fact, MemoryKind, MemoryRef, Note, Provenance};

fn provenance_json(p: &Provenance) -> Result<String, StoreError> {
    serde_json::to_string(p)
        .map_err(|e| StoreError::InvalidInput(format!("provenance cannot be encoded: {e}")))
}

/// serde's messages quote the offending value (`unknown variant "..."`), and stored text may be
/// secret: report only where and what kind of error.
fn json_corrupt(what: &str, field: &str, e: &serde_json::Error) -> StoreError {
    StoreError::Corrupt(format!(
        "{what}: {field} is not valid ({:?} error at line {}, column {})",
        e.classify(),
        e.line(),
        e.column()
    ))
}

fn parse_provenance(what: &str, raw: &str) -> Result<Provenance, StoreError> {
    serde_json::from_str(raw).map_err(|e| json_corrupt(what, "provenance", &e))
}

fn tags_json(tags: &[String]) -> Result<String, StoreError> {
    serde_json::to_string(tags)
        .map_err(|e| StoreError::InvalidInput(format!("tags cannot be encoded: {e}")))
}

fn parse_tags(what: &str, raw: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(raw).map_err(|e| json_corrupt(what, "tags", &e))
}

/// `None` for "no tag filter", so SQL can test `?n IS NULL`.
fn tags_param(tags: &[String]) -> Result<Option<String>, StoreError> {
    if tags.is_empty() {
        Ok(None)
    } else {
        tags_json(tags).map(Some)
    }
}

/// Reads column `idx` of a row, mapping type errors to `Corrupt` naming `what`.
/// A search-index row's `(kind, id)` as a reference (the index and the vector tables share it).
fn memory_ref(kind: String, id: i64) -> Result<MemoryRef, StoreError> {
    let kind = MemoryKind::parse(&kind)
        .ok_or_else(|| StoreError::Corrupt(format!("search index row {id}: unknown kind")))?;
    Ok(MemoryRef { kind, id })
}

fn col<T: rusqlite::types::FromSql>(
    row: &rusqlite::Row<'_>,
    idx: usize,
    what: &dyn Fn() -> String,
) -> Result<T, StoreError> {
    row.get(idx).map_err(|e| decode_err(&what(), e))
}

/// Counts from SQL are never negative; a negative one is corrupt data, not a panic.
fn to_u32(what: &str, raw: i64) -> Result<u32, StoreError> {
    u32::try_from(raw).map_err(|_| StoreError::Corrupt(format!("{what}: {raw} is out of range")))
}

#[async_trait::async_trait]
impl MemoryStore for SqliteStore {
    async fn upsert_fact(
        &self,
        user: &str,
        fact: &NewFact,
        now_ms: i64,
    ) -> Result<FactWrite, StoreError> {
        check::user(user)?;
        check::fact(fact)?;
        let provenance = provenance_json(&fact.provenance)?;
        let (user, fact) = (user.to_owned(), fact.clone());
        self.run(move |conn| facts::upsert(conn, &user, &fact, &provenance, now_ms))
            .await
    }

    async fn get_fact(&self, user: &str, key: &str) -> Result<Option<Fact>, StoreError> {
        check::user(user)?;
        check::fact_key(key)?;
        let (user, key) = (user.to_owned(), key.to_owned());
        self.run(move |conn| facts::get(conn, &user, &key)).await
    }

    async fn list_facts(
        &self,
        user: &str,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Fact>, StoreError> {
        check::user(user)?;
        let user = user.to_owned();
        self.run(move |conn| facts::list(conn, &user, limit, offset))
            .await
    }

    async fn delete_fact(&self, user: &str, key: &str) -> Result<bool, StoreError> {
        check::user(user)?;
        check::fact_key(key)?;
        let (user, key) = (user.to_owned(), key.to_owned());
        self.run(move |conn| facts::delete(conn, &user, &key)).await
    }

    async fn insert_note(
        &self,
        user: &str,
        note: &NewNote,
        now_ms: i64,
    ) -> Result<Note, StoreError> {
        check::user(user)?;
        check::title("note title", &note.title)?;
        check::text("note body", &note.body, 0)?;
        check::provenance(&note.provenance)?;
        let mut note = note.clone();
        note.tags = check::tags(&note.tags)?;
        let user = user.to_owned();
        self.run(move |conn| notes::insert(conn, &user, &note, now_ms))
            .await
    }

    async fn get_note(&self, id: i64) -> Result<Option<Note>, StoreError> {
        self.run(move |conn| notes::get(conn, id)).await
    }

    async fn list_notes(
        &self,
        user: &str,
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<Note>, StoreError> {
        check::user(user)?;
        let filter = check::filter(filter)?;
        let user = user.to_owned();
        self.run(move |conn| notes::list(conn, &user, &filter, limit))
            .await
    }

    async fn update_note(
        &self,
        id: i64,
        edit: &NoteEdit,
        now_ms: i64,
    ) -> Result<Option<Note>, StoreError> {
        let mut edit = edit.clone();
        edit.tags = check::note_edit(&edit)?;
        self.run(move |conn| notes::update(conn, id, &edit, now_ms))
            .await
    }

    async fn delete_note(&self, id: i64) -> Result<bool, StoreError> {
        self.run(move |conn| notes::delete(conn, id)).await
    }

    async fn set_provenance(
        &self,
        r: MemoryRef,
        provenance: &Provenance,
    ) -> Result<bool, StoreError> {
        check::provenance(provenance)?;
        let table = match r.kind {
            MemoryKind::Fact => "facts",
            MemoryKind::Note => "notes",
            other => {
                return Err(StoreError::InvalidInput(format!(
                    "the provenance of a {} cannot be changed",
                    other.as_str()
                )));
            }
        };
        let json = provenance_json(provenance)?;
        let sql = format!("UPDATE {table} SET provenance = ?1 WHERE id = ?2");
        self.run(move |conn| Ok(conn.execute(&sql, rusqlite::params![json, r.id])? == 1))
            .await
    }

    async fn add_read_later(
        &self,
        user: &str,
        url: &str,
        title: &str,
        tags: &[String],
        now_ms: i64,
    ) -> Result<ReadLater, StoreError> {
        check::user(user)?;
        check::url(url)?;
        check::title("read-later title", title)?;
        let item = ReadLater {
            id: 0,
            user: user.to_owned(),
            url: url.to_owned(),
            title: title.to_owned(),
            tags: check::tags(tags)?,
            created_at_ms: now_ms,
            read_at_ms: None,
        };
        self.run(move |conn| read_later::add(conn, item)).await
    }

    async fn list_read_later(
        &self,
        user: &str,
        tags: &[String],
        unread_only: bool,
        limit: usize,
    ) -> Result<Vec<ReadLater>, StoreError> {
        check::user(user)?;
        let tags = check::tags(tags)?;
        let user = user.to_owned();
        self.run(move |conn| read_later::list(conn, &user, &tags, unread_only, limit))
            .await
    }

    async fn mark_read_later(
        &self,
        user: &str,
        id: i64,
        read: bool,
        now_ms: i64,
    ) -> Result<Option<ReadLater>, StoreError> {
        check::user(user)?;
        let user = user.to_owned();
        self.run(move |conn| read_later::mark(conn, &user, id, read, now_ms))
            .await
    }

    async fn delete_read_later(&self, user: &str, id: i64) -> Result<bool, StoreError> {
        check::user(user)?;
        let user = user.to_owned();
        self.run(move |conn| read_later::delete(conn, &user, id))
            .await
    }

    async fn bump_learning(
        &self,
        user: &str,
        text: &str,
        now_ms: i64,
    ) -> Result<Learning, StoreError> {
        check::user(user)?;
        let text = text.trim();
        check::text("learning text", text, 1)?;
        let (user, text) = (user.to_owned(), text.to_owned());
        self.run(move |conn| agenda::bump_learning(conn, &user, &text, now_ms))
            .await
    }

    async fn top_learnings(&self, user: &str, n: usize) -> Result<Vec<Learning>, StoreError> {
        check::user(user)?;
        let user = user.to_owned();
        self.run(move |conn| agenda::top_learnings(conn, &user, n))
            .await
    }

    async fn delete_learning(&self, user: &str, id: i64) -> Result<bool, StoreError> {
        check::user(user)?;
        let user = user.to_owned();
        self.run(move |conn| agenda::delete(conn, MemoryKind::Learning, &user, id))
            .await
    }

    async fn add_intention(
        &self,
        user: &str,
        text: &str,
        due_at_ms: Option<i64>,
        now_ms: i64,
    ) -> Result<Intention, StoreError> {
        check::user(user)?;
        let text = text.trim();
        check::text("intention text", text, 1)?;
        let (user, text) = (user.to_owned(), text.to_owned());
        self.run(move |conn| agenda::add_intention(conn, &user, &text, due_at_ms, now_ms))
            .await
    }

    async fn list_intentions(
        &self,
        user: &str,
        open_only: bool,
    ) -> Result<Vec<Intention>, StoreError> {
        check::user(user)?;
        let user = user.to_owned();
        self.run(move |conn| agenda::list_intentions(conn, &user, open_only))
            .await
    }

    async fn nudge_intention(&self, id: i64) -> Result<Intention, StoreError> {
        self.run(move |conn| agenda::nudge_intention(conn, id))
            .await
    }

    async fn set_intention_done(
        &self,
        user: &str,
        id: i64,
        done: bool,
    ) -> Result<Option<Intention>, StoreError> {
        check::user(user)?;
        let user = user.to_owned();
        self.run(move |conn| agenda::set_intention_done(conn, &user, id, done))
            .await
    }

    async fn delete_intention(&self, user: &str, id: i64) -> Result<bool, StoreError> {
        check::user(user)?;
        let user = user.to_owned();
        self.run(move |conn| agenda::delete(conn, MemoryKind::Intention, &user, id))
            .await
    }

    async fn get_items(&self, refs: &[MemoryRef]) -> Result<Vec<MemoryItem>, StoreError> {
        if refs.is_empty() {
            return Ok(Vec::new());
        }
        let refs = refs.to_vec();
        self.run(move |conn| items::get(conn, &refs)).await
    }

    async fn fts_search(
        &self,
        user: &str,
        query: &str,
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
        check::user(user)?;
        let filter = check::filter(filter)?;
        let tokens = check::query_tokens(query);
        if tokens.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let user = user.to_owned();
        self.run(move |conn| index::search(conn, &user, &tokens, &filter, limit))
            .await
    }

    async fn vector_search(
        &self,
        user: &str,
        model_id: &str,
        embedding: &[f32],
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, f64)>, StoreError> {
        check::user(user)?;
        check::model_id(model_id)?;
        check::embedding(embedding)?;
        let filter = check::filter(filter)?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (user, model_id, embedding) =
            (user.to_owned(), model_id.to_owned(), embedding.to_vec());
        let indexes = std::sync::Arc::clone(&self.vectors);
        self.run(move |conn| {
            // Locked only here, inside `run`, so always after the connection: no lock cycle.
            let mut indexes = indexes.lock().map_err(|_| StoreError::Poisoned)?;
            vectors::search(
                conn,
                &mut indexes,
                &user,
                &model_id,
                &embedding,
                &filter,
                limit,
            )
        })
        .await
    }

    async fn put_embedding(
        &self,
        r: MemoryRef,
        model_id: &str,
        embedding: &[f32],
    ) -> Result<(), StoreError> {
        check::model_id(model_id)?;
        check::embedding(embedding)?;
        let (model_id, embedding) = (model_id.to_owned(), embedding.to_vec());
        let now = self.now_ms();
        self.run(move |conn| vectors::put(conn, r, &model_id, &embedding, now))
            .await
    }

    async fn missing_embeddings(
        &self,
        model_id: &str,
        limit: usize,
    ) -> Result<Vec<(MemoryRef, String)>, StoreError> {
        check::model_id(model_id)?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let model_id = model_id.to_owned();
        self.run(move |conn| vectors::missing(conn, &model_id, limit))
            .await
    }

    async fn delete_expired_facts(
        &self,
        now_ms: i64,
        dry_run: bool,
    ) -> Result<Vec<Fact>, StoreError> {
        self.run(move |conn| facts::delete_expired(conn, now_ms, dry_run))
            .await
    }

    async fn delete_facts_by_prefix(
        &self,
        user: &str,
        prefix: &str,
        unseen_before_ms: i64,
        dry_run: bool,
    ) -> Result<Vec<Fact>, StoreError> {
        check::user(user)?;
        check::fact_prefix(prefix)?;
        let (user, prefix) = (user.to_owned(), prefix.to_owned());
        self.run(move |conn| {
            facts::delete_by_prefix(conn, &user, &prefix, unseen_before_ms, dry_run)
        })
        .await
    }

    async fn messages_since(
        &self,
        since_ms: i64,
        limit: usize,
    ) -> Result<Vec<StoredMessage>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.run(move |conn| items::messages_since(conn, since_ms, limit))
            .await
    }
}
