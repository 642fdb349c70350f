//! `verify_init_data` against vectors signed by `@telegram-apps/init-data-node`, the npm
//! library Mini App developers sign and check initData with (`fixtures/init_data_vectors.mjs`,
//! run with `node`; scripts/browser-test-deps.sh installs the package into
//! `$STEWARD_TEST_BROWSER_DIR`). Every vector must verify to its own fields, and every
//! mutation of it be refused (`init_data::assert_mutations_refused`). Like the browser tests
//! (crates/steward/tests/browser.rs) this fails, never skips, when node or the package is
//! missing.

use std::path::PathBuf;
use std::process::Command;

use serde::Deserialize;
use steward_telegram::{BotToken, INIT_DATA_MAX_AGE_SECS, InitDataRefusal, verify_init_data};

use crate::init_data::{TOKEN, assert_mutations_refused, token};

#[derive(Debug, Deserialize)]
struct Vector {
    name: String,
    auth_date: i64,
    init_data: String,
    user_id: i64,
    query_id: Option<String>,
    chat_type: Option<String>,
    start_param: Option<String>,
}

const FIX: &str = "run scripts/browser-test-deps.sh (scripts/test does)";

fn node_modules() -> PathBuf {
    let dir = std::env::var_os("STEWARD_TEST_BROWSER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/browser-tests")
        });
    let modules = dir.join("node_modules");
    let package = modules.join("@telegram-apps/init-data-node/package.json");
    assert!(package.is_file(), "{} is missing; {FIX}", package.display());
    modules
}

fn vectors(token: &str, auth_dates: &[i64]) -> Vec<Vector> {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/init_data_vectors.mjs");
    let out = Command::new("node")
        .arg(&script)
        .arg(token)
        .args(auth_dates.iter().map(i64::to_string))
        .env("NODE_PATH", node_modules())
        .output()
        .unwrap_or_else(|e| panic!("cannot run node ({e}); {FIX}"));
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_vector_of_the_npm_package_verifies_and_no_mutation_does() {
    let dates = [1_733_509_682, 1_800_000_000];
    let vectors = vectors(TOKEN, &dates);
    assert_eq!(vectors.len(), 12, "six cases at two dates");
    let mut with_signature = 0;
    for v in &vectors {
        let now = v.auth_date + 30;
        let got = verify_init_data(&v.init_data, &token(), now)
            .unwrap_or_else(|e| panic!("{}: {e}: {}", v.name, v.init_data));
        assert_eq!(got.user_id, v.user_id, "{}", v.name);
        assert_eq!(got.auth_date, v.auth_date, "{}", v.name);
        assert_eq!(got.query_id, v.query_id, "{}", v.name);
        assert_eq!(got.chat_type, v.chat_type, "{}", v.name);
        assert_eq!(got.start_param, v.start_param, "{}", v.name);
        // The package always writes `signature` (empty unless given) and signs it.
        assert!(v.init_data.contains("&signature="), "{}", v.name);
        with_signature += usize::from(!v.init_data.contains("&signature=&"));
        assert_eq!(
            verify_init_data(&v.init_data, &token(), now + INIT_DATA_MAX_AGE_SECS),
            Err(InitDataRefusal::Expired),
            "{}",
            v.name
        );
        assert_mutations_refused(&v.init_data, &token(), now);
    }
    assert_eq!(
        with_signature, 2,
        "the case with a signature, at both dates"
    );
}

#[test]
fn a_vector_signed_with_another_token_is_refused() {
    let other = "987654321:ZZHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq";
    for v in vectors(other, &[1_733_509_682]) {
        assert_eq!(
            verify_init_data(&v.init_data, &token(), v.auth_date),
            Err(InitDataRefusal::BadHash),
            "{}",
            v.name
        );
        let theirs = BotToken::parse(other).unwrap();
        assert!(verify_init_data(&v.init_data, &theirs, v.auth_date).is_ok());
    }
}
