//! The session cookie's secret and what is derived from it: the SHA-256 the store keeps, the
//! CSRF token the page sends back, and the `Set-Cookie` values that hand it out and take it
//! back. A secret is 32 random bytes in base64url (43 characters, no padding).
//!
//! Owns: generating, parsing, hashing and deriving; the cookie's name and attributes. Does
//! not own: which requests a cookie may authenticate (`auth.rs`) or how long a session lives
//! (`session/mod.rs`). A secret is never logged, never in an error and never in `Debug`.
//!
//! Why the CSRF token is derived rather than stored: a request authenticated by the cookie
//! brings the secret anyway, so `SHA-256("steward-csrf-v1\0" ‖ secret)` gives the same token
//! every time with nothing more to keep; the stored hash (`SHA-256(secret)`, other input) does
//! not give it, so a copy of the database yields neither a session nor its CSRF token.

use axum::http::HeaderMap;
use axum::http::header::COOKIE;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use std::fmt;

/// The cookie's name.
pub(crate) const COOKIE_NAME: &str = "steward_session";
/// Length of a secret (and of a CSRF token) in base64url characters: 32 bytes.
const ENCODED_LEN: usize = 43;
const CSRF_DOMAIN: &[u8] = b"steward-csrf-v1\0";

/// A session cookie's secret.
pub(crate) struct SessionSecret(String);

impl fmt::Debug for SessionSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionSecret(<redacted>)")
    }
}

impl SessionSecret {
    /// A fresh secret from the operating system's random source.
    pub(crate) fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        Ok(Self(URL_SAFE_NO_PAD.encode(bytes)))
    }

    /// A cookie value that has a secret's shape (43 base64url characters), else None: anything
    /// else is refused without a look in the store.
    fn parse(raw: &[u8]) -> Option<Self> {
        let shaped = raw.len() == ENCODED_LEN
            && raw
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
        // Only the canonical encoding of 32 bytes: the last character carries 2 spare bits.
        let decoded = shaped.then(|| URL_SAFE_NO_PAD.decode(raw).ok()).flatten()?;
        (decoded.len() == 32)
            .then(|| String::from_utf8(raw.to_vec()).ok())
            .flatten()
            .map(Self)
    }

    /// What the store keeps: lower-case hex SHA-256 of the secret.
    pub(crate) fn hash_hex(&self) -> String {
        let digest = Sha256::digest(self.0.as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The session's CSRF token (see the module header).
    pub(crate) fn csrf_token(&self) -> CsrfToken {
        let mut h = Sha256::new();
        h.update(CSRF_DOMAIN);
        h.update(self.0.as_bytes());
        CsrfToken(URL_SAFE_NO_PAD.encode(h.finalize()))
    }

    /// `Set-Cookie` handing this secret out for `max_age_secs`.
    pub(crate) fn set_cookie(&self, max_age_secs: i64, secure: bool) -> String {
        cookie_value(&self.0, max_age_secs, secure)
    }
}

/// The `Set-Cookie` value that removes the cookie from the browser.
pub(crate) fn clear_cookie(secure: bool) -> String {
    cookie_value("", 0, secure)
}

fn cookie_value(value: &str, max_age_secs: i64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{COOKIE_NAME}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age_secs}{secure}"
    )
}

/// A session's CSRF token: not a credential on its own (it opens nothing without the cookie),
/// but kept out of `Debug` all the same.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct CsrfToken(String);

impl CsrfToken {
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The token's bytes, for `auth.rs`'s constant-time comparison with the header.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for CsrfToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CsrfToken(<redacted>)")
    }
}

/// What the request's `Cookie` headers say about the session cookie.
#[derive(Debug)]
pub(crate) enum CookieSecret {
    /// No `steward_session` cookie.
    Absent,
    /// One, shaped like a secret.
    Present(SessionSecret),
    /// Malformed, or more than one (another site on a parent domain can add a second cookie
    /// of the same name; which one the browser meant cannot be known, so neither counts).
    Unusable,
}

