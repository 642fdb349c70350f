//! Human renderings derived from the registry: `config show` and the key reference.
//!
//! Owns: text layout. Does not own: values or masking decisions, which arrive as
//! `Shown` (secrets are already reduced to set/unset before reaching this file).

use std::fmt::Write as _;
use std::path::Path;

use super::registry::{Default, FIELDS, USER_PROVIDER_KEYS};
use super::{Entry, Shown};

const MASK: &str = "******** (set)";
const UNSET: &str = "(not set)";

pub(crate) fn render_show(file: Option<&Path>, entries: &[Entry]) -> String {
    let mut out = String::new();
    match file {
        Some(p) => {
            let _ = writeln!(out, "# config file: {}", p.display());
        }
        None => out.push_str("# no config file: defaults + environment\n"),
    }
    let key_w = entries.iter().map(|e| e.key.len()).max().unwrap_or(0);
    let rows: Vec<(&str, &str, String)> = entries
        .iter()
        .map(|e| {
            let value = match &e.value {
                Shown::Plain(v) => v.as_str(),
                Shown::SecretSet => MASK,
                Shown::Unset => UNSET,
            };
            (e.key.as_str(), value, e.source.to_string())
        })
        .collect();
    let val_w = rows.iter().map(|(_, v, _)| v.len()).max().unwrap_or(0);
    for (key, value, source) in rows {
        let _ = writeln!(out, "{key:key_w$} = {value:val_w$}  ({source})");
    }
    out
}

/// Markdown reference of every key, generated from the registry.
pub fn render_docs() -> String {
    let mut out = String::from(
        "| key | env | default | rule | description |\n| --- | --- | --- | --- | --- |\n",
    );
    for f in FIELDS {
        let default = match f.default {
            Default::None => "—".to_string(),
            Default::Text(t) => format!("`{t}`"),
            Default::DataDir => "see description".to_string(),
        };
        let env = f.env.map_or("—".to_string(), |e| format!("`{e}`"));
        let secret = if f.secret { " (secret)" } else { "" };
        let runtime = if f.runtime {
            " Can be changed while Steward runs (the app's Settings page)."
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| `{}` | {env} | {default} | {}{secret} | {}{runtime} |",
            f.key,
            f.rule.describe(),
            f.help
        );
    }
    out.push_str(
        "\nUser-defined providers: a `[providers.NAME]` table (NAME: `[a-z0-9_-]{1,32}`) with:\n\n",
    );
    for (k, rule, secret) in USER_PROVIDER_KEYS {
        let secret = if secret { " (secret)" } else { "" };
        let _ = writeln!(out, "- `{k}`: {}{secret}", rule.describe());
    }
    out.push_str(
        "\n`kind` and `base_url` are required. `api_key_env` names the env var holding the key; \
         when set it wins over `api_key`.\n\
         Precedence: defaults < file < a value set in the app (the keys marked so) < environment; an empty env var counts as unset.\n",
    );
    out
}
