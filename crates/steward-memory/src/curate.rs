//! The owner's changes to what was kept for them beside facts and notes: marking a
//! read-later item read (or unread again), closing or reopening a follow-up, deleting a
//! read-later item, a learning or a follow-up. Every change names the user as well as the row,
//! so one user's id never changes another's row.
//!
//! Owns: passing these through on this memory's clock. Does not own: who may ask (the desk in
//! steward-core checks the principal) or the SQL (steward-store).

use crate::{Memory, MemoryError};
use steward_store::{Intention, ReadLater};

impl Memory {
    /// `None` when `user` has no such item.
    pub async fn mark_read_later(
        &self,
        user: &str,
        id: i64,
        read: bool,
    ) -> Result<Option<ReadLater>, MemoryError> {
        Ok(self
            .store
            .mark_read_later(user, id, read, self.now_ms())
            .await?)
    }

    /// True if `user` had it.
    pub async fn delete_read_later(&self, user: &str, id: i64) -> Result<bool, MemoryError> {
        Ok(self.store.delete_read_later(user, id).await?)
    }

    /// True if `user` had it. Reflection may learn it again later, from recurrence 1.
    pub async fn delete_learning(&self, user: &str, id: i64) -> Result<bool, MemoryError> {
        Ok(self.store.delete_learning(user, id).await?)
    }

    /// Close (`done`) or reopen a follow-up; `None` when `user` has no such follow-up.
    pub async fn set_intention_done(
        &self,
        user: &str,
        id: i64,
        done: bool,
    ) -> Result<Option<Intention>, MemoryError> {
        Ok(self.store.set_intention_done(user, id, done).await?)
    }

    /// True if `user` had it.
    pub async fn delete_intention(&self, user: &str, id: i64) -> Result<bool, MemoryError> {
        Ok(self.store.delete_intention(user, id).await?)
    }
}
