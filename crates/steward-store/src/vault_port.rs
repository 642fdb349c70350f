//! The `VaultStore` port: sealed secrets by name — put (replacing), read, list names, delete.
//! The store never sees a key or a value: it keeps what `vault::VaultKey::seal` made.
//!
//! Owns the storage semantics (enforced by `contract`). Does not own: sealing (`vault`),
//! where the key comes from (the binary).
//!
//! Limits (`validate/vault.rs`): a name is 1..=`MAX_SECRET_NAME_LEN` bytes of `a-z`, `0-9`,
//! `_`, `-` and `.`; a ciphertext at most `vault::MAX_SECRET_LEN` + 16 bytes.

use crate::StoreError;
use crate::vault::Sealed;
use std::sync::Arc;

/// Longest secret name, in bytes.
pub const MAX_SECRET_NAME_LEN: usize = 64;

/// A listed secret: its name and when it was last set. Never its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretEntry {
    pub name: String,
    pub updated_ms: i64,
}

#[async_trait::async_trait]
pub trait VaultStore: Send + Sync {
    /// Keep `sealed` as `name`, replacing what was there.
    async fn put_sealed(&self, name: &str, sealed: &Sealed, at_ms: i64) -> Result<(), StoreError>;
    async fn sealed(&self, name: &str) -> Result<Option<Sealed>, StoreError>;
    /// Every name, in name order.
    async fn secret_names(&self) -> Result<Vec<SecretEntry>, StoreError>;
    /// True when it existed.
    async fn delete_sealed(&self, name: &str) -> Result<bool, StoreError>;
}

#[async_trait::async_trait]
impl<T: VaultStore + ?Sized> VaultStore for Arc<T> {
    async fn put_sealed(&self, name: &str, sealed: &Sealed, at_ms: i64) -> Result<(), StoreError> {
        (**self).put_sealed(name, sealed, at_ms).await
    }

    async fn sealed(&self, name: &str) -> Result<Option<Sealed>, StoreError> {
        (**self).sealed(name).await
    }

    async fn secret_names(&self) -> Result<Vec<SecretEntry>, StoreError> {
        (**self).secret_names().await
    }

    async fn delete_sealed(&self, name: &str) -> Result<bool, StoreError> {
        (**self).delete_sealed(name).await
    }
}
