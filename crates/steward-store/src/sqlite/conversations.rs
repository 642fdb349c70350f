//! `ConversationStore` for SQLite: appending and reading messages, listing, paging, titling
//! and deleting conversations.
//! Owns the SQL and the row <-> `Message` mapping; connection handling is in `mod.rs`.

use super::{SqliteStore, decode_err, sql_limit};
use crate::{ConversationStore, ConversationSummary, HistoryItem, StoreError, validate};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use steward_protocol::{Attachment, ConversationId, ConversationTitle, Message, Role, ToolCall};

/// A message ready to insert: owned (it crosses to a blocking thread) and already encoded, so
/// the write transaction does no work beyond the inserts.
struct NewRow {
    role: &'static str,
    content: String,
    tool_calls: Option<String>,
    tool_call_id: Option<String>,
    tool_name: Option<String>,
    attachments: Option<String>,
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
            let attachments = if m.attachments.is_empty() {
                None
            } else {
                let json = serde_json::to_string(&m.attachments).map_err(|e| {
                    StoreError::InvalidInput(format!(
                        "message {i} attachments cannot be encoded: {e}"
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
                attachments,
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

/// Reads a message from six columns starting at `first`: role, content, tool_calls,
/// tool_call_id, tool_name, attachments. Shared with the memory module's `messages_since`.
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
    let attachments: Option<String> = row.get(first + 5).map_err(|e| decode_err(&what(), e))?;
    // Each attachment re-checks its rules on the way in (media type, name, blob reference,
    // kind against type), so a tampered row is `Corrupt`, never a path or type let through.
    let attachments: Vec<Attachment> = match attachments {
        None => Vec::new(),
        Some(json) => serde_json::from_str(&json).map_err(|e| {
            StoreError::Corrupt(format!("{}: attachments are not valid: {e}", what()))
        })?,
    };
    Ok(Message {
        role,
        content,
        tool_calls,
        tool_call_id: row.get(first + 3).map_err(|e| decode_err(&what(), e))?,
        tool_name: row.get(first + 4).map_err(|e| decode_err(&what(), e))?,
        attachments,
    })
}

const UPSERT_CONVERSATION: &str = "INSERT INTO conversations (id, created_at, updated_at) \
     VALUES (?1, ?2, ?2) \
     ON CONFLICT (id) DO UPDATE SET updated_at = max(updated_at, excluded.updated_at)";

const LAST_SEQ: &str =
    "SELECT seq FROM messages WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT 1";

const INSERT_MESSAGE: &str = "INSERT INTO messages \
     (conversation_id, seq, role, content, tool_calls, tool_call_id, tool_name, created_at, \
      attachments) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";

const RECENT: &str = "SELECT id, role, content, tool_calls, tool_call_id, tool_name, attachments \
     FROM messages WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT ?2";

// Ties on updated_at (same millisecond) are broken by the newest message id, which grows with
// every append; the inner query limits first so the counts are computed only for returned rows.
const LIST: &str = "SELECT c.id, c.created_at, c.updated_at, \
       (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id), c.title \
     FROM (SELECT id, created_at, updated_at, title, \
             (SELECT m.id FROM messages m WHERE m.conversation_id = conversations.id \
              ORDER BY m.seq DESC LIMIT 1) AS last_message \
           FROM conversations \
           ORDER BY updated_at DESC, last_message DESC, id \
           LIMIT ?1) AS c \
     ORDER BY c.updated_at DESC, c.last_message DESC, c.id";

const ONE: &str = "SELECT c.id, c.created_at, c.updated_at, \
       (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id), c.title \
     FROM conversations c WHERE c.id = ?1";

const PAGE: &str = "SELECT seq, created_at, role, content, tool_calls, tool_call_id, tool_name, \
       attachments \
     FROM messages WHERE conversation_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3";

const SET_TITLE: &str = "UPDATE conversations SET title = ?2 WHERE id = ?1";

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
        let now = self.now_ms();
        self.run(move |conn| {
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
                        now,
                        row.attachments
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
                out.push(summary_row(row)?);
            }
            Ok(out)
        })
        .await
    }

    async fn conversation(
        &self,
        conversation: &ConversationId,
    ) -> Result<Option<ConversationSummary>, StoreError> {
        let id = conversation.as_str().to_owned();
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(ONE)?;
            let mut rows = stmt.query([&id])?;
            match rows.next()? {
                Some(row) => Ok(Some(summary_row(row)?)),
                None => Ok(None),
            }
        })
        .await
    }

    async fn history_page(
        &self,
        conversation: &ConversationId,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Vec<HistoryItem>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let id = conversation.as_str().to_owned();
        let before = before.map_or(i64::MAX, |b| i64::try_from(b).unwrap_or(i64::MAX));
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(PAGE)?;
            let mut rows = stmt.query(params![id, before, sql_limit(limit)])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let seq: i64 = row.get(0)?;
                let what = || format!("message {seq} of conversation {id}");
                out.push(HistoryItem {
                    seq: u64::try_from(seq)
                        .map_err(|_| StoreError::Corrupt(format!("{}: negative seq", what())))?,
                    at_ms: row.get(1).map_err(|e| decode_err(&what(), e))?,
                    message: decode_message(row, 2, &what)?,
                });
            }
            // Fetched newest first so LIMIT keeps the page nearest `before`.
            out.reverse();
            Ok(out)
        })
        .await
    }

    async fn set_title(
        &self,
        conversation: &ConversationId,
        title: Option<&ConversationTitle>,
    ) -> Result<bool, StoreError> {
        let id = conversation.as_str().to_owned();
        let title = title.map(|t| t.as_str().to_owned());
        self.run(move |conn| {
            Ok(conn
                .prepare_cached(SET_TITLE)?
                .execute(params![id, title])?
                == 1)
        })
        .await
    }

    async fn delete_conversation(&self, conversation: &ConversationId) -> Result<bool, StoreError> {
        let id = conversation.as_str().to_owned();
        self.run(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute("DELETE FROM messages WHERE conversation_id = ?1", [&id])?;
            tx.execute(
                "DELETE FROM turn_requests WHERE conversation_id = ?1",
                [&id],
            )?;
            let gone = tx.execute("DELETE FROM conversations WHERE id = ?1", [&id])?;
            tx.commit()?;
            Ok(gone == 1)
        })
        .await
    }
}

/// A `ConversationSummary` from the five columns of `LIST` / `ONE`.
fn summary_row(row: &rusqlite::Row<'_>) -> Result<ConversationSummary, StoreError> {
    let raw: String = row.get(0).map_err(|e| decode_err("conversation id", e))?;
    let id = ConversationId::parse(&raw)
        .map_err(|e| StoreError::Corrupt(format!("stored conversation id is invalid: {e}")))?;
    let what = || format!("conversation {id}");
    let count: i64 = row.get(3)?;
    let title: Option<String> = row.get(4).map_err(|e| decode_err(&what(), e))?;
    Ok(ConversationSummary {
        created_at_ms: row.get(1).map_err(|e| decode_err(&what(), e))?,
        updated_at_ms: row.get(2).map_err(|e| decode_err(&what(), e))?,
        message_count: u64::try_from(count)
            .map_err(|_| StoreError::Corrupt(format!("{}: negative message count", what())))?,
        // A title the rule no longer accepts reads as untitled rather than failing the list.
        title: title.and_then(|t| ConversationTitle::parse(&t).ok()),
        id,
    })
}
