//! Secret-shaped text detection for the quality gate: known API-key prefixes, JWTs, long
//! opaque (hex / base64-like) runs, card numbers that pass Luhn, and credential phrases.
//!
//! Owns: the heuristics. Does not own: the gate's decision order or reasons (see `gate`).
//! The heuristics lean towards refusing: a wrongly refused fact costs the user a repeat, a
//! wrongly stored secret ends up in every prompt sent to a model provider.

/// Token prefixes of well-known credentials, with the minimum whole-token length that makes
/// them key-shaped (so the word "sk-" alone is not a secret).
const KEY_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 20),
    ("sk_live_", 20),
    ("sk_test_", 20),
    ("rk_live_", 20),
    ("ghp_", 20),
    ("gho_", 20),
    ("ghu_", 20),
    ("ghs_", 20),
    ("ghr_", 20),
    ("github_pat_", 20),
    ("glpat-", 20),
    ("xoxb-", 15),
    ("xoxp-", 15),
    ("xoxa-", 15),
    ("xoxr-", 15),
    ("xoxs-", 15),
    ("AIza", 35),
    ("hf_", 30),
    ("npm_", 36),
];

/// Words (or word pairs) whose mere presence says the text talks about a credential.
const CREDENTIAL_PHRASES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "cvv",
    "cvc",
    "private key",
    "api key",
    "apikey",
    "secret key",
    "access key",
    "access token",
    "auth token",
    "bearer token",
    "refresh token",
    "client secret",
    "social security number",
    "ssn",
];

/// Words that are credentials only when a value follows (`pin is 1234`, `token: abc`).
const CREDENTIAL_WORDS_WITH_VALUE: &[&str] = &["pin", "token", "secret", "otp"];

/// Key segments (split on `_` and `.`) that name a credential.
const CREDENTIAL_KEY_SEGMENTS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "pin",
    "secret",
    "token",
    "apikey",
    "credential",
    "credentials",
    "cvv",
    "ssn",
    "otp",
];

/// True when `text` holds something shaped like a credential.
pub(crate) fn looks_secret(text: &str) -> bool {
    text.contains("-----BEGIN")
        || has_key_prefix(text)
        || has_jwt(text)
        || has_opaque_run(text)
        || has_card_number(text)
        || has_credential_phrase(text)
}

/// True when a fact key names a credential (`wifi_password`, `github.token`, `api_key`).
pub(crate) fn key_names_secret(key: &str) -> bool {
    let lower = key.to_lowercase();
    if lower.contains("api_key") || lower.contains("api.key") || lower.contains("private_key") {
        return true;
    }
    lower
        .split(['_', '.', '-'])
        .any(|seg| CREDENTIAL_KEY_SEGMENTS.contains(&seg))
}

fn tokens(text: &str, extra: &[char]) -> impl Iterator<Item = String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || extra.contains(&c)))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect::<Vec<_>>()
        .into_iter()
}

fn has_key_prefix(text: &str) -> bool {
    tokens(text, &['-', '_']).any(|t| {
        if is_aws_key_id(&t) {
            return true;
        }
        KEY_PREFIXES
            .iter()
            .any(|(p, min)| t.starts_with(p) && t.len() >= *min)
    })
}

/// AWS access key ids: AKIA/ASIA followed by 16 upper-case letters or digits.
fn is_aws_key_id(t: &str) -> bool {
    (t.starts_with("AKIA") || t.starts_with("ASIA"))
        && t.len() == 20
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

fn has_jwt(text: &str) -> bool {
    tokens(text, &['-', '_', '.']).any(|t| {
        let parts: Vec<&str> = t.split('.').collect();
        t.starts_with("eyJ")
            && parts.len() >= 3
            && parts[0].len() >= 10
            && parts[1].len() >= 4
            && t.len() >= 30
    })
}

/// A long run that is all hex (≥ 32) or mixes letters and digits (≥ 20) with no word
/// separator inside: shaped like a token, hash or key rather than a word.
fn has_opaque_run(text: &str) -> bool {
    tokens(text, &['+', '/', '=', '-', '_']).any(|t| {
        t.split(['-', '_']).any(|seg| {
            let len = seg.chars().count();
            let hex = len >= 32 && seg.chars().all(|c| c.is_ascii_hexdigit());
            let letters = seg.chars().any(|c| c.is_ascii_alphabetic());
            let digits = seg.chars().any(|c| c.is_ascii_digit());
            hex || (len >= 20 && letters && digits)
        })
    })
}

/// 13–19 digits (single spaces or dashes allowed between them) that pass the Luhn check and
/// start like a payment card (2–6). A run preceded by `+` is a phone number, not a card.
fn has_card_number(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let phone = i > 0 && chars[i - 1] == '+';
        let mut digits = Vec::new();
        let mut j = i;
        while j < chars.len() {
            if let Some(d) = chars[j].to_digit(10) {
                digits.push(d);
                j += 1;
            } else if matches!(chars[j], ' ' | '-')
                && chars.get(j + 1).is_some_and(|c| c.is_ascii_digit())
            {
                j += 1;
            } else {
                break;
            }
        }
        if !phone && is_card_like(&digits) {
            return true;
        }
        i = j.max(i + 1);
    }
    false
}

fn is_card_like(digits: &[u32]) -> bool {
    (13..=19).contains(&digits.len())
        && digits.first().is_some_and(|d| (2..=6).contains(d))
        && luhn_ok(digits)
}

pub(crate) fn luhn_ok(digits: &[u32]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    !digits.is_empty() && sum.is_multiple_of(10)
}

fn has_credential_phrase(text: &str) -> bool {
    let words = super::words(text);
    let joined = format!(" {} ", words.join(" "));
    if CREDENTIAL_PHRASES
        .iter()
        .any(|p| joined.contains(&format!(" {p} ")))
    {
        return true;
    }
    // "pin is 1234", "token: abc", "secret = x": the word followed by a value marker.
    let lower = text.to_lowercase();
    CREDENTIAL_WORDS_WITH_VALUE.iter().any(|w| {
        lower.match_indices(w).any(|(at, _)| {
            let before_ok = lower[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let rest = lower[at + w.len()..].trim_start();
            before_ok
                && (rest.starts_with(':')
                    || rest.starts_with('=')
                    || rest.starts_with("is ")
                    || rest.starts_with("was "))
        })
    })
}
