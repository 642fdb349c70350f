//! `KvStore` for SQLite. Owns the kv SQL; limits are checked in `crate::validate` so every
//! adapter refuses the same inputs.

use super::{SqliteStore, decode_err, sql_limit};
use crate::{KvStore, StoreError, validate};
use rusqlite::{OptionalExtension, params};

const GET: &str = "SELECT value FROM kv WHERE key = ?1";
const PUT: &str = "INSERT INTO kv (key, value, updated_at) VALUES (?1, ?2, ?3) \
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at";
const PUT_IF_ABSENT: &str =
    "INSERT INTO kv (key, value, updated_at) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO NOTHING";
const DELETE: &str = "DELETE FROM kv WHERE key = ?1";
// A range scan on the primary key instead of LIKE, whose `%`/`_` wildcards would widen the
// match. Keys with the prefix sort first in the range, so the scan stops at the first key
// without it (see `kv_list_prefix`).
const FROM_KEY: &str = "SELECT key, value FROM kv WHERE key >= ?1 ORDER BY key LIMIT ?2";

#[async_trait::async_trait]
impl KvStore for SqliteStore {
    async fn kv_get(&self, key: &str) -> Result<Option<String>, StoreError> {
        validate::kv_key(key)?;
        let key = key.to_owned();
        self.run(move |conn| {
            conn.prepare_cached(GET)?
                .query_row([&key], |row| row.get::<_, String>(0))
                .optional()
                .map_err(|e| decode_err("kv value", e))
        })
        .await
    }

    async fn kv_put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        validate::kv_key(key)?;
        validate::kv_value(value)?;
        let (key, value) = (key.to_owned(), value.to_owned());
        let now = self.now_ms();
        self.run(move |conn| {
            conn.prepare_cached(PUT)?
                .execute(params![key, value, now])?;
            Ok(())
        })
        .await
    }

    async fn kv_put_if_absent(&self, key: &str, value: &str) -> Result<bool, StoreError> {
        validate::kv_key(key)?;
        validate::kv_value(value)?;
        let (key, value) = (key.to_owned(), value.to_owned());
        let now = self.now_ms();
        self.run(move |conn| {
            let inserted = conn
                .prepare_cached(PUT_IF_ABSENT)?
                .execute(params![key, value, now])?;
            Ok(inserted == 1)
        })
        .await
    }

    async fn kv_delete(&self, key: &str) -> Result<bool, StoreError> {
        validate::kv_key(key)?;
        let key = key.to_owned();
        self.run(move |conn| Ok(conn.prepare_cached(DELETE)?.execute([&key])? > 0))
            .await
    }

    async fn kv_list_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<(String, String)>, StoreError> {
        validate::kv_prefix(prefix)?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let prefix = prefix.to_owned();
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(FROM_KEY)?;
            let mut rows = stmt.query(params![prefix, sql_limit(limit)])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let key: String = row.get(0).map_err(|e| decode_err("kv key", e))?;
                // Byte order (SQLite's BINARY collation) puts every key with the prefix before
                // any other key >= prefix, so the first miss ends the match.
                if !key.starts_with(&prefix) {
                    break;
                }
                let value: String = row.get(1).map_err(|e| decode_err("kv value", e))?;
                out.push((key, value));
            }
            Ok(out)
        })
        .await
    }
}
