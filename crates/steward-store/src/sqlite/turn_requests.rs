//! `TurnRequestStore` for SQLite. Owns the turn_requests SQL; limits are checked in
//! `crate::validate` so every adapter refuses the same inputs.

use super::{SqliteStore, decode_err};
use crate::{StoreError, TurnRequest, TurnRequestStore, validate};
use rusqlite::{OptionalExtension, params};
use steward_protocol::ConversationId;

const GET: &str = "SELECT conversation_id, turn_id, fingerprint, user_stored, outcome, \
     created_at_ms, updated_at_ms FROM turn_requests WHERE id = ?1";
const SAVE: &str = "INSERT INTO turn_requests \
     (id, conversation_id, turn_id, fingerprint, user_stored, outcome, created_at_ms, updated_at_ms) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
     ON CONFLICT (id) DO UPDATE SET conversation_id = excluded.conversation_id, \
       turn_id = excluded.turn_id, fingerprint = excluded.fingerprint, \
       user_stored = excluded.user_stored, outcome = excluded.outcome, \
       created_at_ms = excluded.created_at_ms, updated_at_ms = excluded.updated_at_ms";
const PRUNE: &str = "DELETE FROM turn_requests WHERE created_at_ms < ?1";

#[async_trait::async_trait]
impl TurnRequestStore for SqliteStore {
    async fn turn_request(&self, key: &str) -> Result<Option<TurnRequest>, StoreError> {
        validate::id("turn request key", key)?;
        let key = key.to_owned();
        self.run(move |conn| {
            let row = conn
                .prepare_cached(GET)?
                .query_row([&key], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, Option<String>>(4)?,
                        r.get::<_, i64>(5)?,
                        r.get::<_, i64>(6)?,
                    ))
                })
                .optional()
                .map_err(|e| decode_err("turn request", e))?;
            let Some((conversation, turn_id, fingerprint, user_stored, outcome, created, updated)) =
                row
            else {
                return Ok(None);
            };
            let conversation = ConversationId::parse(&conversation).map_err(|e| {
                StoreError::Corrupt(format!("turn request: bad conversation id: {e}"))
            })?;
            Ok(Some(TurnRequest {
                key,
                conversation,
                turn_id,
                fingerprint,
                user_stored: user_stored != 0,
                outcome,
                created_at_ms: created,
                updated_at_ms: updated,
            }))
        })
        .await
    }

    async fn save_turn_request(&self, request: &TurnRequest) -> Result<(), StoreError> {
        validate::turn_request(request)?;
        let r = request.clone();
        self.run(move |conn| {
            conn.prepare_cached(SAVE)?.execute(params![
                r.key,
                r.conversation.as_str(),
                r.turn_id,
                r.fingerprint,
                i64::from(r.user_stored),
                r.outcome,
                r.created_at_ms,
                r.updated_at_ms,
            ])?;
            Ok(())
        })
        .await
    }

    async fn prune_turn_requests(&self, before_ms: i64) -> Result<u64, StoreError> {
        self.run(move |conn| {
            let gone = conn.prepare_cached(PRUNE)?.execute([before_ms])?;
            Ok(u64::try_from(gone).unwrap_or(u64::MAX))
        })
        .await
    }
}
