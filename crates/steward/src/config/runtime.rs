//! Settings that change while Steward runs: the registry's `runtime` fields, their values
//! kept in the database, and how those values join the loaded configuration.
//!
//! Precedence: defaults < file < a value set in the app < environment. The environment
//! stays on top because it is how a deployment pins a value; such a field is shown locked.
//!
//! Owns: checking a runtime value (the field's own rule, the same a config file meets),
//! applying stored values over a `LoadedConfig`, and each field's view for a form. Does not
//! own: the database (the caller reads and writes the values under `RUNTIME_KV_PREFIX`) or
//! pushing a change into the running assistant (`crate::settings_desk`).

use std::collections::BTreeMap;

use super::registry::{self, Default, FIELDS, Field};
use super::rules::Rule;
use super::{ConfigError, LoadedConfig, Shown, Source, split_model_ref};

/// Where runtime values live in the store's protected `kv` table: this prefix + the key.
pub const RUNTIME_KV_PREFIX: &str = "settings.runtime.";

/// Why a runtime value was refused; the messages never quote a secret (no runtime field is
/// one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeRefusal {
    /// No such key, or a key that is read only at start.
    Unknown,
    /// The environment variable that fixes it.
    Locked(String),
    /// The rule it broke, in words.
    Invalid(String),
}

/// One runtime field as a form shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeView {
    pub key: &'static str,
    pub help: &'static str,
    /// The rule in words.
    pub rule: String,
    /// `(min, max)` for integers; `None` otherwise.
    pub int_range: Option<(u64, u64)>,
    pub is_bool: bool,
    pub is_model: bool,
    pub is_timezone: bool,
    pub value: Option<String>,
    /// What is in force without the app's value: the file's, else the default.
    pub fallback: Option<String>,
    pub source: Source,
    pub locked_by: Option<String>,
}

fn runtime_field(key: &str) -> Option<&'static Field> {
    registry::find(key).filter(|f| f.runtime)
}

fn shown_text(shown: &Shown) -> Option<String> {
    match shown {
        Shown::Plain(v) => Some(v.clone()),
        Shown::SecretSet | Shown::Unset => None,
    }
}

impl LoadedConfig {
    fn entry(&self, key: &str) -> Option<&super::Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    /// Check `raw` for the runtime field `key` against this configuration (the base one, as
    /// loaded from defaults, file and environment). Returns the value as it is stored: the
    /// rule's normal form (`yes` → `true`, ` 8 ` → `8`).
    pub fn check_runtime(&self, key: &str, raw: &str) -> Result<String, RuntimeRefusal> {
        let field = runtime_field(key).ok_or(RuntimeRefusal::Unknown)?;
        if let Some(Source::Env(var)) = self.entry(key).map(|e| &e.source) {
            return Err(RuntimeRefusal::Locked(var.clone()));
        }
        let value = field
            .rule
            .parse_text(raw)
            .map_err(RuntimeRefusal::Invalid)?;
        let text = value.text();
        if field.rule == Rule::ModelRef
            && let Some((provider, _)) = split_model_ref(&text)
            && self.settings.provider(provider).is_none()
        {
            let known: Vec<&str> = self
                .settings
                .providers
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            return Err(RuntimeRefusal::Invalid(format!(
                "unknown provider `{provider}`; known providers: {}",
                known.join(", ")
            )));
        }
        Ok(text)
    }

    /// This configuration with the stored runtime values applied (the environment still
    /// wins). A stored value that no longer passes — a key that stopped being runtime, a rule
    /// that got stricter, a provider removed from the file — is left out and reported.
    pub fn with_runtime(
        &self,
        stored: &BTreeMap<String, String>,
    ) -> (LoadedConfig, Vec<ConfigError>) {
        let mut out = self.clone();
        let mut problems = Vec::new();
        for (key, raw) in stored {
            let checked = match self.check_runtime(key, raw) {
                Ok(text) => text,
                // The environment pins it; the stored value waits until it is unset.
                Err(RuntimeRefusal::Locked(_)) => continue,
                Err(RuntimeRefusal::Unknown) => {
                    problems.push(ConfigError::Invalid {
                        key: key.clone(),
                        origin: "a value set in the app".into(),
                        reason:
                            "this key cannot be set in the app (any more); the value is ignored"
                                .into(),
                    });
                    continue;
                }
                Err(RuntimeRefusal::Invalid(reason)) => {
                    problems.push(ConfigError::Invalid {
                        key: key.clone(),
                        origin: "a value set in the app".into(),
                        reason,
                    });
                    continue;
                }
            };
            let Some(field) = runtime_field(key) else {
                continue;
            };
            let Ok(value) = field.rule.parse_text(&checked) else {
                continue;
            };
            (field.apply)(&mut out.settings, &value);
            if let Some(entry) = out.entries.iter_mut().find(|e| e.key == *key) {
                entry.value = Shown::Plain(field.rule.shown(&checked));
                entry.source = Source::Runtime;
            }
        }
        (out, problems)
    }

    /// Every runtime field as a form shows it, for this (effective) configuration; `base` is
    /// the configuration without the app's values, whose value is each field's fallback.
    pub fn runtime_views(&self, base: &LoadedConfig) -> Vec<RuntimeView> {
        FIELDS
            .iter()
            .filter(|f| f.runtime && !f.secret)
            .map(|f| self.runtime_view(f, base))
            .collect()
    }

    /// One runtime field's view; `None` for a key that is not runtime-settable.
    pub fn runtime_view_of(&self, key: &str, base: &LoadedConfig) -> Option<RuntimeView> {
        runtime_field(key)
            .filter(|f| !f.secret)
            .map(|f| self.runtime_view(f, base))
    }

