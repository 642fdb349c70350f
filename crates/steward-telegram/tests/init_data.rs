//! `verify_init_data` on strings signed here (`sign`, an HMAC written from the spec with ring
//! directly) and on one published vector: acceptance, every refusal reason, the order of the
//! checks (the hash before anything else), the freshness window's edges, and the mutations
//! every signed string must survive only unchanged (`assert_mutations_refused`, also run on
//! the npm package's vectors in `init_data_vectors.rs`).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use ring::hmac;
use steward_telegram::{
    BotToken, INIT_DATA_MAX_AGE_SECS, INIT_DATA_MAX_FUTURE_SECS, InitDataRefusal as R,
    MAX_INIT_DATA_BYTES, VerifiedInitData, verify_init_data,
};

pub const TOKEN: &str = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq";
pub const AUTH_DATE: i64 = 1_733_509_682;
pub const USER: &str = r#"{"id":279058397,"first_name":"Vlad","username":"vdk"}"#;

pub fn token() -> BotToken {
    BotToken::parse(TOKEN).unwrap()
}

/// What JavaScript's `encodeURIComponent` leaves alone, less `!'()*`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

pub fn encode(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

/// The hash of `fields` under `token`, straight from the spec.
pub fn hash_of(fields: &[(&str, &str)], token: &str) -> String {
    let mut sorted = fields.to_vec();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let check: Vec<String> = sorted.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let secret = hmac::sign(
        &hmac::Key::new(hmac::HMAC_SHA256, b"WebAppData"),
        token.as_bytes(),
    );
    let tag = hmac::sign(
        &hmac::Key::new(hmac::HMAC_SHA256, secret.as_ref()),
        check.join("\n").as_bytes(),
    );
    tag.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// `fields` as a query string (percent-encoded, in the given order) with their hash last.
pub fn sign(fields: &[(&str, &str)]) -> String {
    let mut pairs: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    pairs.push(format!("hash={}", hash_of(fields, TOKEN)));
    pairs.join("&")
}

fn auth_date() -> String {
    AUTH_DATE.to_string()
}

fn verify(raw: &str) -> Result<VerifiedInitData, R> {
    verify_init_data(raw, &token(), AUTH_DATE + 60)
}

fn pairs(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

fn join(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// A different value with the same length class: the first byte of `raw_value` (still
/// percent-encoded) changed, or `x` for an empty one.
fn altered(raw_value: &str) -> String {
    let decoded = percent_encoding::percent_decode_str(&raw_value.replace('+', " "))
        .decode_utf8()
        .unwrap()
        .into_owned();
    let mut chars: Vec<char> = decoded.chars().collect();
    match chars.first_mut() {
        Some(c) => *c = if *c == 'x' { 'y' } else { 'x' },
        None => chars.push('x'),
    }
    encode(&chars.into_iter().collect::<String>())
}

/// Every way of changing a genuine `raw` (verified at `now`) that must be refused, each with
/// its reason: any value or key altered, a field dropped or added, the hash altered, dropped
/// or given twice, any field given twice, `auth_date` moved; reordering must still verify to
/// the same result; and every single ASCII byte flipped (xor 1: never a mere re-spelling
/// such as a hex digit's case) is refused for some reason.
pub fn assert_mutations_refused(raw: &str, token: &BotToken, now: i64) {
    let genuine = verify_init_data(raw, token, now).unwrap();
    let fields = pairs(raw);
    let hash_at = fields.iter().position(|(k, _)| k == "hash").unwrap();
    let check = |mutated: String, want: R, what: &str| {
        assert_eq!(
            verify_init_data(&mutated, token, now),
            Err(want),
            "{what}: {mutated}"
        );
    };

    let mut reversed = fields.clone();
    reversed.reverse();
    assert_eq!(
        verify_init_data(&join(&reversed), token, now),
        Ok(genuine.clone())
    );
    let mut rotated = fields.clone();
    rotated.rotate_left(1);
    assert_eq!(verify_init_data(&join(&rotated), token, now), Ok(genuine));

    for (i, (key, value)) in fields.iter().enumerate() {
        let mut changed = fields.clone();
        if i == hash_at {
            let flipped = if value.starts_with('0') { "1" } else { "0" };
            changed[i].1 = format!("{flipped}{}", &value[1..]);
            check(join(&changed), R::BadHash, "hash digit changed");
            changed[i].1 = value.to_uppercase();
            if changed[i].1 != *value {
                check(join(&changed), R::BadHash, "hash in upper case");
            }
            changed[i].1 = value[1..].to_owned();
            check(join(&changed), R::BadHash, "hash one digit short");
            let mut dropped = fields.clone();
            dropped.remove(i);
            check(join(&dropped), R::MissingHash, "hash dropped");
        } else {
            changed[i].1 = altered(value);
            check(join(&changed), R::BadHash, &format!("{key} altered"));
            let mut renamed = fields.clone();
            renamed[i].0 = format!("{key}x");
            check(join(&renamed), R::BadHash, &format!("{key} renamed"));
            let mut dropped = fields.clone();
            dropped.remove(i);
            check(join(&dropped), R::BadHash, &format!("{key} dropped"));
        }
        let mut doubled = fields.clone();
        doubled.push(fields[i].clone());
        check(join(&doubled), R::DuplicateField, &format!("{key} twice"));
        let mut doubled_other = fields.clone();
        doubled_other.insert(0, (key.clone(), altered(value)));
        check(
            join(&doubled_other),
            R::DuplicateField,
            &format!("{key} twice, two values"),
        );
    }
    let mut added = fields.clone();
    added.insert(0, ("extra".into(), "1".into()));
    check(join(&added), R::BadHash, "field added");
    let mut moved = fields.clone();
    let auth = moved.iter_mut().find(|(k, _)| k == "auth_date").unwrap();
    auth.1 = (auth.1.parse::<i64>().unwrap() + 1).to_string();
    check(join(&moved), R::BadHash, "auth_date moved");

    for at in 0..raw.len() {
        let mut bytes = raw.as_bytes().to_vec();
        if !bytes[at].is_ascii() {
            continue;
        }
        bytes[at] ^= 1;
        let flipped = String::from_utf8(bytes).unwrap();
        assert!(
            verify_init_data(&flipped, token, now).is_err(),
            "byte {at} flipped still verifies: {flipped}"
        );
    }
}

#[test]
fn a_signed_string_verifies_and_gives_its_fields() {
    let raw = sign(&[
        ("query_id", "AAHdF6IQ"),
        ("user", USER),
        ("auth_date", &auth_date()),
        ("chat_type", "private"),
        ("start_param", "deep_link"),
        ("signature", "abc-_"),
    ]);
    assert_eq!(
        verify(&raw),
        Ok(VerifiedInitData {
            user_id: 279058397,
            auth_date: AUTH_DATE,
            query_id: Some("AAHdF6IQ".into()),
            chat_type: Some("private".into()),
            start_param: Some("deep_link".into()),
        })
    );
    let bare = sign(&[("user", USER), ("auth_date", &auth_date())]);
    let got = verify(&bare).unwrap();
    assert_eq!(
        (got.query_id, got.chat_type, got.start_param),
        (None, None, None)
    );
    assert_mutations_refused(&raw, &token(), AUTH_DATE + 60);
    assert_mutations_refused(&bare, &token(), AUTH_DATE + 60);
}

/// The example of the tma.js documentation ("Validating"), signed by that project with its
/// own token: a vector from outside this code.
#[test]
fn the_published_tma_js_example_verifies() {
    let raw = "query_id=AAHdF6IQAAAAAN0XohDhrOrc&user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%7D&auth_date=1662771648&hash=c501b71e775f74ce10e377dea85a7ea24ecd640b223ea86dfe453e0eaed2e2b2";
    let token = BotToken::parse("5768337691:AAH5YkoiEuPk8-FZa32hStHTqXiLPtAEhx8").unwrap();
    let got = verify_init_data(raw, &token, 1_662_771_648 + 10).unwrap();
    assert_eq!((got.user_id, got.auth_date), (279058397, 1_662_771_648));
    assert_eq!(got.query_id.as_deref(), Some("AAHdF6IQAAAAAN0XohDhrOrc"));
    assert_mutations_refused(raw, &token, 1_662_771_648 + 10);
    assert_eq!(
        verify_init_data(raw, &self::token(), 1_662_771_648),
        Err(R::BadHash)
    );
}

#[test]
fn plus_and_percent_twenty_are_both_a_space() {
    let fields = [
        ("user", USER),
        ("auth_date", "1733509682"),
        ("start_param", "a b"),
    ];
    let hash = hash_of(&fields, TOKEN);
    let user = encode(USER);
    for spelling in ["a+b", "a%20b"] {
        let raw = format!("user={user}&auth_date={AUTH_DATE}&start_param={spelling}&hash={hash}");
        assert_eq!(verify(&raw).unwrap().start_param.as_deref(), Some("a b"));
    }
}

#[test]
fn the_hash_is_checked_before_any_field_is_read() {
    // Expired, no user, a bad auth_date: all unread when the hash is wrong.
    for raw in [
        format!("auth_date=1&user=%7B%7D&hash={}", "0".repeat(64)),
        format!("auth_date=-5&hash={}", "a".repeat(64)),
        format!("user=nonsense&hash={}", "f".repeat(64)),
    ] {
        assert_eq!(verify(&raw), Err(R::BadHash), "{raw}");
    }
    // The same fields genuinely signed get past the hash and then are refused.
    assert_eq!(
        verify(&sign(&[("auth_date", "1"), ("user", "{}")])),
        Err(R::Expired)
    );
    assert_eq!(verify(&sign(&[("auth_date", "-5")])), Err(R::BadAuthDate));
    assert_eq!(verify(&sign(&[("user", USER)])), Err(R::MissingAuthDate));
    // And a wrong token is a wrong hash.
    let raw = sign(&[("user", USER), ("auth_date", &auth_date())]);
    let other = BotToken::parse("123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawr").unwrap();
    assert_eq!(verify_init_data(&raw, &other, AUTH_DATE), Err(R::BadHash));
}

#[test]
fn freshness_has_exact_edges() {
    let raw = sign(&[("user", USER), ("auth_date", &auth_date())]);
    let at = |now| verify_init_data(&raw, &token(), now).map(|v| v.user_id);
    assert_eq!(at(AUTH_DATE), Ok(279058397));
    assert_eq!(at(AUTH_DATE + INIT_DATA_MAX_AGE_SECS), Ok(279058397));
    assert_eq!(at(AUTH_DATE + INIT_DATA_MAX_AGE_SECS + 1), Err(R::Expired));
    assert_eq!(at(AUTH_DATE - INIT_DATA_MAX_FUTURE_SECS), Ok(279058397));
    assert_eq!(
        at(AUTH_DATE - INIT_DATA_MAX_FUTURE_SECS - 1),
        Err(R::FromTheFuture)
    );
    assert_eq!(at(i64::MAX), Err(R::Expired));
    assert_eq!(at(i64::MIN), Err(R::FromTheFuture));
}

#[test]
fn auth_date_and_user_must_have_their_shapes() {
    let now = auth_date();
    for bad in [
        "",
        "+1733509682",
        "-1",
        "1733509682.0",
        " 1733509682",
        "0x10",
        "9999999999999",
    ] {
        assert_eq!(
            verify(&sign(&[("user", USER), ("auth_date", bad)])),
            Err(R::BadAuthDate),
            "{bad:?}"
        );
    }
    assert_eq!(verify(&sign(&[("auth_date", &now)])), Err(R::NoUser));
    for bad in [
        "",
        "nonsense",
        "[279058397]",
        "279058397",
        r#"{"name":"x"}"#,
        r#"{"id":0}"#,
        r#"{"id":-5}"#,
        r#"{"id":"5"}"#,
        r#"{"id":1.5}"#,
        r#"{"id":99999999999999999999}"#,
        r#"{"id":5"#,
        r#"{"id":5} trailing"#,
    ] {
        assert_eq!(
            verify(&sign(&[("user", bad), ("auth_date", &now)])),
            Err(R::BadUser),
            "{bad:?}"
        );
    }
    // Extra fields in the user object are Telegram's to add.
    let user = r#"{"id":7,"first_name":"x","new_field":{"nested":[1,2]}}"#;
    assert_eq!(
        verify(&sign(&[("user", user), ("auth_date", &now)]))
            .unwrap()
            .user_id,
        7
    );
}

#[test]
fn malformed_query_strings_are_refused_before_the_hash() {
    let h = "0".repeat(64);
    for raw in [
        String::new(),
        "&".into(),
        format!("user=1&&hash={h}"),
        format!("user&hash={h}"),
        format!("=1&hash={h}"),
        format!("us-er=1&hash={h}"),
        format!("us%20er=1&hash={h}"),
        format!("user=%zz&hash={h}"),
        format!("user=%4&hash={h}"),
        format!("user=%&hash={h}"),
        format!("user=%FF&hash={h}"),
        format!("user=%C3&hash={h}"),
        format!("user=a%0Aauth_date%3D1&hash={h}"),
        format!("hash={h}&"),
    ] {
        assert_eq!(verify(&raw), Err(R::Malformed), "{raw:?}");
    }
    for raw in [
        format!("hash={h}&hash={h}"),
        format!("user=1&us%65r=1&hash={h}"),
        format!("a=1&b=2&a=1&hash={h}"),
    ] {
        assert_eq!(verify(&raw), Err(R::DuplicateField), "{raw:?}");
    }
    assert_eq!(verify("user=1&auth_date=2"), Err(R::MissingHash));
    for hash in [
        "",
        "0",
        &"0".repeat(63),
        &"0".repeat(65),
        &"G".repeat(64),
        &"A".repeat(64),
    ] {
        assert_eq!(
            verify(&format!("user=1&hash={hash}")),
            Err(R::BadHash),
            "{hash:?}"
        );
    }
}

#[test]
fn the_length_cap_is_exact() {
    let base = sign(&[("user", USER), ("auth_date", &auth_date()), ("pad", "")]);
    let pad = "p".repeat(MAX_INIT_DATA_BYTES - base.len());
    let at_cap = sign(&[("user", USER), ("auth_date", &auth_date()), ("pad", &pad)]);
    assert_eq!(at_cap.len(), MAX_INIT_DATA_BYTES);
    assert!(verify(&at_cap).is_ok());
    let over = sign(&[
        ("user", USER),
        ("auth_date", &auth_date()),
        ("pad", &format!("{pad}p")),
    ]);
    assert_eq!(verify(&over), Err(R::TooLong));
    assert_eq!(verify(&"a".repeat(10 * 1024 * 1024)), Err(R::TooLong));
}

#[test]
fn refusals_never_show_the_token_or_the_hash() {
    let raw = sign(&[("user", USER), ("auth_date", "1")]);
    let hash = &pairs(&raw).last().unwrap().1.clone();
    let secret = TOKEN.split_once(':').unwrap().1;
    let mut reasons = vec![
        verify(&raw).unwrap_err(),
        verify(&raw.replace(hash, &"0".repeat(64))).unwrap_err(),
    ];
    reasons.extend([
        R::TooLong,
        R::Malformed,
        R::DuplicateField,
        R::MissingHash,
        R::BadHash,
        R::MissingAuthDate,
        R::BadAuthDate,
        R::Expired,
        R::FromTheFuture,
        R::NoUser,
        R::BadUser,
    ]);
    for reason in reasons {
        for text in [reason.to_string(), format!("{reason:?}")] {
            assert!(
                !text.contains(secret) && !text.contains(hash) && !text.contains("Vlad"),
                "{text}"
            );
        }
    }
}
