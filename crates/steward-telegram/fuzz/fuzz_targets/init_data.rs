//! Fuzz target: `verify_init_data` on arbitrary bytes (as text when they are UTF-8, as the
//! HTTP layer hands it over), at a fixed clock. Owns nothing else; the properties it cannot
//! check without a valid hash (never accepting a mutated string) are the proptests'
//! (`tests/init_data_props.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use steward_telegram::{BotToken, verify_init_data};

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(token) = BotToken::parse("123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq") else {
        return;
    };
    // No input of the fuzzer's carries a valid hash for this token: accepting one is a bug.
    if verify_init_data(raw, &token, 1_733_509_682).is_ok() {
        std::process::abort();
    }
});