    fn runtime_view(&self, field: &'static Field, base: &LoadedConfig) -> RuntimeView {
        let entry = self.entry(field.key);
        let source = entry.map_or(Source::Default, |e| e.source.clone());
        let locked_by = match &source {
            Source::Env(var) => Some(var.clone()),
            _ => None,
        };
        let fallback = base.entry(field.key).and_then(|e| shown_text(&e.value));
        let fallback = match (&fallback, field.default) {
            (None, Default::Text(t)) => Some(t.to_owned()),
            _ => fallback,
        };
        let int_range = match field.rule {
            Rule::Int { min, max } => Some((min, max)),
            _ => None,
        };
        RuntimeView {
            key: field.key,
            help: field.help,
            rule: field.rule.describe(),
            int_range,
            is_bool: field.rule == Rule::Bool,
            is_model: field.rule == Rule::ModelRef,
            is_timezone: field.rule == Rule::Timezone,
            value: entry.and_then(|e| shown_text(&e.value)),
            fallback,
            source,
            locked_by,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(env: &[(&str, &str)]) -> LoadedConfig {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let dir = std::env::temp_dir();
        super::super::load_with_cwd(None, &dir, &|k| {
            env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        })
        .unwrap()
    }

    #[test]
    fn no_runtime_field_is_a_secret_or_read_only_at_start() {
        let runtime: Vec<&str> = FIELDS.iter().filter(|f| f.runtime).map(|f| f.key).collect();
        assert!(runtime.contains(&"timezone"), "{runtime:?}");
        assert!(runtime.contains(&"model"));
        for f in FIELDS.iter().filter(|f| f.runtime) {
            assert!(!f.secret, "{} is secret and runtime", f.key);
        }
        // Read once at start: changing them at runtime would silently do nothing.
        for key in ["data_dir", "http.addr", "api_token", "owner", "log"] {
            assert!(!registry::find(key).unwrap().runtime, "{key}");
        }
    }

    #[test]
    fn a_stored_value_wins_over_the_default_and_shows_its_source() {
        let cfg = base(&[]);
        let stored = BTreeMap::from([("timezone".to_owned(), "Europe/Berlin".to_owned())]);
        let (eff, problems) = cfg.with_runtime(&stored);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(eff.settings.timezone, "Europe/Berlin");
        assert_eq!(eff.source("timezone"), Some(&Source::Runtime));
        let view = eff.runtime_view_of("timezone", &cfg).unwrap();
        assert_eq!(view.value.as_deref(), Some("Europe/Berlin"));
        assert_eq!(view.fallback.as_deref(), Some("UTC"));
        assert!(view.is_timezone);
        assert!(view.locked_by.is_none());
    }

    #[test]
    fn the_environment_locks_a_field_and_keeps_winning() {
        let cfg = base(&[("STEWARD_TIMEZONE", "Asia/Tokyo")]);
        assert_eq!(
            cfg.check_runtime("timezone", "Europe/Berlin"),
            Err(RuntimeRefusal::Locked("STEWARD_TIMEZONE".into()))
        );
        let stored = BTreeMap::from([("timezone".to_owned(), "Europe/Berlin".to_owned())]);
        let (eff, problems) = cfg.with_runtime(&stored);
        assert!(problems.is_empty());
        assert_eq!(eff.settings.timezone, "Asia/Tokyo");
        let view = eff.runtime_view_of("timezone", &cfg).unwrap();
        assert_eq!(view.locked_by.as_deref(), Some("STEWARD_TIMEZONE"));
    }

    #[test]
    fn values_meet_the_fields_own_rule() {
        let cfg = base(&[]);
        assert_eq!(cfg.check_runtime("agent.max_rounds", " 3 "), Ok("3".into()));
        assert!(matches!(
            cfg.check_runtime("agent.max_rounds", "0"),
            Err(RuntimeRefusal::Invalid(_))
        ));
        assert!(matches!(
            cfg.check_runtime("agent.max_rounds", "many"),
            Err(RuntimeRefusal::Invalid(_))
        ));
        assert!(matches!(
            cfg.check_runtime("timezone", "Mars/Olympus"),
            Err(RuntimeRefusal::Invalid(_))
        ));
        assert!(matches!(
            cfg.check_runtime("model", "nosuch:gpt"),
            Err(RuntimeRefusal::Invalid(r)) if r.contains("unknown provider `nosuch`")
        ));
        assert_eq!(
            cfg.check_runtime("model", "openai:gpt-4.1-mini"),
            Ok("openai:gpt-4.1-mini".into())
        );
        assert_eq!(
            cfg.check_runtime("api_token", "x".repeat(20).as_str()),
            Err(RuntimeRefusal::Unknown)
        );
        assert_eq!(
            cfg.check_runtime("http.addr", "127.0.0.1:1"),
            Err(RuntimeRefusal::Unknown)
        );
        assert_eq!(
            cfg.check_runtime("no.such", "1"),
            Err(RuntimeRefusal::Unknown)
        );
    }

    #[test]
    fn a_stored_value_that_no_longer_passes_is_reported_and_ignored() {
        let cfg = base(&[]);
        let stored = BTreeMap::from([
            ("agent.max_rounds".to_owned(), "0".to_owned()),
            ("http.addr".to_owned(), "0.0.0.0:1".to_owned()),
        ]);
        let (eff, problems) = cfg.with_runtime(&stored);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(eff.settings.agent.max_rounds, cfg.settings.agent.max_rounds);
        assert_eq!(eff.settings.http_addr, cfg.settings.http_addr);
    }
}
