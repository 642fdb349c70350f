//! Read-only browsing for the surfaces that show memory to the user (the `steward memory`
//! command, the `/api/v1/facts` and `/api/v1/notes` routes, the MCP server's listings, the
//! `forget` tool's preview): one fact or note by key or id, and the plain listings.
//!
//! Owns: nothing but passing these reads through, so surfaces never need the store itself.
//! Does not own: recall ranking (`recall`), writes or any policy.

use crate::{Memory, MemoryError};
use steward_protocol::{Fact, Note};
use steward_store::{Intention, MemoryFilter};

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
}
