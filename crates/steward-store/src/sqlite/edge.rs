//! `EdgeStore` for SQLite. Owns the edge_updates, edge_chats and edge_messages SQL; limits are
//! checked in `crate::validate::edge` (and by `EdgeKey`'s type) so every adapter refuses the
//! same inputs.

use super::{SqliteStore, decode_err, sql_limit};
use crate::codec::{parse_surface, surface_str};
use crate::{EdgeKey, EdgeStore, MAX_CARD_MESSAGES, SentMessage, StoreError, validate};
use rusqlite::{Row, params};
use steward_protocol::{ConversationId, Surface};

// A claim is an insert that lands or meets the primary key: atomic however many race.
const CLAIM: &str = "INSERT INTO edge_updates (surface, update_key, claimed_at_ms) \
     VALUES (?1, ?2, ?3) ON CONFLICT (surface, update_key) DO NOTHING";
const FORGET: &str = "DELETE FROM edge_updates WHERE surface = ?1 AND claimed_at_ms < ?2";
// A chat's conversation is its latest binding; earlier ones stay, so a conversation keeps
// the chat it lived in after that chat moved on (`conversation_chat`).
const CHAT_CONVERSATION: &str = "SELECT conversation_id FROM edge_chats \
     WHERE surface = ?1 AND chat = ?2 ORDER BY bound_at_ms DESC, id DESC LIMIT 1";
// Each binding is a new row, whose id is then above every other: "the later call" in both
// reads' order.
const BIND: &str = "INSERT INTO edge_chats (surface, chat, conversation_id, bound_at_ms) \
     VALUES (?1, ?2, ?3, ?4)";
const CONVERSATION_CHAT: &str = "SELECT chat FROM edge_chats \
     WHERE surface = ?1 AND conversation_id = ?2 ORDER BY bound_at_ms DESC, id DESC LIMIT 1";
// Each binding's conversation's last message (the highest id: ids grow with every append,
// across conversations), the newest first; a binding whose conversation holds no message
// does not count. The unique (conversation_id, seq) index finds each last message.
const MOST_ACTIVE_CHAT: &str = "SELECT chat FROM \
     (SELECT ec.chat AS chat, \
             (SELECT m.id FROM messages m WHERE m.conversation_id = ec.conversation_id \
              ORDER BY m.seq DESC LIMIT 1) AS last_message \
      FROM edge_chats ec WHERE ec.surface = ?1) \
     WHERE last_message IS NOT NULL ORDER BY last_message DESC LIMIT 1";
// An update in place keeps the row's id, so a re-recorded card keeps its place.
const RECORD: &str = "INSERT INTO edge_messages \
     (surface, chat, message, trace_id, genre, action_id, at_ms) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
     ON CONFLICT (surface, chat, message) DO UPDATE SET trace_id = excluded.trace_id, \
     genre = excluded.genre, action_id = excluded.action_id, at_ms = excluded.at_ms";
const SENT: &str = "SELECT surface, chat, message, trace_id, genre, action_id, at_ms \
     FROM edge_messages WHERE surface = ?1 AND chat = ?2 AND message = ?3";
// The newest `?3`, turned oldest first.
const CARDS: &str = "SELECT surface, chat, message, trace_id, genre, action_id, at_ms FROM \
     (SELECT * FROM edge_messages WHERE surface = ?1 AND action_id = ?2 \
      ORDER BY at_ms DESC, id DESC LIMIT ?3) ORDER BY at_ms, id";

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("edge record: bad {what}"))
}

fn key_from(raw: String, what: &str) -> Result<EdgeKey, StoreError> {
    EdgeKey::parse(&raw).map_err(|_| corrupt(what))
}

fn sent_from(row: &Row<'_>) -> Result<SentMessage, StoreError> {
    let text = |i: usize| {
        row.get::<_, String>(i)
            .map_err(|e| decode_err("sent message", e))
    };
    Ok(SentMessage {
        surface: parse_surface(&text(0)?).ok_or_else(|| corrupt("surface"))?,
        chat: key_from(text(1)?, "chat")?,
        message: key_from(text(2)?, "message")?,
        trace_id: text(3)?,
        genre: text(4)?,
        action_id: row
            .get::<_, Option<String>>(5)
            .map_err(|e| decode_err("sent message", e))?,
        at_ms: row
            .get::<_, i64>(6)
            .map_err(|e| decode_err("sent message", e))?,
    })
}

#[async_trait::async_trait]
impl EdgeStore for SqliteStore {
    async fn claim_update(
        &self,
        surface: Surface,
        update: &EdgeKey,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let update = update.as_str().to_owned();
        self.run(move |conn| {
            let inserted = conn.prepare_cached(CLAIM)?.execute(params![
                surface_str(surface),
                update,
                at_ms
            ])?;
            Ok(inserted == 1)
        })
        .await
    }

