//! Verifying a Telegram Mini App's `initData` (the query string the Mini App reads from
//! `window.Telegram.WebApp.initData` and sends to its backend).
//!
//! Owns: `verify_init_data`, which checks the string the way Telegram's "Validating data
//! received via the Mini App" describes, and only then reads the user id, `auth_date` and the
//! few other fields a caller needs; the freshness window; `InitDataRefusal`, the reason for the
//! log. Does not own: who may use the Mini App — the caller checks `user_id` against the
//! allowlist (`Allowlist`/`AllowedUsers`) after this succeeds —, the HTTP answer (a generic
//! 401 whatever the reason, so a prober learns nothing), nor the Ed25519 "third-party"
//! check of the `signature` field (a bot that holds its own token has no need of it).
//!
//! The check: `secret_key = HMAC-SHA256(key = "WebAppData", message = bot_token)`; the
//! data-check string is every field but `hash` — `signature` included, it is a received field
//! like any other — as `key=value` with key and value URL-decoded, sorted by key, joined by
//! `\n`; the string is genuine when `HMAC-SHA256(key = secret_key, message = data-check
//! string)` equals `hash` (64 lowercase hex digits), compared in constant time by
//! `ring::hmac::verify`.
//!
//! Stricter than the spec on purpose, because each looseness lets one signed string be read
//! two ways: a key given twice is refused (which copy would the reader take?), and so are
//! keys outside `[A-Za-z0-9_]` and values holding a line feed (either could move a field
//! boundary inside the data-check string), empty or `=`-less pairs, and percent signs not
//! followed by two hex digits or decoding to invalid UTF-8.

use percent_encoding::percent_decode_str;
use ring::hmac;

/// Oldest `initData` accepted: a day after Telegram signed it (`auth_date`).
pub const INIT_DATA_MAX_AGE_SECS: i64 = 24 * 3600;
/// How far ahead of our clock `auth_date` may be: clock skew, not more.
pub const INIT_DATA_MAX_FUTURE_SECS: i64 = 300;
/// Longest `initData` looked at; longer is refused before it is parsed. Real ones are well
/// under 2 KiB (a user object, a few ids and two signatures).
pub const MAX_INIT_DATA_BYTES: usize = 8 * 1024;

/// The longest `auth_date` (digits) read: enough for any Unix time in seconds, short enough
/// that parsing cannot overflow.
const MAX_AUTH_DATE_DIGITS: usize = 12;

/// What a genuine, fresh `initData` says. Every field was read after the hash checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedInitData {
    /// `user.id`: the Telegram user who opened the Mini App. The caller checks it against
    /// the allowlist; this module does not.
    pub user_id: i64,
    /// When Telegram signed the data (Unix seconds).
    pub auth_date: i64,
    /// `query_id`, for `answerWebAppQuery` (present when opened from an inline button).
    pub query_id: Option<String>,
    /// `chat_type` (`private`, `group`, `supergroup`, `channel`, `sender`), when given.
    pub chat_type: Option<String>,
    /// `start_param`, from a `startapp` link, when given.
    pub start_param: Option<String>,
}

/// Why an `initData` was refused: for the log only (the HTTP layer answers a generic 401).
/// No variant carries data, so neither `Debug` nor `Display` can show the token, the hash or
/// anything the sender wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InitDataRefusal {
    #[error("initData is longer than {MAX_INIT_DATA_BYTES} bytes")]
    TooLong,
    #[error("initData is not a well-formed query string")]
    Malformed,
    #[error("initData gives a field twice")]
    DuplicateField,
    #[error("initData has no hash")]
    MissingHash,
    #[error("initData's hash does not match its fields (or is not 64 lowercase hex digits)")]
    BadHash,
    #[error("initData has no auth_date")]
    MissingAuthDate,
    #[error("initData's auth_date is not a Unix time in seconds")]
    BadAuthDate,
    #[error("initData is more than {INIT_DATA_MAX_AGE_SECS} s old")]
    Expired,
    #[error("initData's auth_date is more than {INIT_DATA_MAX_FUTURE_SECS} s in the future")]
    FromTheFuture,
    #[error("initData has no user")]
    NoUser,
    #[error("initData's user is not a JSON object with a positive integer id")]
    BadUser,
}

