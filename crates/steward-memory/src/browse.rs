//! Read-only browsing for the surfaces that show memory to the user (the `steward memory`
//! command, the `/api/v1/facts`, `/api/v1/notes`, `/api/v1/read-later`, `/api/v1/learnings`
//! and `/api/v1/reminders` routes, the MCP server's listings, the `forget` tool's preview):
//! one fact or note by key or id, and the plain listings. The owner's changes to read-later
//! items, learnings and follow-ups are in `curate.rs`.
//!
//! Owns: nothing but passing these reads through, so surfaces never need the store itself.
//! Does not own: recall ranking (`recall`), writes or any policy.

use crate::{Memory, MemoryError};
use steward_protocol::{Fact, Note};
use steward_store::{Intention, Learning, MemoryFilter, ReadLater};

impl Memory {
    /// The fact stored under `key`, if any.
    pub async fn get_fact(&self, user: &str, key: &str) -> Result<Option<Fact>, MemoryError> {
        Ok(self.store.get_fact(user, key).await?)
    }

    /// Facts in key order.
    pub async fn list_facts(
        &self,
        user: &str,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Fact>, MemoryError> {
        Ok(self.store.list_facts(user, limit, offset).await?)
    }

    /// The note with this id, if any.
    pub async fn get_note(&self, id: i64) -> Result<Option<Note>, MemoryError> {
        Ok(self.store.get_note(id).await?)
    }

    /// Notes newest first, filtered by tags (all must match) and time.
    pub async fn list_notes(
        &self,
        user: &str,
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<Note>, MemoryError> {
        Ok(self.store.list_notes(user, filter, limit).await?)
    }

    /// The follow-ups kept for `user` (open ones only unless `include_done`).
    pub async fn list_intentions(
        &self,
        user: &str,
        include_done: bool,
    ) -> Result<Vec<Intention>, MemoryError> {
        Ok(self.store.list_intentions(user, !include_done).await?)
    }

    /// Read-later items newest first (any of `tags` matches; empty = all), the read ones too
    /// when `include_read`.
    pub async fn list_read_later(
        &self,
        user: &str,
        tags: &[String],
        include_read: bool,
        limit: usize,
    ) -> Result<Vec<ReadLater>, MemoryError> {
        Ok(self
            .store
            .list_read_later(user, tags, !include_read, limit)
            .await?)
    }

    /// The learnings reflection kept, most recurrent first (then most recently seen).
    pub async fn list_learnings(
        &self,
        user: &str,
        limit: usize,
    ) -> Result<Vec<Learning>, MemoryError> {
        Ok(self.store.top_learnings(user, limit).await?)
    }
}