    async fn forget_updates_before(
        &self,
        surface: Surface,
        before_ms: i64,
    ) -> Result<u64, StoreError> {
        self.run(move |conn| {
            let gone = conn
                .prepare_cached(FORGET)?
                .execute(params![surface_str(surface), before_ms])?;
            Ok(u64::try_from(gone).unwrap_or(u64::MAX))
        })
        .await
    }

    async fn chat_conversation(
        &self,
        surface: Surface,
        chat: &EdgeKey,
    ) -> Result<Option<ConversationId>, StoreError> {
        let chat = chat.as_str().to_owned();
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(CHAT_CONVERSATION)?;
            let mut rows = stmt.query(params![surface_str(surface), chat])?;
            let Some(row) = rows.next()? else {
                return Ok(None);
            };
            let raw: String = row.get(0).map_err(|e| decode_err("chat binding", e))?;
            ConversationId::parse(&raw)
                .map(Some)
                .map_err(|_| corrupt("conversation id"))
        })
        .await
    }

    async fn bind_chat(
        &self,
        surface: Surface,
        chat: &EdgeKey,
        conversation: &ConversationId,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        let chat = chat.as_str().to_owned();
        let conversation = conversation.as_str().to_owned();
        self.run(move |conn| {
            conn.prepare_cached(BIND)?.execute(params![
                surface_str(surface),
                chat,
                conversation,
                at_ms
            ])?;
            Ok(())
        })
        .await
    }

    async fn conversation_chat(
        &self,
        surface: Surface,
        conversation: &ConversationId,
    ) -> Result<Option<EdgeKey>, StoreError> {
        let conversation = conversation.as_str().to_owned();
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(CONVERSATION_CHAT)?;
            let mut rows = stmt.query(params![surface_str(surface), conversation])?;
            let Some(row) = rows.next()? else {
                return Ok(None);
            };
            let raw: String = row.get(0).map_err(|e| decode_err("chat binding", e))?;
            key_from(raw, "chat").map(Some)
        })
        .await
    }

    async fn most_active_chat(
        &self,
        surface: Surface,
    ) -> Result<Option<(EdgeKey, ConversationId)>, StoreError> {
        self.run(move |conn| {
            let raw: Option<String> = {
                let mut stmt = conn.prepare_cached(MOST_ACTIVE_CHAT)?;
                let mut rows = stmt.query(params![surface_str(surface)])?;
                match rows.next()? {
                    Some(row) => Some(row.get(0).map_err(|e| decode_err("chat binding", e))?),
                    None => None,
                }
            };
            let Some(raw) = raw else {
                return Ok(None);
            };
            let mut stmt = conn.prepare_cached(CHAT_CONVERSATION)?;
            let mut rows = stmt.query(params![surface_str(surface), raw])?;
            let Some(row) = rows.next()? else {
                return Ok(None);
            };
            let conversation: String = row.get(0).map_err(|e| decode_err("chat binding", e))?;
            let conversation =
                ConversationId::parse(&conversation).map_err(|_| corrupt("conversation id"))?;
            Ok(Some((key_from(raw, "chat")?, conversation)))
        })
        .await
    }

    async fn record_sent(&self, sent: &SentMessage) -> Result<(), StoreError> {
        validate::edge::sent(sent)?;
        let s = sent.clone();
        self.run(move |conn| {
            conn.prepare_cached(RECORD)?.execute(params![
                surface_str(s.surface),
                s.chat.as_str(),
                s.message.as_str(),
                s.trace_id,
                s.genre,
                s.action_id,
                s.at_ms,
            ])?;
            Ok(())
        })
        .await
    }

    async fn sent_message(
        &self,
        surface: Surface,
        chat: &EdgeKey,
        message: &EdgeKey,
    ) -> Result<Option<SentMessage>, StoreError> {
        let (chat, message) = (chat.as_str().to_owned(), message.as_str().to_owned());
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(SENT)?;
            let mut rows = stmt.query(params![surface_str(surface), chat, message])?;
            match rows.next()? {
                Some(row) => sent_from(row).map(Some),
                None => Ok(None),
            }
        })
        .await
    }

    async fn card_messages(
        &self,
        surface: Surface,
        action_id: &str,
    ) -> Result<Vec<SentMessage>, StoreError> {
        validate::action_id(action_id)?;
        let action_id = action_id.to_owned();
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(CARDS)?;
            let mut rows = stmt.query(params![
                surface_str(surface),
                action_id,
                sql_limit(MAX_CARD_MESSAGES)
            ])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                out.push(sent_from(row)?);
            }
            Ok(out)
        })
        .await
    }
}
