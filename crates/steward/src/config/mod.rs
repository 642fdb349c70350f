//! Steward configuration: one typed registry of fields (see `registry`), loaded with
//! precedence defaults < file < environment into `Settings`.
//!
//! Owns: `load`, `ConfigError`, `Source`, `LoadedConfig` and its per-key provenance.
//! Does not own: CLI parsing (the binary passes `--config`), generating a missing
//! api_token (the binary does), or talking to providers (see `doctor`).
//!
//! File discovery order is documented in `file`. An env var set to the empty string
//! counts as unset everywhere, including for discovery.

mod file;
mod llm;
mod providers;
mod registry;
mod rules;
mod settings;
mod show;
mod suggest;

use std::fmt;
use std::path::{Path, PathBuf};

pub use llm::provider_configs;
pub use settings::{
    AgentSettings, ProviderKindSetting, ProviderSettings, Settings, split_model_ref,
};
pub use show::render_docs;

use registry::{Default, FIELDS, Field};
use rules::{FileValue, Value};

/// Why configuration could not be loaded. Messages name the key, where the value came
/// from and the rule, but never contain a secret value.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {} (given by {via}) does not exist", path.display())]
    MissingFile { path: PathBuf, via: String },
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: invalid TOML: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}:{line}: unknown key `{key}`{}", path.display(),
        suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownKey {
        key: String,
        path: PathBuf,
        line: usize,
        suggestion: Option<String>,
    },
    #[error("invalid value for `{key}` from {origin}: {reason}")]
    Invalid {
        key: String,
        origin: String,
        reason: String,
    },
    #[error("`{key}` from {origin} uses unknown provider `{provider}`; known providers: {}; \
             add a [providers.{provider}] table to steward.toml to define it", known.join(", "))]
    UnknownProvider {
        key: String,
        origin: String,
        provider: String,
        known: Vec<String>,
    },
    #[error("{}:{line}: [providers.{name}]: {message}", path.display())]
    Provider {
        name: String,
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    File(PathBuf),
    Env(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(p) => write!(f, "file {}", p.display()),
            Source::Env(v) => write!(f, "env {v}"),
        }
    }
}

/// An effective value as shown to humans; secrets keep only whether they are set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    Plain(String),
    SecretSet,
    Unset,
}

/// One key of the effective configuration, for `config show`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub value: Shown,
    pub source: Source,
}

/// Result of [`load`]: the settings plus where each value came from.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub settings: Settings,
    /// The config file used, if any.
    pub file: Option<PathBuf>,
    entries: Vec<Entry>,
}

impl LoadedConfig {
    /// Every key with its effective (masked) value and source, in registry order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Where the value of `key` came from.
    pub fn source(&self, key: &str) -> Option<&Source> {
        self.entries
            .iter()
            .find(|e| e.key == key)
            .map(|e| &e.source)
    }

    /// `steward config show`: every key, its effective value (secrets masked) and source.
    pub fn render_show(&self) -> String {
        show::render_show(self.file.as_deref(), &self.entries)
    }
}

/// The environment variable that sets a built-in key, e.g. `model` → `STEWARD_MODEL`.
pub fn env_var_for(key: &str) -> Option<&'static str> {
    registry::find(key).and_then(|f| f.env)
}

/// Load configuration relative to the process's current directory.
pub fn load(
    explicit: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<LoadedConfig, ConfigError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    load_with_cwd(explicit, &cwd, env)
}

