//! The names of every schema object (table, view, index, trigger) that Steward's own
//! migrations create, read off a fresh in-memory database built by those same migrations.
//! The SQL tools refuse all of them, so a table added by a future migration is protected
//! the day it is added, with no list to keep up to date.
//!
//! Owns: that list. Does not own: the refusal (steward-tools' SQL guard).

use super::migrate;
use crate::StoreError;
use rusqlite::Connection;
use std::sync::OnceLock;

/// Lower-case names, sorted. Err when the fresh schema could not be built: callers must
/// then refuse everything (fail closed).
pub fn own_schema_names() -> Result<&'static [String], StoreError> {
    static NAMES: OnceLock<Result<Vec<String>, String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| build().map_err(|e| e.to_string()));
    match names {
        Ok(v) => Ok(v.as_slice()),
        Err(e) => Err(StoreError::InvalidInput(format!(
            "Steward's schema could not be read: {e}"
        ))),
    }
}

fn build() -> Result<Vec<String>, StoreError> {
    let mut conn = Connection::open_in_memory()?;
    migrate::apply(&mut conn, ":memory:")?;
    let mut stmt = conn.prepare("SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")?;
    let mut names: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .map(|n| n.to_ascii_lowercase())
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_a_store_creates_is_listed() {
        let names = own_schema_names().unwrap();
        for t in [
            "messages",
            "conversations",
            "kv",
            "pending_actions",
            "facts",
            "notes",
            "edge_updates",
            "edge_chats",
            "edge_messages",
        ] {
            assert!(names.iter().any(|n| n == t), "{t} missing from {names:?}");
        }
        // Every PROTECTED_TABLES entry really exists (the list would otherwise be stale).
        for t in crate::PROTECTED_TABLES {
            assert!(names.iter().any(|n| n == t), "{t} is not a Steward table");
        }
        // The edge tables are protected: the model's SQL tools must not forge a sent
        // message's trace or a dedup row.
        for t in ["edge_updates", "edge_chats", "edge_messages"] {
            assert!(crate::PROTECTED_TABLES.contains(&t), "{t} is not protected");
        }
    }
}
