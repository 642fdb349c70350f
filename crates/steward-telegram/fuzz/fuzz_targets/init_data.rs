//! Fuzz target: `verify_init_data` on arbitrary bytes (as text when they are UTF-8, as the
//! HTTP layer hands it over), at a fixed clock: it must never panic, and what it accepts must
//! be fresh and name a user. Owns nothing else; "a mutated genuine string never verifies"
//! needs the genuine one to compare with and is the proptests' (`tests/init_data_props.rs`).
//! Seed it with genuine strings for this token signed at `NOW` (e.g. the output of
//! `tests/fixtures/init_data_vectors.mjs`, one `init_data` per file) to reach past the hash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steward_telegram::{
    BotToken, INIT_DATA_MAX_AGE_SECS, INIT_DATA_MAX_FUTURE_SECS, verify_init_data,
};

const NOW: i64 = 1_733_509_682;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(token) = BotToken::parse("123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq") else {
        return;
    };
    if let Ok(verified) = verify_init_data(raw, &token, NOW) {
        let age = NOW - verified.auth_date;
        let fresh = (-INIT_DATA_MAX_FUTURE_SECS..=INIT_DATA_MAX_AGE_SECS).contains(&age);
        if verified.user_id <= 0 || !fresh {
            std::process::abort();
        }
    }
});
