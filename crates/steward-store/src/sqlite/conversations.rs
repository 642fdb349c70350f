//! `ConversationStore` for SQLite: appending and reading messages, listing conversations.
//! Owns the SQL and the row <-> `Message` mapping; connection handling is in `mod.rs`.

use super::{SqliteStore, decode_err, now_ms, sql_limit};
use crate::{ConversationStore, ConversationSummary, StoreError, validate};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use steward_protocol::{ConversationId, Message, Role, ToolCall};

/// A message ready to insert: owned (it crosses to a blocking thread) and already encoded, so
/// the write transaction does no work beyond the inserts.
struct NewRow {
    role: &'static str,
    content: String,
    tool_calls: Option<String>,
    tool_call_id: Option<String>,
    tool_name: Option<String>,
}

fn encode(messages: &[Message]) -> Result<Vec<NewRow>, StoreError> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let tool_calls = if m.tool_calls.is_empty() {
                None
            } else {
                let json = serde_json::to_string(&m.tool_calls).map_err(|e| {
                    StoreError::InvalidInput(format!(
                        "message {i} tool calls cannot be encoded: {e}"
                    ))
                })?;
                Some(json)
            };
            Ok(NewRow {
                role: m.role.as_str(),
                content: m.content.clone(),
                tool_calls,
                tool_call_id: m.tool_call_id.clone(),
                tool_name: m.tool_name.clone(),
            })
        })
        .collect()
}

fn parse_role(raw: &str) -> Option<Role> {
    match raw {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "tool" => Some(Role::Tool),
        _ => None,
    }
}

/// Reads a message from five columns starting at `first`: role, content, tool_calls,
/// tool_call_id, tool_name. Shared with the memory module's `messages_since`.
pub(super) fn decode_message(
    row: &rusqlite::Row<'_>,
    first: usize,
    what: &dyn Fn() -> String,
) -> Result<Message, StoreError> {
    let role: String = row.get(first).map_err(|e| decode_err(&what(), e))?;
    let role = parse_role(&role)
        .ok_or_else(|| StoreError::Corrupt(format!("{}: unknown role", what())))?;
    let content: String = row.get(first + 1).map_err(|e| decode_err(&what(), e))?;
    let tool_calls: Option<String> = row.get(first + 2).map_err(|e| decode_err(&what(), e))?;
    let tool_calls: Vec<ToolCall> = match tool_calls {
        None => Vec::new(),
        Some(json) => serde_json::from_str(&json).map_err(|e| {
            StoreError::Corrupt(format!("{}: tool_calls is not valid JSON: {e}", what()))
        })?,
    };
    Ok(Message {
        role,
        content,
        tool_calls,
        tool_call_id: row.get(first + 3).map_err(|e| decode_err(&what(), e))?,
        tool_name: row.get(first + 4).map_err(|e| decode_err(&what(), e))?,
    })
}

const UPSERT_CONVERSATION: &str = "INSERT INTO conversations (id, created_at, updated_at) \
     VALUES (?1, ?2, ?2) \
     ON CONFLICT (id) DO UPDATE SET updated_at = max(updated_at, excluded.updated_at)";

const LAST_SEQ: &str =
    "SELECT seq FROM messages WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT 1";

const INSERT_MESSAGE: &str = "INSERT INTO messages \
     (conversation_id, seq, role, content, tool_calls, tool_call_id, tool_name, created_at) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

const RECENT: &str = "SELECT id, role, content, tool_calls, tool_call_id, tool_name \
     FROM messages WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT ?2";

// Ties on updated_at (same millisecond) are broken by the newest message id, which grows with
// every append; the inner query limits first so the counts are computed only for returned rows.
const LIST: &str = "SELECT c.id, c.created_at, c.updated_at, \
       (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) \
     FROM (SELECT id, created_at, updated_at, \
             (SELECT m.id FROM messages m WHERE m.conversation_id = conversations.id \
              ORDER BY m.seq DESC LIMIT 1) AS last_message \
           FROM conversations \
           ORDER BY updated_at DESC, last_message DESC, id \
           LIMIT ?1) AS c \
     ORDER BY c.updated_at DESC, c.last_message DESC, c.id";

#[async_trait::async_trait]
impl ConversationStore for SqliteStore {
    async fn append_messages(
        &self,
        conversation: &ConversationId,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        if messages.is_empty() {
            return Ok(());
        }
        // The one scrub for stored text (`validate::messages`): NUL never fails an append.
        let rows = encode(&validate::messages(messages))?;
        let id = conversation.as_str().to_owned();
        self.run(move |conn| {
            let now = now_ms();
            // IMMEDIATE: the next seq is read and used under the write lock, so appends from
            // other processes cannot claim the same numbers.
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.prepare_cached(UPSERT_CONVERSATION)?
                .execute(params![id, now])?;
            let last: Option<i64> = tx
                .prepare_cached(LAST_SEQ)?
                .query_row([&id], |row| row.get(0))
                .optional()?;
            let first = last.map_or(0, |s| s + 1);
            {
                let mut insert = tx.prepare_cached(INSERT_MESSAGE)?;
                for (seq, row) in (first..).zip(&rows) {
                    insert.execute(params![
                        id,
                        seq,
                        row.role,
                        row.content,
                        row.tool_calls,
                        row.tool_call_id,
                        row.tool_name,
                        now
                    ])?;
                }
            }
            // Dropping an uncommitted transaction rolls back: an error above leaves nothing.
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn recent_messages(
        &self,
        conversation: &ConversationId,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let id = conversation.as_str().to_owned();
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(RECENT)?;
            let mut rows = stmt.query(params![id, sql_limit(limit)])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let row_id: i64 = row.get(0)?;
                out.push(decode_message(row, 1, &|| {
                    format!("message {row_id} of conversation {id}")
                })?);
            }
            // Fetched newest first so LIMIT keeps the last n; callers want oldest first.
            out.reverse();
            Ok(out)
        })
        .await
    }

    async fn list_conversations(
        &self,
        limit: usize,
    ) -> Result<Vec<ConversationSummary>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(LIST)?;
            let mut rows = stmt.query([sql_limit(limit)])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let raw: String = row.get(0).map_err(|e| decode_err("conversation id", e))?;
                let id = ConversationId::parse(&raw).map_err(|e| {
                    StoreError::Corrupt(format!("stored conversation id is invalid: {e}"))
                })?;
                let what = || format!("conversation {id}");
                let count: i64 = row.get(3)?;
                out.push(ConversationSummary {
                    created_at_ms: row.get(1).map_err(|e| decode_err(&what(), e))?,
                    updated_at_ms: row.get(2).map_err(|e| decode_err(&what(), e))?,
                    message_count: u64::try_from(count).map_err(|_| {
                        StoreError::Corrupt(format!("{}: negative message count", what()))
                    })?,
                    id,
                });
            }
            Ok(out)
        })
        .await
    }
}