/// The session cookie among the request's cookies (every `Cookie` header, `; `-separated
/// pairs; RFC 6265 §5.4).
pub(crate) fn cookie_secret(headers: &HeaderMap) -> CookieSecret {
    let mut found: Option<&[u8]> = None;
    for value in headers.get_all(COOKIE) {
        for pair in value.as_bytes().split(|b| *b == b';') {
            let pair = pair.trim_ascii();
            let Some(eq) = pair.iter().position(|b| *b == b'=') else {
                continue;
            };
            let (name, rest) = pair.split_at(eq);
            if name.trim_ascii() != COOKIE_NAME.as_bytes() {
                continue;
            }
            if found.is_some() {
                return CookieSecret::Unusable;
            }
            found = Some(rest.get(1..).unwrap_or_default().trim_ascii());
        }
    }
    match found {
        None => CookieSecret::Absent,
        Some(raw) => {
            SessionSecret::parse(raw).map_or(CookieSecret::Unusable, CookieSecret::Present)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn cookies(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(COOKIE, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn a_secret_is_43_random_characters_that_parse_back() {
        let a = SessionSecret::generate().unwrap();
        let b = SessionSecret::generate().unwrap();
        assert_eq!(a.0.len(), 43);
        assert_ne!(a.0, b.0);
        let again = SessionSecret::parse(a.0.as_bytes()).unwrap();
        assert_eq!(again.hash_hex(), a.hash_hex());
        assert_eq!(again.csrf_token(), a.csrf_token());
    }

    #[test]
    fn hash_and_csrf_are_distinct_digests_that_do_not_hold_the_secret() {
        let s = SessionSecret::generate().unwrap();
        let hash = s.hash_hex();
        let csrf = s.csrf_token();
        assert_eq!(hash.len(), 64);
        assert!(
            hash.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(csrf.as_str().len(), 43);
        assert!(!hash.contains(&s.0) && !csrf.as_str().contains(&s.0));
        assert_ne!(
            csrf.as_str(),
            URL_SAFE_NO_PAD.encode(Sha256::digest(s.0.as_bytes()))
        );
        assert!(
            csrf.as_str()
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
    }

    #[test]
    fn debug_never_shows_the_secret_or_the_token() {
        let s = SessionSecret::generate().unwrap();
        let shown = format!(
            "{s:?} {:?} {:?}",
            s.csrf_token(),
            CookieSecret::Present(SessionSecret::parse(s.0.as_bytes()).unwrap())
        );
        assert!(!shown.contains(&s.0), "{shown}");
        assert!(!shown.contains(s.csrf_token().as_str()), "{shown}");
    }

    #[test]
    fn the_cookie_is_found_among_others_and_forgeries_are_unusable() {
        let s = SessionSecret::generate().unwrap();
        let ok = cookies(&[&format!("theme=dark; steward_session={}; x=1", s.0)]);
        match cookie_secret(&ok) {
            CookieSecret::Present(found) => assert_eq!(found.hash_hex(), s.hash_hex()),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            cookie_secret(&cookies(&["theme=dark"])),
            CookieSecret::Absent
        ));
        assert!(matches!(
            cookie_secret(&HeaderMap::new()),
            CookieSecret::Absent
        ));
        // Not our name: a prefix or suffix of it is another cookie.
        assert!(matches!(
            cookie_secret(&cookies(&[&format!("steward_sessionx={}", s.0)])),
            CookieSecret::Absent
        ));
        let two = cookies(&[
            &format!("steward_session={}", s.0),
            &format!("steward_session={}", s.0),
        ]);
        assert!(matches!(cookie_secret(&two), CookieSecret::Unusable));
        let long = "A".repeat(44);
        let padded = format!("{}=", &s.0);
        let non_canonical = format!("{}B", &s.0[..42]);
        for forged in [
            "",
            "abc",
            long.as_str(),
            padded.as_str(),
            "../../etc/passwd",
            "a b",
            non_canonical.as_str(),
        ] {
            let h = cookies(&[&format!("steward_session={forged}")]);
            assert!(
                matches!(cookie_secret(&h), CookieSecret::Unusable),
                "{forged:?}"
            );
        }
    }

    #[test]
    fn set_cookie_has_the_contract_attributes() {
        let s = SessionSecret::generate().unwrap();
        assert_eq!(
            s.set_cookie(60, false),
            format!(
                "steward_session={}; Path=/; HttpOnly; SameSite=Strict; Max-Age=60",
                s.0
            )
        );
        assert!(s.set_cookie(60, true).ends_with("; Max-Age=60; Secure"));
        assert_eq!(
            clear_cookie(false),
            "steward_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
        );
    }
}