/// Checks `raw` (the Mini App's `initData`, as sent) against `token` and the clock
/// (`now_unix_secs`), then reads what a caller needs. The hash is checked before any other
/// field is interpreted: until then the fields are only split, decoded and compared as bytes.
/// The allowlist is the caller's to check on `user_id`.
pub fn verify_init_data(
    raw: &str,
    token: &crate::BotToken,
    now_unix_secs: i64,
) -> Result<VerifiedInitData, InitDataRefusal> {
    if raw.len() > MAX_INIT_DATA_BYTES {
        return Err(InitDataRefusal::TooLong);
    }
    let mut fields = decode_fields(raw)?;
    let hash_at = fields
        .iter()
        .position(|(key, _)| key == "hash")
        .ok_or(InitDataRefusal::MissingHash)?;
    let (_, hash_hex) = fields.remove(hash_at);
    let hash = decode_hash(&hash_hex).ok_or(InitDataRefusal::BadHash)?;

    // By key (keys are distinct, so this is a total order); byte order is the code-point
    // order Telegram's "alphabetically" means for its ASCII keys.
    fields.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let check_string = fields
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join("\n");
    let web_app_data = hmac::Key::new(hmac::HMAC_SHA256, b"WebAppData");
    let secret_key = hmac::sign(&web_app_data, token.expose().as_bytes());
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret_key.as_ref());
    hmac::verify(&key, check_string.as_bytes(), &hash).map_err(|_| InitDataRefusal::BadHash)?;

    // Genuine from here on: now the fields mean something.
    let field = |name: &str| {
        fields
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let auth_date = parse_auth_date(&field("auth_date").ok_or(InitDataRefusal::MissingAuthDate)?)?;
    let age = now_unix_secs.saturating_sub(auth_date);
    if age > INIT_DATA_MAX_AGE_SECS {
        return Err(InitDataRefusal::Expired);
    }
    if age < -INIT_DATA_MAX_FUTURE_SECS {
        return Err(InitDataRefusal::FromTheFuture);
    }
    let user_id = parse_user_id(&field("user").ok_or(InitDataRefusal::NoUser)?)?;
    Ok(VerifiedInitData {
        user_id,
        auth_date,
        query_id: field("query_id"),
        chat_type: field("chat_type"),
        start_param: field("start_param"),
    })
}

/// Splits `raw` on `&` and `=` and URL-decodes both sides (`+` is a space, as browsers'
/// `URLSearchParams` write it); refuses every shape that could be read two ways.
fn decode_fields(raw: &str) -> Result<Vec<(String, String)>, InitDataRefusal> {
    let mut fields: Vec<(String, String)> = Vec::new();
    for pair in raw.split('&') {
        let (key, value) = pair.split_once('=').ok_or(InitDataRefusal::Malformed)?;
        let key = url_decode(key)?;
        let value = url_decode(value)?;
        let key_ok = !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !key_ok || value.contains('\n') {
            return Err(InitDataRefusal::Malformed);
        }
        if fields.iter().any(|(seen, _)| *seen == key) {
            return Err(InitDataRefusal::DuplicateField);
        }
        fields.push((key, value));
    }
    Ok(fields)
}

/// `application/x-www-form-urlencoded` decoding that refuses what decoders usually let
/// through: a `%` without two hex digits after it, and bytes that are not UTF-8.
fn url_decode(text: &str) -> Result<String, InitDataRefusal> {
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices('%') {
        let hex_pair = bytes
            .get(at + 1..at + 3)
            .ok_or(InitDataRefusal::Malformed)?;
        if !hex_pair.iter().all(u8::is_ascii_hexdigit) {
            return Err(InitDataRefusal::Malformed);
        }
    }
    let spaced = text.replace('+', " ");
    percent_decode_str(&spaced)
        .decode_utf8()
        .map(|decoded| decoded.into_owned())
        .map_err(|_| InitDataRefusal::Malformed)
}

/// The 32 bytes of a hash written as 64 lowercase hex digits; anything else is `None`.
fn decode_hash(hex: &str) -> Option<[u8; 32]> {
    fn nibble(digit: u8) -> Option<u8> {
        match digit {
            b'0'..=b'9' => Some(digit - b'0'),
            b'a'..=b'f' => Some(digit - b'a' + 10),
            _ => None,
        }
    }
    let digits = hex.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

/// Only decimal digits: `i64::from_str` would also take a sign.
fn parse_auth_date(text: &str) -> Result<i64, InitDataRefusal> {
    if text.is_empty()
        || text.len() > MAX_AUTH_DATE_DIGITS
        || !text.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(InitDataRefusal::BadAuthDate);
    }
    text.parse().map_err(|_| InitDataRefusal::BadAuthDate)
}

/// `user` is a JSON object whose `id` is a positive integer (Telegram's user ids are). Read
/// as a `Value` rather than a derived struct: serde's derive would also take `[id]`, an array.
fn parse_user_id(json: &str) -> Result<i64, InitDataRefusal> {
    let user: serde_json::Value =
        serde_json::from_str(json).map_err(|_| InitDataRefusal::BadUser)?;
    user.as_object()
        .and_then(|object| object.get("id"))
        .and_then(serde_json::Value::as_i64)
        .filter(|id| *id > 0)
        .ok_or(InitDataRefusal::BadUser)
}
