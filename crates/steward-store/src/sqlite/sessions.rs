//! `SessionStore` for SQLite. Owns the web_sessions SQL; limits are checked in
//! `crate::validate` so every adapter refuses the same inputs.

use super::{SqliteStore, decode_err};
use crate::{Session, SessionStore, StoreError, validate};
use rusqlite::{Row, params};
use steward_protocol::PrincipalId;

const BY_HASH: &str = "SELECT id, secret_hash, principal, created_at_ms, last_seen_at_ms, \
     expires_at_ms, user_agent FROM web_sessions WHERE secret_hash = ?1";
const LIST: &str = "SELECT id, secret_hash, principal, created_at_ms, last_seen_at_ms, \
     expires_at_ms, user_agent FROM web_sessions WHERE principal = ?1 \
     ORDER BY created_at_ms DESC, id DESC";
const INSERT: &str = "INSERT INTO web_sessions \
     (id, secret_hash, principal, created_at_ms, last_seen_at_ms, expires_at_ms, user_agent) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
const TOUCH: &str = "UPDATE web_sessions SET last_seen_at_ms = max(last_seen_at_ms, ?2) \
     WHERE id = ?1";
const REVOKE: &str = "DELETE FROM web_sessions WHERE principal = ?1 AND id = ?2";
const REVOKE_BY_HASH: &str = "DELETE FROM web_sessions WHERE secret_hash = ?1";
const REVOKE_ALL: &str = "DELETE FROM web_sessions WHERE principal = ?1";
const PRUNE: &str = "DELETE FROM web_sessions WHERE expires_at_ms <= ?1 OR last_seen_at_ms < ?2";

fn session_from(row: &Row<'_>) -> Result<Session, StoreError> {
    let text = |i: usize| {
        row.get::<_, String>(i)
            .map_err(|e| decode_err("session", e))
    };
    let int = |i: usize| row.get::<_, i64>(i).map_err(|e| decode_err("session", e));
    let principal = PrincipalId::parse(&text(2)?)
        .map_err(|_| StoreError::Corrupt("session: bad principal id".into()))?;
    Ok(Session {
        id: text(0)?,
        secret_hash: text(1)?,
        principal,
        created_at_ms: int(3)?,
        last_seen_at_ms: int(4)?,
        expires_at_ms: int(5)?,
        user_agent: row
            .get::<_, Option<String>>(6)
            .map_err(|e| decode_err("session", e))?,
    })
}

fn gone(rows: usize) -> u64 {
    u64::try_from(rows).unwrap_or(u64::MAX)
}

#[async_trait::async_trait]
impl SessionStore for SqliteStore {
    async fn create_session(&self, session: &Session) -> Result<(), StoreError> {
        validate::session(session)?;
        let s = session.clone();
        self.run(move |conn| {
            conn.prepare_cached(INSERT)?.execute(params![
                s.id,
                s.secret_hash,
                s.principal.as_str(),
                s.created_at_ms,
                s.last_seen_at_ms,
                s.expires_at_ms,
                s.user_agent,
            ])?;
            Ok(())
        })
        .await
    }

    async fn session_by_secret_hash(
        &self,
        secret_hash: &str,
    ) -> Result<Option<Session>, StoreError> {
        validate::secret_hash(secret_hash)?;
        let hash = secret_hash.to_owned();
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(BY_HASH)?;
            let mut rows = stmt.query([&hash])?;
            match rows.next()? {
                Some(row) => session_from(row).map(Some),
                None => Ok(None),
            }
        })
        .await
    }

    async fn touch_session(&self, id: &str, at_ms: i64) -> Result<bool, StoreError> {
        validate::session_id(id)?;
        let id = id.to_owned();
        self.run(move |conn| Ok(conn.prepare_cached(TOUCH)?.execute(params![id, at_ms])? > 0))
            .await
    }

    async fn list_sessions(&self, principal: &PrincipalId) -> Result<Vec<Session>, StoreError> {
        let principal = principal.as_str().to_owned();
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(LIST)?;
            let mut rows = stmt.query([&principal])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                out.push(session_from(row)?);
            }
            Ok(out)
        })
        .await
    }

    async fn revoke_session(&self, principal: &PrincipalId, id: &str) -> Result<bool, StoreError> {
        validate::session_id(id)?;
        let (principal, id) = (principal.as_str().to_owned(), id.to_owned());
        self.run(move |conn| {
            Ok(conn
                .prepare_cached(REVOKE)?
                .execute(params![principal, id])?
                > 0)
        })
        .await
    }

    async fn revoke_session_by_secret_hash(&self, secret_hash: &str) -> Result<bool, StoreError> {
        validate::secret_hash(secret_hash)?;
        let hash = secret_hash.to_owned();
        self.run(move |conn| Ok(conn.prepare_cached(REVOKE_BY_HASH)?.execute([hash])? > 0))
            .await
    }

    async fn revoke_sessions_of(&self, principal: &PrincipalId) -> Result<u64, StoreError> {
        let principal = principal.as_str().to_owned();
        self.run(move |conn| Ok(gone(conn.prepare_cached(REVOKE_ALL)?.execute([principal])?)))
            .await
    }

    async fn prune_sessions(&self, now_ms: i64, idle_before_ms: i64) -> Result<u64, StoreError> {
        self.run(move |conn| {
            Ok(gone(
                conn.prepare_cached(PRUNE)?
                    .execute(params![now_ms, idle_before_ms])?,
            ))
        })
        .await
    }
}
