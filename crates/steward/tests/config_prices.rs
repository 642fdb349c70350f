//! The `[prices]` table: entries reach the price table over the built-in prices, `config
//! show` lists them, and every malformed or hostile entry is refused naming the entry, the
//! field and the line while the other entries are kept.

use crate::config_support;

use config_support::{env_of, load_in, temp_dir, write};
use steward::config::load_reporting_with_cwd;
use steward_protocol::Usage;

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
    }
}

#[test]
fn an_entry_overrides_the_builtin_price_of_exactly_its_model() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "[providers.work]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\n\
         [prices]\n\"openai:gpt-4o\" = { input = 1.5, output = 6 }\n\
         [prices.\"work:llama3.2\"]\ninput = 0\noutput = 0\n",
    );
    let loaded = load_in(&dir, None, &env_of(&dir, &[])).unwrap();
    let table = loaded.settings.price_table();
    assert_eq!(
        table.cost_micro_usd("openai:gpt-4o", usage(1000, 1000)),
        Some(7_500)
    );
    // The built-in price still serves the same model under another provider.
    assert_eq!(
        table.cost_micro_usd("work:gpt-4o", usage(1000, 1000)),
        Some(12_500)
    );
    assert_eq!(table.cost_micro_usd("work:llama3.2", usage(9, 9)), Some(0));
    assert_eq!(table.cost_micro_usd("work:mistral", usage(9, 9)), None);
    let shown = loaded.render_show();
    assert!(
        shown.contains("prices.\"openai:gpt-4o\"")
            && shown.contains("input 1.5, output 6 (USD per million tokens)"),
        "{shown}"
    );
    // Without a table: the built-in prices only.
    let bare = temp_dir();
    let loaded = load_in(&bare, None, &env_of(&bare, &[])).unwrap();
    assert_eq!(
        loaded
            .settings
            .price_table()
            .cost_micro_usd("openai:gpt-4o", usage(1000, 1000)),
        Some(12_500)
    );
}

#[test]
fn bad_entries_are_refused_naming_the_entry_and_the_rest_are_kept() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "[prices]\n\
         \"openai:gpt-4o\" = { input = -1, output = 6 }\n\
         \"opnai:gpt-4o-mini\" = { input = 1, output = 6 }\n\
         \"gpt-4.1\" = { input = 1, output = 6 }\n\
         \"openai:o3\" = { input = 1 }\n\
         \"openai:o1\" = { input = \"1\", output = 2 }\n\
         \"openai:gpt-5\" = { inptu = 1, output = 2 }\n\
         \"openai:gpt-5-mini\" = 5\n\
         \"openai:gpt-5-nano\" = { input = inf, output = nan }\n\
         \"openai:gpt-4.1-nano\" = { input = 10000.5, output = 1 }\n\
         \"<script>alert(1)</script>\" = { input = 1, output = 1 }\n\
         \"openai:good\" = { input = 2, output = 3 }\n",
    );
    let env = env_of(&dir, &[]);
    let (loaded, problems) = load_reporting_with_cwd(None, &dir, &|k: &str| env.get(k).cloned());
    let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let has = |needle: &str| messages.iter().any(|m| m.contains(needle));
    assert_eq!(messages.len(), 10, "{messages:#?}");
    assert!(
        has("`prices.\"openai:gpt-4o\".input` from file") && has("line 2"),
        "{messages:#?}"
    );
    assert!(has("unknown provider `opnai`"), "{messages:#?}");
    assert!(has("`prices.\"gpt-4.1\"`") && has("must be `provider:model`"));
    assert!(has("missing `output`"), "{messages:#?}");
    assert!(has("`prices.\"openai:o1\".input`") && has("found a string"));
    assert!(has(
        "unknown key `prices.\"openai:gpt-5\".inptu`; did you mean"
    ));
    assert!(has("`prices.\"openai:gpt-5-mini\"`") && has("must be a table"));
    assert!(has("`prices.\"openai:gpt-5-nano\".input`"), "{messages:#?}");
    assert!(has("`prices.\"openai:gpt-4.1-nano\".input`") && has("(got 10000.5)"));
    assert!(
        has("`prices.\"<script>alert(1)</script>\"`"),
        "{messages:#?}"
    );
    // Each refused entry is left out (built-in prices stand); the good one is kept.
    let table = loaded.settings.price_table();
    assert_eq!(
        table.cost_micro_usd("openai:gpt-4o", usage(1000, 0)),
        Some(2_500)
    );
    assert_eq!(
        table.cost_micro_usd("openai:good", usage(1000, 1000)),
        Some(5_000)
    );
    assert_eq!(loaded.settings.prices.len(), 1);
    // `load` stops at the first.
    assert!(load_in(&dir, None, &env).is_err());
}

#[test]
fn prices_must_be_a_table() {
    let dir = temp_dir();
    write(&dir, "steward.toml", "prices = 3\n");
    let err = load_in(&dir, None, &env_of(&dir, &[])).unwrap_err();
    assert!(err.to_string().contains("unknown key `prices`"), "{err}");
}