/// [`load`] with an explicit working directory (for `./steward.toml` and relative paths).
pub fn load_with_cwd(
    explicit: Option<&Path>,
    cwd: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<LoadedConfig, ConfigError> {
    let env = |k: &str| env(k).filter(|v| !v.is_empty());
    let path = file::discover(explicit, cwd, &env)?;
    let doc = match &path {
        Some(p) => file::read(p)?,
        None => file::FileDoc::default(),
    };
    let mut settings = Settings::skeleton();
    let mut entries = Vec::with_capacity(FIELDS.len());
    for field in FIELDS {
        let resolved = resolve(field, &env, path.as_deref(), &doc)?;
        let value = match &resolved {
            Some((v, _)) if field.secret => {
                (field.apply)(&mut settings, v);
                Shown::SecretSet
            }
            Some((v, _)) => {
                (field.apply)(&mut settings, v);
                Shown::Plain(v.text())
            }
            None => Shown::Unset,
        };
        let source = resolved.map_or(Source::Default, |(_, s)| s);
        entries.push(Entry {
            key: field.key.to_string(),
            value,
            source,
        });
    }
    if let Some(p) = &path {
        for raw in &doc.providers {
            let (provider, mut shown) = providers::build(raw, p, &env)?;
            settings.providers.push(provider);
            entries.append(&mut shown);
        }
    }
    let cfg = LoadedConfig {
        settings,
        file: path,
        entries,
    };
    check_model_providers(&cfg, &doc)?;
    Ok(cfg)
}

/// Effective value of one field: env, else file, else default.
fn resolve(
    field: &Field,
    env: &dyn Fn(&str) -> Option<String>,
    path: Option<&Path>,
    doc: &file::FileDoc,
) -> Result<Option<(Value, Source)>, ConfigError> {
    let invalid = |origin: String, reason: String, shown: Option<String>| {
        let reason = match shown {
            Some(v) if !field.secret => format!("{reason} (got {v})"),
            _ => reason,
        };
        ConfigError::Invalid {
            key: field.key.to_string(),
            origin,
            reason,
        }
    };
    if let Some(var) = field.env
        && let Some(raw) = env(var)
    {
        return field
            .rule
            .parse_text(&raw)
            .map(|v| Some((v, Source::Env(var.to_string()))))
            .map_err(|r| invalid(format!("env {var}"), r, Some(format!("{raw:?}"))));
    }
    if let (Some(path), Some((raw, line))) = (path, doc.values.get(field.key)) {
        let origin = format!("file {} line {line}", path.display());
        return field
            .rule
            .parse_file(raw)
            .map(|v| Some((v, Source::File(path.to_path_buf()))))
            .map_err(|r| invalid(origin, r, show_file_value(raw)));
    }
    let text = match field.default {
        Default::None => return Ok(None),
        Default::Text(t) => t.to_string(),
        Default::DataDir => registry::default_data_dir(env)
            .to_string_lossy()
            .into_owned(),
    };
    field
        .rule
        .parse_text(&text)
        .map(|v| Some((v, Source::Default)))
        .map_err(|r| invalid("built-in default".into(), r, Some(format!("{text:?}"))))
}

pub(crate) fn show_file_value(raw: &FileValue) -> Option<String> {
    match raw {
        FileValue::Str(s) => Some(format!("{s:?}")),
        FileValue::Int(n) => Some(n.to_string()),
        FileValue::Bool(b) => Some(b.to_string()),
        FileValue::Other(_) => None,
    }
}

/// `model` and `fallback_model` must name a provider that exists.
fn check_model_providers(cfg: &LoadedConfig, doc: &file::FileDoc) -> Result<(), ConfigError> {
    let s = &cfg.settings;
    for (key, model) in [("model", &s.model), ("fallback_model", &s.fallback_model)] {
        let Some((provider, _)) = model.as_deref().and_then(split_model_ref) else {
            continue;
        };
        if s.provider(provider).is_some() {
            continue;
        }
        let origin = match cfg.source(key) {
            Some(Source::File(p)) => match doc.values.get(key) {
                Some((_, line)) => format!("file {} line {line}", p.display()),
                None => format!("file {}", p.display()),
            },
            Some(other) => other.to_string(),
            None => "default".into(),
        };
        return Err(ConfigError::UnknownProvider {
            key: key.to_string(),
            origin,
            provider: provider.to_string(),
            known: s.providers.iter().map(|p| p.name.clone()).collect(),
        });
    }
    Ok(())
}
