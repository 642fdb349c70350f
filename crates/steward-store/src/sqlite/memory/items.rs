//! Uniform reads: any remembered row as a `MemoryItem` (for recall, the context block and the
//! backfill), and the message log since a time (for reflection). Owns those SELECTs only.

use super::{col, parse_provenance, parse_tags};
use crate::sqlite::conversations::decode_message;
use crate::sqlite::sql_limit;
use crate::{MemoryItem, StoreError, StoredMessage};
use rusqlite::Connection;
use steward_protocol::{ConversationId, FactSource, MemoryKind, MemoryRef};

// Every kind read into the same eight columns: user, title, text, tags, created, updated,
// source, provenance.
const FACT: &str = "SELECT user, key, value, '[]', first_seen_ms, last_seen_ms, source, \
     provenance FROM facts WHERE id = ?1";
const NOTE: &str = "SELECT user, title, body, tags, created_at_ms, updated_at_ms, NULL, \
     provenance FROM notes WHERE id = ?1";
const READ_LATER: &str = "SELECT user, title, url || ' ' || title, tags, created_at_ms, \
     created_at_ms, NULL, provenance FROM read_later WHERE id = ?1";
const LEARNING: &str = "SELECT user, '', text, '[]', first_seen_ms, last_seen_ms, NULL, \
     provenance FROM learnings WHERE id = ?1";
const INTENTION: &str = "SELECT user, '', text, '[]', created_at_ms, created_at_ms, NULL, \
     provenance FROM intentions WHERE id = ?1";

const SINCE: &str = "SELECT id, role, content, tool_calls, tool_call_id, tool_name, attachments, \
       conversation_id, created_at \
     FROM messages WHERE created_at >= ?1 ORDER BY created_at, id LIMIT ?2";

fn sql_for(kind: MemoryKind) -> &'static str {
    match kind {
        MemoryKind::Fact => FACT,
        MemoryKind::Note => NOTE,
        MemoryKind::ReadLater => READ_LATER,
        MemoryKind::Learning => LEARNING,
        MemoryKind::Intention => INTENTION,
    }
}

/// Point lookups by primary key, in the order asked; recall asks for a handful at a time.
pub(super) fn get(conn: &Connection, refs: &[MemoryRef]) -> Result<Vec<MemoryItem>, StoreError> {
    let mut out = Vec::with_capacity(refs.len());
    for &r in refs {
        let mut stmt = conn.prepare_cached(sql_for(r.kind))?;
        let mut rows = stmt.query([r.id])?;
        let Some(row) = rows.next()? else {
            continue;
        };
        let what = || format!("{} {}", r.kind.as_str(), r.id);
        let tags: String = col(row, 3, &what)?;
        let source: Option<String> = col(row, 6, &what)?;
        let source = source
            .map(|s| {
                FactSource::parse(&s)
                    .ok_or_else(|| StoreError::Corrupt(format!("{}: unknown source", what())))
            })
            .transpose()?;
        let provenance: String = col(row, 7, &what)?;
        out.push(MemoryItem {
            r#ref: r,
            user: col(row, 0, &what)?,
            title: col(row, 1, &what)?,
            text: col(row, 2, &what)?,
            tags: parse_tags(&what(), &tags)?,
            created_at_ms: col(row, 4, &what)?,
            updated_at_ms: col(row, 5, &what)?,
            source,
            provenance: parse_provenance(&what(), &provenance)?,
        });
    }
    Ok(out)
}

pub(super) fn messages_since(
    conn: &Connection,
    since_ms: i64,
    limit: usize,
) -> Result<Vec<StoredMessage>, StoreError> {
    let mut stmt = conn.prepare_cached(SINCE)?;
    let mut rows = stmt.query(rusqlite::params![since_ms, sql_limit(limit)])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let row_id: i64 = row.get(0)?;
        let what = || format!("message {row_id}");
        let message = decode_message(row, 1, &what)?;
        let raw: String = col(row, 7, &what)?;
        let conversation = ConversationId::parse(&raw).map_err(|e| {
            StoreError::Corrupt(format!(
                "{}: stored conversation id is invalid: {e}",
                what()
            ))
        })?;
        out.push(StoredMessage {
            conversation,
            message,
            at_ms: col(row, 8, &what)?,
        });
    }
    Ok(out)
}
