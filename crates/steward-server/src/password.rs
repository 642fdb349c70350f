//! The owner's sign-in password for the web app: its rule, Argon2id hashing to a PHC string
//! (random salt, the crate's default cost: 19 MiB, 2 passes, 1 lane — OWASP's baseline), and
//! verification. Only the PHC string is stored (`PASSWORD_KEY` in the store's protected kv
//! table, out of reach of the SQL tools); the password itself is never kept, logged or echoed.
//!
//! Owns: the rule and the hash. Does not own: reading the password (the CLI's
//! `steward user set-password`, from standard input) or sessions (the sign-in route).

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

/// Where the PHC string is kept (the store's `kv` table).
pub const PASSWORD_KEY: &str = "auth.password";
/// Shortest accepted password, in characters: long enough that the rate-limited sign-in
/// cannot guess it, short enough to type on a phone.
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Longest accepted password, in bytes: Argon2 reads all of it, and a sign-in must not be a
/// way to make the server hash megabytes.
pub const MAX_PASSWORD_BYTES: usize = 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    #[error("the password must have at least {MIN_PASSWORD_CHARS} characters")]
    TooShort,
    #[error("the password must be at most {MAX_PASSWORD_BYTES} bytes")]
    TooLong,
    #[error("the password must not start or end with a space, or hold control characters")]
    BadChars,
    /// Hashing failed (no randomness for the salt); the message holds no part of the password.
    #[error("could not hash the password: {0}")]
    Hash(String),
}

/// The password rule. Spaces inside are fine (pass phrases); a leading or trailing one is
/// refused because it is almost always a paste or typing slip the owner could not see.
pub fn check_password(password: &str) -> Result<(), PasswordError> {
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(PasswordError::TooLong);
    }
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(PasswordError::TooShort);
    }
    if password.trim() != password || password.chars().any(char::is_control) {
        return Err(PasswordError::BadChars);
    }
    Ok(())
}

/// The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) of a password that follows the rule.
pub fn hash_password(password: &str) -> Result<String, PasswordError> {
    check_password(password)?;
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| PasswordError::Hash(e.to_string()))
}

/// Whether `password` matches the stored PHC string. A malformed or oversized input, or a
/// stored string that does not parse, is simply no match (never an error a caller could
/// tell apart from a wrong password).
pub fn verify_password(password: &str, stored: &str) -> bool {
    if password.len() > MAX_PASSWORD_BYTES {
        return false;
    }
    let Ok(parsed) = PasswordHash::new(stored) else {
        return false;
    };
    Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "correct horse battery";

    #[test]
    fn a_hash_is_argon2id_salted_and_verifies_only_its_password() {
        let a = hash_password(GOOD).unwrap();
        let b = hash_password(GOOD).unwrap();
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "a fresh salt each time");
        assert!(!a.contains(GOOD) && !a.contains("horse"));
        assert!(verify_password(GOOD, &a));
        assert!(verify_password(GOOD, &b));
        for wrong in ["correct horse batterY", "correct horse battery ", "", "x"] {
            assert!(!verify_password(wrong, &a), "{wrong:?}");
        }
    }

    #[test]
    fn the_rule_refuses_short_long_padded_and_control_input() {
        assert_eq!(hash_password("short one"), Err(PasswordError::TooShort));
        assert_eq!(
            hash_password(&"a".repeat(MAX_PASSWORD_BYTES + 1)),
            Err(PasswordError::TooLong)
        );
        for bad in [
            " correct horse battery",
            "correct horse battery\n",
            "correct\thorse battery",
        ] {
            assert_eq!(hash_password(bad), Err(PasswordError::BadChars), "{bad:?}");
        }
        // Characters, not bytes: twelve letters of any script pass.
        assert!(check_password("пароль-пароль").is_ok());
        assert_eq!(check_password("ключ-ключ"), Err(PasswordError::TooShort));
    }

    #[test]
    fn forged_or_oversized_input_is_no_match_not_a_crash() {
        let stored = hash_password(GOOD).unwrap();
        assert!(!verify_password(
            &"a".repeat(MAX_PASSWORD_BYTES + 1),
            &stored
        ));
        for forged in [
            "",
            "plain",
            "$argon2id$v=19$m=1,t=1,p=1$",
            "$md5$x$y",
            &stored[..20],
        ] {
            assert!(!verify_password(GOOD, forged), "{forged:?}");
        }
    }
}
