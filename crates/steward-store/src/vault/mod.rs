//! The vault's sealing (issue 14, first step): a secret is sealed with XChaCha20-Poly1305 under
//! the vault key, with a fresh random 192-bit nonce and the secret's name as associated data —
//! so a value moved to another name, a flipped byte or a truncated row is refused when opened,
//! never returned altered.
//!
//! Owns: the key type, sealing and opening. Does not own: where the key comes from (the
//! environment or a key file: the binary), where sealed secrets are stored (a later table).

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use std::fmt;

/// Bytes of a vault key.
pub const KEY_LEN: usize = 32;
/// Bytes of a nonce.
pub const NONCE_LEN: usize = 24;
/// Longest secret value, in bytes (an API key, a refresh token, a password).
pub const MAX_SECRET_LEN: usize = 16 * 1024;

/// The vault key. Never printed: `Debug` shows nothing of it.
#[derive(Clone)]
pub struct VaultKey([u8; KEY_LEN]);

impl fmt::Debug for VaultKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("VaultKey(…)")
    }
}

/// Why sealing or opening failed; no message carries a secret or the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VaultError {
    #[error("the vault key must be {KEY_LEN} bytes, as 64 hex digits")]
    BadKey,
    #[error("a secret is at most {MAX_SECRET_LEN} bytes")]
    TooLong,
    #[error("no random numbers from the operating system")]
    NoRandom,
    /// The row was changed, moved to another name, or sealed under another key.
    #[error(
        "the sealed secret does not open under this key and name: it was changed or belongs elsewhere"
    )]
    Tampered,
}

/// A sealed secret: its nonce and its ciphertext (with the tag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    pub nonce: [u8; NONCE_LEN],
    pub ciphertext: Vec<u8>,
}

impl VaultKey {
    /// A new random key.
    pub fn generate() -> Result<VaultKey, VaultError> {
        let mut key = [0u8; KEY_LEN];
        getrandom::fill(&mut key).map_err(|_| VaultError::NoRandom)?;
        Ok(VaultKey(key))
    }

    /// A key from 64 hex digits (how `STEWARD_VAULT_KEY` and the key file hold it).
    pub fn from_hex(text: &str) -> Result<VaultKey, VaultError> {
        let text = text.trim();
        if text.len() != KEY_LEN * 2 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(VaultError::BadKey);
        }
        let mut key = [0u8; KEY_LEN];
        for (i, byte) in key.iter_mut().enumerate() {
            *byte =
                u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| VaultError::BadKey)?;
        }
        Ok(VaultKey(key))
    }

    /// The key as 64 hex digits (for the key file only).
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(&self.0.into())
    }

    /// Seal `value` as the secret `name`.
    pub fn seal(&self, name: &str, value: &[u8]) -> Result<Sealed, VaultError> {
        if value.len() > MAX_SECRET_LEN {
            return Err(VaultError::TooLong);
        }
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|_| VaultError::NoRandom)?;
        let ciphertext = self
            .cipher()
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: value,
                    aad: name.as_bytes(),
                },
            )
            .map_err(|_| VaultError::TooLong)?;
        Ok(Sealed { nonce, ciphertext })
    }

    /// Open the secret `name` sealed as `sealed`.
    pub fn open(&self, name: &str, sealed: &Sealed) -> Result<Vec<u8>, VaultError> {
        self.cipher()
            .decrypt(
                &XNonce::from(sealed.nonce),
                Payload {
                    msg: &sealed.ciphertext,
                    aad: name.as_bytes(),
                },
            )
            .map_err(|_| VaultError::Tampered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_under_its_key_and_name_only() {
        let key = VaultKey::generate().unwrap();
        let sealed = key.seal("openai_api_key", b"sk-live-123").unwrap();
        assert_eq!(key.open("openai_api_key", &sealed).unwrap(), b"sk-live-123");
        assert!(!sealed.ciphertext.windows(11).any(|w| w == b"sk-live-123"));
        // Another name, another key, a flipped byte anywhere, a cut tag: refused.
        assert_eq!(
            key.open("telegram_token", &sealed),
            Err(VaultError::Tampered)
        );
        let other = VaultKey::generate().unwrap();
        assert_eq!(
            other.open("openai_api_key", &sealed),
            Err(VaultError::Tampered)
        );
        for i in 0..sealed.ciphertext.len() {
            let mut bad = sealed.clone();
            bad.ciphertext[i] ^= 1;
            assert_eq!(
                key.open("openai_api_key", &bad),
                Err(VaultError::Tampered),
                "byte {i}"
            );
        }
        let mut bad = sealed.clone();
        bad.nonce[0] ^= 1;
        assert_eq!(key.open("openai_api_key", &bad), Err(VaultError::Tampered));
        let mut cut = sealed.clone();
        cut.ciphertext.truncate(cut.ciphertext.len() - 1);
        assert_eq!(key.open("openai_api_key", &cut), Err(VaultError::Tampered));
    }

    #[test]
    fn two_seals_of_one_value_differ_and_the_key_never_prints() {
        let key = VaultKey::generate().unwrap();
        let (a, b) = (key.seal("n", b"v").unwrap(), key.seal("n", b"v").unwrap());
        assert_ne!(a.nonce, b.nonce);
        assert_ne!(a.ciphertext, b.ciphertext);
        let hex = key.to_hex();
        assert!(!format!("{key:?}").contains(&hex[..8]));
        assert_eq!(VaultKey::from_hex(&hex).unwrap().to_hex(), hex);
    }

    #[test]
    fn bad_keys_and_oversized_values_are_refused() {
        for bad in ["", "abc", &"g".repeat(64), &"a".repeat(63), &"a".repeat(65)] {
            assert_eq!(
                VaultKey::from_hex(bad).err(),
                Some(VaultError::BadKey),
                "{bad:?}"
            );
        }
        let key = VaultKey::generate().unwrap();
        assert_eq!(
            key.seal("n", &vec![0u8; MAX_SECRET_LEN + 1]).err(),
            Some(VaultError::TooLong)
        );
        assert!(key.seal("n", &vec![0u8; MAX_SECRET_LEN]).is_ok());
    }
}
