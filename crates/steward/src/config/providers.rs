//! User-defined `[providers.NAME]` tables: validation and conversion to `ProviderSettings`.
//!
//! Owns: rules specific to user providers (name syntax, required `kind`/`base_url`,
//! key lookup through `api_key_env`). Does not own: built-in providers, which are
//! plain registry fields.

use std::path::Path;

use super::registry::USER_PROVIDER_KEYS;
use super::rules::{Rule, Value, is_provider_name};
use super::settings::{BUILTIN_PROVIDERS, ProviderKindSetting, ProviderSettings};
use super::suggest::closest;
use super::{ConfigError, Entry, Shown, Source, show_file_value};
use crate::config::file::RawProvider;

/// Validate one raw table; returns the provider and its `config show` entries.
pub(crate) fn build(
    raw: &RawProvider,
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(ProviderSettings, Vec<Entry>), ConfigError> {
    let fail = |message: String| ConfigError::Provider {
        name: raw.name.clone(),
        path: path.to_path_buf(),
        line: raw.line,
        message,
    };
    if !is_provider_name(&raw.name) {
        return Err(fail("provider names must match [a-z0-9_-]{1,32}".into()));
    }
    let mut values: Vec<(&str, Value)> = Vec::new();
    for (key, rule, secret) in USER_PROVIDER_KEYS {
        if let Some((fv, line)) = raw.entries.get(key) {
            let v = rule.parse_file(fv).map_err(|reason| {
                let reason = match show_file_value(fv, rule) {
                    Some(shown) if !secret => format!("{reason} (got {shown})"),
                    _ => reason,
                };
                ConfigError::Invalid {
                    key: format!("providers.{}.{key}", raw.name),
                    origin: format!("file {} line {line}", path.display()),
                    reason,
                }
            })?;
            values.push((key, v));
        }
    }
    let get = |k: &str| values.iter().find(|(n, _)| *n == k).map(|(_, v)| v);
    let Some(kind) = get("kind").and_then(|v| ProviderKindSetting::parse(&v.text())) else {
        let builtin = closest(&raw.name, BUILTIN_PROVIDERS.iter().map(|(n, _, _)| *n));
        let hint = builtin
            .map(|b| format!(" (or did you mean the built-in [providers.{b}]?)"))
            .unwrap_or_default();
        return Err(fail(format!(
            "missing `kind`: user-defined providers need kind = \"openai\" | \"anthropic\" | \"gemini\"{hint}"
        )));
    };
    let Some(base_url) = get("base_url").map(Value::text) else {
        return Err(fail("missing `base_url`".into()));
    };
    let api_key_env = get("api_key_env").map(Value::text);
    let stream = get("stream").is_none_or(Value::flag);
    let parts = get("parts").and_then(|v| super::rules::part_kinds(&v.text()));

    let file_src = Source::File(path.to_path_buf());
    let mut key_source = get("api_key").map(|v| (v.text(), file_src.clone()));
    if let Some(var) = &api_key_env
        && let Some(key) = env(var)
    {
        Rule::ApiKey
            .parse_text(&key)
            .map_err(|reason| ConfigError::Invalid {
                key: format!("providers.{}.api_key", raw.name),
                origin: format!("env {var}"),
                reason,
            })?;
        key_source = Some((key, Source::Env(var.clone())));
    }

    let entry = |k: &str, value: Shown, source: Source| Entry {
        key: format!("providers.{}.{k}", raw.name),
        value,
        source,
    };
    let plain_or_unset = |k: &str| match get(k) {
        Some(v) => (Shown::Plain(v.text()), file_src.clone()),
        None => (Shown::Unset, Source::Default),
    };
    let (stream_shown, stream_src) = match get("stream") {
        Some(v) => (Shown::Plain(v.text()), file_src.clone()),
        None => (Shown::Plain("true".into()), Source::Default),
    };
    let (env_shown, env_src) = plain_or_unset("api_key_env");
    let (key_shown, key_src) = match &key_source {
        Some((_, src)) => (Shown::SecretSet, src.clone()),
        None => (Shown::Unset, Source::Default),
    };
    let entries = vec![
        entry("kind", Shown::Plain(kind.as_str().into()), file_src.clone()),
        entry(
            "base_url",
            Shown::Plain(Rule::HttpUrl.shown(&base_url)),
            file_src.clone(),
        ),
        entry("api_key_env", env_shown, env_src),
        entry("api_key", key_shown, key_src),
        entry("stream", stream_shown, stream_src),
        {
            let (shown, src) = plain_or_unset("parts");
            entry("parts", shown, src)
        },
    ];
    let provider = ProviderSettings {
        name: raw.name.clone(),
        kind,
        base_url,
        api_key: key_source.map(|(k, _)| k),
        api_key_env,
        stream,
        parts,
    };
    Ok((provider, entries))
}
