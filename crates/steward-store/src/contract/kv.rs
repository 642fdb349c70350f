//! Contract cases for `KvStore`: basic operations, put-if-absent, literal bytewise prefix
//! listing, and the input limits.

use super::{fresh_namespace, ok, refused};
use crate::{MAX_KV_KEY_LEN, MAX_KV_VALUE_LEN, Store};

pub async fn kv_get_put_overwrite_delete(store: &dyn Store) {
    const CASE: &str = "kv_get_put_overwrite_delete";
    let key = format!("{}key", fresh_namespace(CASE));
    assert_eq!(
        ok(CASE, "get missing", store.kv_get(&key).await),
        None,
        "[{CASE}]"
    );
    ok(CASE, "put", store.kv_put(&key, "first ✓").await);
    let got = ok(CASE, "get", store.kv_get(&key).await);
    assert_eq!(got.as_deref(), Some("first ✓"), "[{CASE}] after put");
    ok(CASE, "overwrite", store.kv_put(&key, "").await);
    let got = ok(CASE, "get", store.kv_get(&key).await);
    assert_eq!(
        got.as_deref(),
        Some(""),
        "[{CASE}] empty value must be stored, not dropped"
    );
    assert!(
        ok(CASE, "delete", store.kv_delete(&key).await),
        "[{CASE}] delete of existing"
    );
    assert_eq!(
        ok(CASE, "get deleted", store.kv_get(&key).await),
        None,
        "[{CASE}]"
    );
    assert!(
        !ok(CASE, "delete again", store.kv_delete(&key).await),
        "[{CASE}] second delete"
    );
}

pub async fn kv_put_if_absent_inserts_once(store: &dyn Store) {
    const CASE: &str = "kv_put_if_absent_inserts_once";
    let key = format!("{}lock", fresh_namespace(CASE));
    assert!(
        ok(CASE, "first", store.kv_put_if_absent(&key, "a").await),
        "[{CASE}] first call"
    );
    assert!(
        !ok(CASE, "second", store.kv_put_if_absent(&key, "b").await),
        "[{CASE}] second call"
    );
    let got = ok(CASE, "get", store.kv_get(&key).await);
    assert_eq!(
        got.as_deref(),
        Some("a"),
        "[{CASE}] second call must not overwrite"
    );
    ok(CASE, "delete", store.kv_delete(&key).await);
    assert!(
        ok(
            CASE,
            "after delete",
            store.kv_put_if_absent(&key, "c").await
        ),
        "[{CASE}]"
    );
    assert_eq!(
        ok(CASE, "get", store.kv_get(&key).await).as_deref(),
        Some("c"),
        "[{CASE}]"
    );
}

pub async fn kv_prefix_is_literal_and_bytewise(store: &dyn Store) {
    const CASE: &str = "kv_prefix_is_literal_and_bytewise";
    let ns = fresh_namespace(CASE);
    let keys = [
        "a",
        "a%",
        "a%b/1",
        "a%b/2",
        "aXb/3",
        "a_b/4",
        "aYb/5",
        "a\\b",
        "k/B",
        "k/a",
        "k/z",
        "k/é",
        "é",
        "é\u{10FFFF}x",
        "ê",
    ];
    for key in keys {
        let key = format!("{ns}{key}");
        ok(CASE, "put", store.kv_put(&key, &format!("v:{key}")).await);
    }
    // Outside the namespace but sharing its text up to the last char: must never show up.
    let sibling = format!("{}x", ns.trim_end_matches('/'));
    ok(CASE, "put sibling", store.kv_put(&sibling, "other").await);

    let list = |prefix: &'static str| list_names(store, CASE, &ns, prefix);
    assert_eq!(
        list("a%b/").await,
        ["a%b/1", "a%b/2"],
        "[{CASE}] % is literal"
    );
    assert_eq!(list("a_b").await, ["a_b/4"], "[{CASE}] _ is literal");
    assert_eq!(
        list("a%").await,
        ["a%", "a%b/1", "a%b/2"],
        "[{CASE}] key equal to prefix"
    );
    assert_eq!(list("a\\").await, ["a\\b"], "[{CASE}] backslash is literal");
    // Byte order, not a locale collation: 'B' < 'a' < 'z' < 'é'.
    assert_eq!(
        list("k/").await,
        ["k/B", "k/a", "k/z", "k/é"],
        "[{CASE}] bytewise order"
    );
    assert_eq!(
        list("é").await,
        ["é", "é\u{10FFFF}x"],
        "[{CASE}] non-ASCII prefix"
    );
    assert_eq!(
        list("nothing").await,
        Vec::<String>::new(),
        "[{CASE}] no match"
    );
    assert_eq!(
        list("").await.len(),
        keys.len(),
        "[{CASE}] whole namespace, not the sibling"
    );
}

