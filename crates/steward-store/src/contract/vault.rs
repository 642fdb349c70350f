//! The `VaultStore` contract: a sealed secret round-trips byte for byte, a put replaces, names
//! list in order without values, a delete is once, and bad names or sizes are refused.

use super::{ok, refused};
use crate::Store;
use crate::vault::{NONCE_LEN, Sealed};

const T: i64 = 1_900_000_000_000;

fn fresh_name() -> String {
    format!("secret.{}", uuid::Uuid::new_v4().simple())
}

fn sealed(byte: u8, len: usize) -> Sealed {
    Sealed {
        nonce: [byte; NONCE_LEN],
        ciphertext: vec![byte; len],
    }
}

pub async fn vault_rows_round_trip_replace_list_and_delete(store: &dyn Store) {
    const CASE: &str = "vault_rows_round_trip_replace_list_and_delete";
    let (a, b) = (fresh_name(), fresh_name());
    ok(CASE, "put a", store.put_sealed(&a, &sealed(1, 40), T).await);
    ok(
        CASE,
        "put b",
        store.put_sealed(&b, &sealed(2, 17), T + 1).await,
    );
    assert_eq!(ok(CASE, "get", store.sealed(&a).await), Some(sealed(1, 40)));
    ok(
        CASE,
        "replace",
        store.put_sealed(&a, &sealed(3, 33), T + 2).await,
    );
    assert_eq!(
        ok(CASE, "get again", store.sealed(&a).await),
        Some(sealed(3, 33))
    );
    let names = ok(CASE, "names", store.secret_names().await);
    let mine: Vec<(String, i64)> = names
        .into_iter()
        .filter(|e| e.name == a || e.name == b)
        .map(|e| (e.name, e.updated_ms))
        .collect();
    let mut expected = vec![(a.clone(), T + 2), (b.clone(), T + 1)];
    expected.sort();
    assert_eq!(
        mine, expected,
        "[{CASE}] in name order, with when each was set"
    );
    assert!(ok(CASE, "delete", store.delete_sealed(&a).await));
    assert!(!ok(CASE, "delete again", store.delete_sealed(&a).await));
    assert_eq!(ok(CASE, "gone", store.sealed(&a).await), None);
    assert_eq!(
        ok(CASE, "unknown", store.sealed("no.such.secret").await),
        None
    );
}

pub async fn vault_input_limits(store: &dyn Store) {
    const CASE: &str = "vault_input_limits";
    for bad in [
        "",
        "Upper",
        "a b",
        "x/y",
        "é",
        &"a".repeat(65),
        "semi;colon",
    ] {
        refused(
            CASE,
            "name",
            store.put_sealed(bad, &sealed(1, 20), T).await,
            "",
        );
        refused(CASE, "name", store.sealed(bad).await, "");
        refused(CASE, "name", store.delete_sealed(bad).await, "");
    }
    let name = fresh_name();
    refused(
        CASE,
        "short",
        store.put_sealed(&name, &sealed(1, 15), T).await,
        "",
    );
    let huge = crate::vault::MAX_SECRET_LEN + 17;
    refused(
        CASE,
        "long",
        store.put_sealed(&name, &sealed(1, huge), T).await,
        "",
    );
    assert_eq!(ok(CASE, "nothing kept", store.sealed(&name).await), None);
}
