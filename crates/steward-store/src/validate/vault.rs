//! Input limits for the vault's rows (`VaultStore`). Messages name the field, never a value.

use crate::vault::{MAX_SECRET_LEN, Sealed};
use crate::{MAX_SECRET_NAME_LEN, StoreError};

/// A secret's name: 1..=`MAX_SECRET_NAME_LEN` bytes of `a-z`, `0-9`, `_`, `-`, `.`.
pub(crate) fn name(raw: &str) -> Result<(), StoreError> {
    let ok = !raw.is_empty()
        && raw.len() <= MAX_SECRET_NAME_LEN
        && raw
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-.".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(StoreError::InvalidInput(format!(
            "a secret name is 1 to {MAX_SECRET_NAME_LEN} of a-z, 0-9, _, - and ."
        )))
    }
}

pub(crate) fn sealed(sealed: &Sealed) -> Result<(), StoreError> {
    // The tag adds 16 bytes to the value.
    if sealed.ciphertext.len() < 16 || sealed.ciphertext.len() > MAX_SECRET_LEN + 16 {
        return Err(StoreError::InvalidInput(
            "a sealed secret has the wrong size".into(),
        ));
    }
    Ok(())
}
