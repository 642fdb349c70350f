//! Property tests of `verify_init_data`: arbitrary text and query-shaped text never panic and
//! never verify; a signed string with one byte changed, dropped or added never verifies;
//! reordering a signed string's fields still verifies. Failures are persisted by proptest's
//! default (`tests/proptest-regressions/init_data_props.txt`, beside `main.rs`).

use proptest::prelude::*;
use steward_telegram::verify_init_data;

use crate::init_data::{AUTH_DATE, sign, token};

/// A genuine string: a user with a random id and name, optional fields, in random order.
fn signed() -> impl Strategy<Value = String> {
    (
        1..i64::MAX / 2,
        "\\PC{0,24}",
        proptest::option::of("[A-Za-z0-9_-]{1,32}"),
        proptest::option::of("[a-z]{1,10}"),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(id, name, query_id, chat_type, rotate)| {
            let user = serde_json::json!({ "id": id, "first_name": name }).to_string();
            let auth_date = AUTH_DATE.to_string();
            let mut fields = vec![("user", user.as_str()), ("auth_date", auth_date.as_str())];
            if let Some(q) = &query_id {
                fields.push(("query_id", q));
            }
            if let Some(c) = &chat_type {
                fields.push(("chat_type", c));
            }
            let len = fields.len();
            fields.rotate_left(rotate.index(len));
            sign(&fields)
        })
}

#[derive(Debug, Clone)]
enum Mutation {
    /// xor one byte with a mask; never 0x20, which only changes a hex digit's case.
    Flip(prop::sample::Index, u8),
    Drop(prop::sample::Index),
    Insert(prop::sample::Index, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (
            any::<prop::sample::Index>(),
            prop::sample::select(vec![1u8, 2, 4, 8, 16, 64])
        )
            .prop_map(|(i, m)| Mutation::Flip(i, m)),
        any::<prop::sample::Index>().prop_map(Mutation::Drop),
        (any::<prop::sample::Index>(), any::<char>()).prop_map(|(i, c)| Mutation::Insert(i, c)),
    ]
}

fn apply(raw: &str, mutation: &Mutation) -> Option<String> {
    let mut bytes = raw.as_bytes().to_vec();
    match mutation {
        Mutation::Flip(i, mask) => {
            let at = i.index(bytes.len());
            bytes[at] ^= mask;
        }
        Mutation::Drop(i) => {
            bytes.remove(i.index(bytes.len()));
        }
        Mutation::Insert(i, c) => {
            let at = i.index(bytes.len() + 1);
            let mut buf = [0u8; 4];
            bytes.splice(at..at, c.encode_utf8(&mut buf).bytes());
        }
    }
    String::from_utf8(bytes).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_verifies(raw in any::<String>(), now in any::<i64>()) {
        prop_assert!(verify_init_data(&raw, &token(), now).is_err());
    }

    #[test]
    fn query_shaped_text_never_verifies(
        raw in "((user|auth_date|hash|query_id|%[0-9a-fA-F]{0,2}|[a-z_+=%]{0,6})[=&]?){0,12}(hash=[0-9a-f]{64})?",
    ) {
        prop_assert!(verify_init_data(&raw, &token(), AUTH_DATE).is_err());
    }

    #[test]
    fn a_mutated_signed_string_never_verifies(raw in signed(), mutation in mutation()) {
        prop_assert!(verify_init_data(&raw, &token(), AUTH_DATE + 1).is_ok());
        if let Some(mutated) = apply(&raw, &mutation) {
            prop_assume!(mutated != raw);
            prop_assert!(verify_init_data(&mutated, &token(), AUTH_DATE + 1).is_err(), "{mutated}");
        }
    }

    #[test]
    fn any_order_of_the_fields_verifies(raw in signed(), seed in any::<u64>()) {
        let mut pairs: Vec<&str> = raw.split('&').collect();
        fastrand::Rng::with_seed(seed).shuffle(&mut pairs);
        let want = verify_init_data(&raw, &token(), AUTH_DATE).unwrap();
        prop_assert_eq!(verify_init_data(&pairs.join("&"), &token(), AUTH_DATE), Ok(want));
    }
}