pub async fn kv_prefix_listing_respects_limit(store: &dyn Store) {
    const CASE: &str = "kv_prefix_listing_respects_limit";
    let ns = fresh_namespace(CASE);
    for i in 0..5 {
        ok(CASE, "put", store.kv_put(&format!("{ns}{i}"), "v").await);
    }
    let two = ok(CASE, "list 2", store.kv_list_prefix(&ns, 2).await);
    let keys: Vec<String> = two.into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        keys,
        [format!("{ns}0"), format!("{ns}1")],
        "[{CASE}] first two by key"
    );
    assert!(
        ok(CASE, "list 0", store.kv_list_prefix(&ns, 0).await).is_empty(),
        "[{CASE}]"
    );
    assert_eq!(
        ok(
            CASE,
            "list all",
            store.kv_list_prefix(&ns, usize::MAX).await
        )
        .len(),
        5,
        "[{CASE}]"
    );
}

pub async fn kv_empty_prefix_is_refused(store: &dyn Store) {
    const CASE: &str = "kv_empty_prefix_is_refused";
    let ns = fresh_namespace(CASE);
    ok(CASE, "put", store.kv_put(&format!("{ns}k"), "v").await);
    refused(CASE, "empty prefix", store.kv_list_prefix("", 10).await, "");
    refused(
        CASE,
        "empty prefix, limit 0",
        store.kv_list_prefix("", 0).await,
        "",
    );
    refused(
        CASE,
        "prefix with NUL",
        store.kv_list_prefix("a\0", 10).await,
        "",
    );
}

pub async fn kv_size_limits(store: &dyn Store) {
    const CASE: &str = "kv_size_limits";
    let ns = fresh_namespace(CASE);
    let longest = format!("{ns}{}", "k".repeat(MAX_KV_KEY_LEN - ns.len()));
    let too_long = format!("{longest}k");
    ok(CASE, "put longest key", store.kv_put(&longest, "v").await);
    assert_eq!(
        ok(CASE, "get longest", store.kv_get(&longest).await).as_deref(),
        Some("v"),
        "[{CASE}]"
    );
    refused(
        CASE,
        "put long key",
        store.kv_put(&too_long, "v").await,
        &too_long,
    );
    refused(
        CASE,
        "put_if_absent long key",
        store.kv_put_if_absent(&too_long, "v").await,
        &too_long,
    );
    refused(
        CASE,
        "get long key",
        store.kv_get(&too_long).await,
        &too_long,
    );
    refused(
        CASE,
        "delete long key",
        store.kv_delete(&too_long).await,
        &too_long,
    );
    refused(CASE, "empty key", store.kv_put("", "v").await, "");
    refused(
        CASE,
        "NUL in key",
        store.kv_put(&format!("{ns}a\0b"), "v").await,
        "",
    );

    let key = format!("{ns}big");
    let biggest = "v".repeat(MAX_KV_VALUE_LEN);
    ok(CASE, "put 1 MiB", store.kv_put(&key, &biggest).await);
    let got = ok(CASE, "get 1 MiB", store.kv_get(&key).await);
    assert!(
        got.as_deref() == Some(biggest.as_str()),
        "[{CASE}] 1 MiB value did not round-trip"
    );

    let secret = "sk-secret-api-key";
    let too_big = format!("{secret}{}", "v".repeat(MAX_KV_VALUE_LEN));
    let other = format!("{ns}other");
    refused(
        CASE,
        "put too big",
        store.kv_put(&other, &too_big).await,
        secret,
    );
    refused(
        CASE,
        "put_if_absent too big",
        store.kv_put_if_absent(&other, &too_big).await,
        secret,
    );
    refused(
        CASE,
        "NUL in value",
        store.kv_put(&other, &format!("{secret}\0")).await,
        secret,
    );
    assert_eq!(
        ok(CASE, "get refused", store.kv_get(&other).await),
        None,
        "[{CASE}] refused put stored something"
    );
    refused(
        CASE,
        "overwrite too big",
        store.kv_put(&key, &too_big).await,
        secret,
    );
    let got = ok(CASE, "get 1 MiB again", store.kv_get(&key).await);
    assert!(
        got.as_deref() == Some(biggest.as_str()),
        "[{CASE}] refused overwrite changed the value"
    );
}

/// Lists `ns + prefix` and returns the keys without `ns`, checking each value on the way.
async fn list_names(store: &dyn Store, case: &str, ns: &str, prefix: &str) -> Vec<String> {
    let prefix = format!("{ns}{prefix}");
    let rows = ok(case, "list", store.kv_list_prefix(&prefix, 100).await);
    for (key, value) in &rows {
        assert_eq!(
            value,
            &format!("v:{key}"),
            "[{case}] value mismatch for {key:?}"
        );
    }
    rows.into_iter()
        .map(|(k, _)| k[ns.len()..].to_owned())
        .collect()
}
