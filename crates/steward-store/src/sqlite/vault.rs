//! `VaultStore` for SQLite: the `vault_secrets` table (v18). Limits are `validate::vault`'s.

use super::{SqliteStore, decode_err};
use crate::validate::vault as check;
use crate::vault::{NONCE_LEN, Sealed};
use crate::{SecretEntry, StoreError, VaultStore};
use rusqlite::{OptionalExtension, params};

const PUT: &str = "INSERT INTO vault_secrets (name, nonce, ciphertext, updated_ms) VALUES (?1, ?2, ?3, ?4) \
     ON CONFLICT (name) DO UPDATE SET nonce = excluded.nonce, ciphertext = excluded.ciphertext, \
     updated_ms = excluded.updated_ms";

#[async_trait::async_trait]
impl VaultStore for SqliteStore {
    async fn put_sealed(&self, name: &str, sealed: &Sealed, at_ms: i64) -> Result<(), StoreError> {
        check::name(name)?;
        check::sealed(sealed)?;
        let (name, sealed) = (name.to_owned(), sealed.clone());
        self.run(move |conn| {
            conn.prepare_cached(PUT)?.execute(params![
                name,
                sealed.nonce.as_slice(),
                sealed.ciphertext,
                at_ms
            ])?;
            Ok(())
        })
        .await
    }

    async fn sealed(&self, name: &str) -> Result<Option<Sealed>, StoreError> {
        check::name(name)?;
        let name = name.to_owned();
        self.run(move |conn| {
            let row = conn
                .prepare_cached("SELECT nonce, ciphertext FROM vault_secrets WHERE name = ?1")?
                .query_row([name], |r| {
                    Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, Vec<u8>>(1)?))
                })
                .optional()?;
            let Some((nonce, ciphertext)) = row else {
                return Ok(None);
            };
            // A nonce of another size is a damaged row: opening it would fail anyway, so say
            // what it is.
            let nonce: [u8; NONCE_LEN] = nonce
                .try_into()
                .map_err(|_| StoreError::Corrupt("vault secret: bad nonce".into()))?;
            Ok(Some(Sealed { nonce, ciphertext }))
        })
        .await
    }

    async fn secret_names(&self) -> Result<Vec<SecretEntry>, StoreError> {
        self.run(move |conn| {
            let mut stmt =
                conn.prepare_cached("SELECT name, updated_ms FROM vault_secrets ORDER BY name")?;
            let mut rows = stmt.query([])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                out.push(SecretEntry {
                    name: row.get(0).map_err(|e| decode_err("vault secret", e))?,
                    updated_ms: row.get(1).map_err(|e| decode_err("vault secret", e))?,
                });
            }
            Ok(out)
        })
        .await
    }

    async fn delete_sealed(&self, name: &str) -> Result<bool, StoreError> {
        check::name(name)?;
        let name = name.to_owned();
        self.run(move |conn| {
            Ok(conn
                .prepare_cached("DELETE FROM vault_secrets WHERE name = ?1")?
                .execute([name])?
                == 1)
        })
        .await
    }
}
