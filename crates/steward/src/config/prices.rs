//! The `[prices]` table: the owner's price per model, over Steward's built-in list, for the
//! cost in the usage ledger. One entry per `"provider:model"`:
//!
//! ```toml
//! [prices]
//! "openai:gpt-4o" = { input = 2.5, output = 10 }   # USD per million tokens
//! "ollama:llama3.2" = { input = 0, output = 0 }    # a local model is free
//! ```
//!
//! Owns: reading the table, its checks (the name is `provider:model` of a configured
//! provider; `input` and `output`, both required, follow `steward_llm::UsdPerMillion`'s
//! rule), the `config show` entries and the reference text (with the built-in list). Does
//! not own the prices' arithmetic or lookup (steward-llm's `PriceTable`). Each mistake names
//! the entry, the field and the line; a broken entry is left out, the others are kept.

use std::fmt::Write as _;
use std::path::Path;

use steward_llm::{Price, PriceTable, UsdPerMillion};
use toml::de::{DeTable, DeValue};

use super::registry::PRICE_KEYS;
use super::settings::{Settings, split_model_ref};
use super::suggest::closest;
use super::{ConfigError, Entry, Shown, Source};

/// One `prices."provider:model"` entry as read, before its checks.
#[derive(Debug)]
pub(crate) struct RawPrice {
    pub model: String,
    pub line: usize,
    /// `input` / `output` → (number, or what it was instead; line).
    pub fields: Vec<(String, Result<f64, &'static str>, usize)>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .unwrap_or(text)
        .matches('\n')
        .count()
        + 1
}

fn number(v: &DeValue<'_>) -> Result<f64, &'static str> {
    match v {
        DeValue::Float(f) => f.as_str().parse().map_err(|_| "an unreadable float"),
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
            .map(|n| n as f64)
            .map_err(|_| "an out-of-range integer"),
        DeValue::String(_) => Err("a string"),
        DeValue::Boolean(_) => Err("a boolean"),
        DeValue::Datetime(_) => Err("a datetime"),
        DeValue::Array(_) => Err("an array"),
        DeValue::Table(_) => Err("a table"),
    }
}

fn entry_key(model: &str) -> String {
    format!("prices.\"{model}\"")
}

/// Read the `[prices]` table. Unknown fields and entries that are not tables are reported
/// (each with its line) and left out.
pub(crate) fn collect(
    prices: &DeTable<'_>,
    text: &str,
    path: &Path,
) -> (Vec<RawPrice>, Vec<ConfigError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (k, v) in prices {
        let model = k.get_ref().to_string();
        let line = line_of(text, k.span().start);
        let DeValue::Table(t) = v.get_ref() else {
            errors.push(invalid(
                &entry_key(&model),
                path,
                line,
                "must be a table like { input = 2.5, output = 10 } (USD per million tokens)",
            ));
            continue;
        };
        let mut fields = Vec::new();
        let mut bad = false;
        for (fk, fv) in t {
            let field = fk.get_ref().to_string();
            let fline = line_of(text, fk.span().start);
            if PRICE_KEYS.iter().any(|(name, _)| *name == field) {
                fields.push((field, number(fv.get_ref()), fline));
            } else {
                let allowed: Vec<String> = PRICE_KEYS
                    .iter()
                    .map(|(name, _)| format!("{}.{name}", entry_key(&model)))
                    .collect();
                let key = format!("{}.{field}", entry_key(&model));
                errors.push(ConfigError::UnknownKey {
                    suggestion: closest(&key, allowed.iter().map(String::as_str)),
                    key,
                    path: path.to_path_buf(),
                    line: fline,
                });
                bad = true;
            }
        }
        if !bad {
            out.push(RawPrice {
                model,
                line,
                fields,
            });
        }
    }
    (out, errors)
}

fn invalid(key: &str, path: &Path, line: usize, reason: &str) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_owned(),
        origin: format!("file {} line {line}", path.display()),
        reason: reason.to_owned(),
    }
}

/// Check one entry against the loaded providers; the price and its `config show` entry.
pub(crate) fn build(
    raw: &RawPrice,
    settings: &Settings,
    path: &Path,
) -> Result<(Price, Entry), ConfigError> {
    let key = entry_key(&raw.model);
    let Some((provider, _)) = split_model_ref(&raw.model) else {
        return Err(invalid(
            &key,
            path,
            raw.line,
            "the name must be `provider:model`, e.g. \"openai:gpt-4o\"",
        ));
    };
    if settings.provider(provider).is_none() {
        let known: Vec<&str> = settings.providers.iter().map(|p| p.name.as_str()).collect();
        return Err(invalid(
            &key,
            path,
            raw.line,
            &format!(
                "unknown provider `{provider}`; known providers: {}",
                known.join(", ")
            ),
        ));
    }
    let mut parsed = [None, None];
    for (slot, (name, _)) in parsed.iter_mut().zip(PRICE_KEYS) {
        let Some((_, value, line)) = raw.fields.iter().find(|(f, _, _)| f == name) else {
            return Err(invalid(
                &key,
                path,
                raw.line,
                &format!("missing `{name}` (USD per million tokens)"),
            ));
        };
        let field_key = format!("{key}.{name}");
        let rule = steward_llm::PriceError.to_string();
        let usd = value
            .map_err(|found| invalid(&field_key, path, *line, &format!("found {found}; {rule}")))?;
        let price = UsdPerMillion::parse(usd)
            .map_err(|e| invalid(&field_key, path, *line, &format!("{e} (got {usd})")))?;
        *slot = Some(price);
    }
    let [Some(input), Some(output)] = parsed else {
        return Err(invalid(&key, path, raw.line, "missing `input` or `output`"));
    };
    let price = Price { input, output };
    let entry = Entry {
        key,
        value: Shown::Plain(format!(
            "input {input}, output {output} (USD per million tokens)"
        )),
        source: Source::File(path.to_path_buf()),
    };
    Ok((price, entry))
}

/// The reference text in `docs/CONFIG.md`, with the built-in list.
pub(crate) fn docs() -> String {
    let mut out = String::from(
        "\n## Prices\n\n\
         What each model call cost is recorded with its usage (`steward usage`, \
         `GET /api/v1/status`). Steward knows the prices below; a `[prices]` table sets the \
         price of a `provider:model` (of a configured provider) exactly as written, over \
         the built-in one:\n\n\
         ```toml\n[prices]\n\"openai:gpt-4o\" = { input = 2.5, output = 10 }\n\
         \"ollama:llama3.2\" = { input = 0, output = 0 }\n```\n\n",
    );
    for (name, help) in PRICE_KEYS {
        let _ = writeln!(out, "- `{name}` (required): {help}");
    }
    out.push_str(
        "\nA built-in price applies to its model name under any provider, and to dated \
         snapshots of it (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`, `-latest`, \
         `-001`). A model with no price is shown as \"no price\", never as $0. Prices are \
         applied when a call is recorded: changing one does not rewrite past costs.\n\n\
         | model | input | output |\n| --- | --- | --- |\n",
    );
    for (name, input, output) in PriceTable::builtin_list() {
        let _ = writeln!(out, "| `{name}` | {input} | {output} |");
    }
    out
}
