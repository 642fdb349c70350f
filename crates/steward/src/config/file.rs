//! Finding and reading `steward.toml`: discovery order, TOML parsing with line numbers,
//! and flattening tables into dotted keys with unknown-key detection.
//!
//! Owns: which file is used and turning it into raw values keyed by registry key
//! (plus raw user-defined provider tables, MCP servers and prices). Does not own: validating values against
//! rules (see `mod`/`providers`), or env handling beyond what discovery needs.
//!
//! Discovery order: `--config` path, else `$STEWARD_CONFIG`, else `./steward.toml`,
//! else `<data_dir>/steward.toml`, else no file. For that last step `data_dir` is
//! `$STEWARD_DATA_DIR` or the built-in default, never `data_dir` from a file: the
//! file cannot tell us where to find itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::de::{DeTable, DeValue};

use super::ConfigError;
use super::registry;
use super::rules::FileValue;
use super::settings::is_builtin_provider;
use super::suggest::closest;

/// Values read from the config file.
#[derive(Debug, Default)]
pub(crate) struct FileDoc {
    /// Built-in registry keys → (value, line).
    pub values: BTreeMap<&'static str, (FileValue, usize)>,
    /// User-defined `[providers.NAME]` tables, by name.
    pub providers: Vec<RawProvider>,
    /// `[mcp.servers.NAME]` tables (see `mcp`).
    pub mcp: Vec<super::mcp::RawServer>,
    /// `[prices]` entries (see `prices`).
    pub prices: Vec<super::prices::RawPrice>,
}

#[derive(Debug)]
pub(crate) struct RawProvider {
    pub name: String,
    pub line: usize,
    /// Key within the table → (value, line).
    pub entries: BTreeMap<String, (FileValue, usize)>,
}

/// Pick the config file per the module-level order.
pub(crate) fn discover(
    explicit: Option<&Path>,
    cwd: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<PathBuf>, ConfigError> {
    let named = explicit
        .map(|p| (p.to_path_buf(), "--config"))
        .or_else(|| env("STEWARD_CONFIG").map(|p| (PathBuf::from(p), "STEWARD_CONFIG")));
    if let Some((path, via)) = named {
        let path = cwd.join(path);
        if !path.is_file() {
            return Err(ConfigError::MissingFile {
                path,
                via: via.to_string(),
            });
        }
        return Ok(Some(path));
    }
    let local = cwd.join("steward.toml");
    if local.is_file() {
        return Ok(Some(local));
    }
    let data_dir = env("STEWARD_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| registry::default_data_dir(env));
    let in_data = cwd.join(data_dir).join("steward.toml");
    Ok(in_data.is_file().then_some(in_data))
}

/// Read and flatten the file at `path`: Err when it cannot be read or is not TOML at all;
/// otherwise the values, and every unknown or misplaced key (each skipped).
pub(crate) fn read(path: &Path) -> Result<(FileDoc, Vec<ConfigError>), ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_all(&text, path)
}

/// [`parse_all`], failing on the first problem.
#[cfg(test)]
pub(crate) fn parse(text: &str, path: &Path) -> Result<FileDoc, ConfigError> {
    let (doc, errors) = parse_all(text, path)?;
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(doc),
    }
}

pub(crate) fn parse_all(
    text: &str,
    path: &Path,
) -> Result<(FileDoc, Vec<ConfigError>), ConfigError> {
    let root = DeTable::parse(text).map_err(|e| {
        let (line, column) = position(text, e.span().map_or(0, |s| s.start));
        // Only the message, never toml's Display: that one quotes the offending line,
        // which may hold a secret.
        ConfigError::Parse {
            path: path.to_path_buf(),
            line,
            column,
            message: e.message().to_string(),
        }
    })?;
    let mut walker = Walker {
        text,
        path,
        doc: FileDoc::default(),
        errors: Vec::new(),
    };
    walker.table(root.get_ref(), "");
    Ok((walker.doc, walker.errors))
}

/// Walks the document; a key it cannot place is recorded in `errors` and skipped, so that
/// `steward doctor` can report every one (`load` stops at the first).
struct Walker<'a> {
    text: &'a str,
    path: &'a Path,
    doc: FileDoc,
    errors: Vec<ConfigError>,
}

impl Walker<'_> {
    fn line(&self, span: std::ops::Range<usize>) -> usize {
        position(self.text, span.start).0
    }

    fn unknown(&self, key: String, line: usize, candidates: &[String]) -> ConfigError {
        ConfigError::UnknownKey {
            suggestion: closest(&key, candidates.iter().map(String::as_str)),
            key,
            path: self.path.to_path_buf(),
            line,
        }
    }

    fn table(&mut self, table: &DeTable<'_>, prefix: &str) {
        for (k, v) in table {
            let key = if prefix.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{prefix}.{}", k.get_ref())
            };
            let line = self.line(k.span());
            if key == "mcp" {
                match v.get_ref() {
                    DeValue::Table(t) => {
                        let (servers, mut errors) = super::mcp::collect(t, self.text, self.path);
                        self.doc.mcp = servers;
                        self.errors.append(&mut errors);
                    }
                    _ => self.errors.push(self.unknown(key, line, &known_keys())),
                }
            } else if key == "prices" {
                match v.get_ref() {
                    DeValue::Table(t) => {
                        let (prices, mut errors) = super::prices::collect(t, self.text, self.path);
                        self.doc.prices = prices;
                        self.errors.append(&mut errors);
                    }
                    _ => self.errors.push(self.unknown(key, line, &known_keys())),
                }
            } else if key == "providers" {
                match v.get_ref() {
                    DeValue::Table(t) => self.providers(t),
                    _ => self.errors.push(self.unknown(key, line, &known_keys())),
                }
            } else if let Some(field) = registry::find(&key) {
                self.doc
                    .values
                    .insert(field.key, (file_value(v.get_ref()), line));
            } else if let (DeValue::Table(t), true) = (v.get_ref(), registry::is_table_prefix(&key))
            {
                self.table(t, &key);
            } else {
                self.errors.push(self.unknown(key, line, &known_keys()));
            }
        }
    }

    fn providers(&mut self, table: &DeTable<'_>) {
        for (name, v) in table {
            let name_str = name.get_ref().to_string();
            let line = self.line(name.span());
            let DeValue::Table(t) = v.get_ref() else {
                self.errors.push(ConfigError::Provider {
                    name: name_str,
                    path: self.path.to_path_buf(),
                    line,
                    message: "must be a table like [providers.NAME]".into(),
                });
                continue;
            };
            if is_builtin_provider(&name_str) {
                self.table(t, &format!("providers.{name_str}"));
                continue;
            }
            let mut raw = RawProvider {
                name: name_str.clone(),
                line,
                entries: BTreeMap::new(),
            };
            let allowed: Vec<String> = registry::USER_PROVIDER_KEYS
                .iter()
                .map(|(k, _, _)| format!("providers.{name_str}.{k}"))
                .collect();
            for (k, v) in t {
                let entry_line = self.line(k.span());
                let key = k.get_ref().to_string();
                if registry::USER_PROVIDER_KEYS
                    .iter()
                    .any(|(a, _, _)| *a == key)
                {
                    raw.entries
                        .insert(key, (file_value(v.get_ref()), entry_line));
                } else {
                    let full = format!("providers.{name_str}.{key}");
                    self.errors.push(self.unknown(full, entry_line, &allowed));
                }
            }
            self.doc.providers.push(raw);
        }
    }
}

/// Every key a file may contain, for suggestions.
fn known_keys() -> Vec<String> {
    registry::FIELDS
        .iter()
        .map(|f| f.key.to_string())
        .chain(
            registry::USER_PROVIDER_KEYS
                .iter()
                .map(|(k, _, _)| format!("providers.NAME.{k}")),
        )
        .collect()
}

fn file_value(v: &DeValue<'_>) -> FileValue {
    match v {
        DeValue::String(s) => FileValue::Str(s.to_string()),
        DeValue::Integer(i) => i128::from_str_radix(i.as_str(), i.radix())
            .map(FileValue::Int)
            .unwrap_or(FileValue::Other("an out-of-range integer")),
        DeValue::Boolean(b) => FileValue::Bool(*b),
        DeValue::Float(_) => FileValue::Other("a float"),
        DeValue::Datetime(_) => FileValue::Other("a datetime"),
        DeValue::Array(_) => FileValue::Other("an array"),
        DeValue::Table(_) => FileValue::Other("a table"),
    }
}

/// 1-based (line, column) of a byte offset.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattens_nested_and_dotted_tables() {
        let doc = parse(
            "model = \"openai:x\"\nagent.max_rounds = 3\n[http]\naddr = \"127.0.0.1:1\"\n",
            Path::new("t.toml"),
        )
        .unwrap();
        assert_eq!(doc.values["agent.max_rounds"], (FileValue::Int(3), 2));
        assert_eq!(
            doc.values["http.addr"],
            (FileValue::Str("127.0.0.1:1".into()), 4)
        );
    }

    #[test]
    fn parse_error_has_line_and_no_source_text() {
        let err = parse(
            "model = \"a\"\napi_token = \"sk-SECRETVALUE",
            Path::new("t.toml"),
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("t.toml:2"), "{msg}");
        assert!(!msg.contains("SECRETVALUE"), "{msg}");
    }

    #[test]
    fn unknown_key_inside_builtin_provider() {
        let err = parse("[providers.openai]\napi_kye = \"x\"\n", Path::new("t.toml")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("providers.openai.api_kye"), "{msg}");
        assert!(msg.contains("providers.openai.api_key"), "{msg}");
    }

    #[test]
    fn positions_are_one_based() {
        assert_eq!(position("ab\ncd", 4), (2, 2));
        assert_eq!(position("", 0), (1, 1));
    }
}
