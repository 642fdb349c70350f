//! `[mcp.servers.NAME]` tables: the MCP servers Steward connects to, declared the way other
//! MCP clients declare them, turned into `steward_mcp::ServerSpec`s.
//!
//! Owns: the table's fields and their checks, `${VAR}` expansion in `env` and `headers`
//! values (so secrets can stay in the environment) and the `config show` entries; the
//! reference text in `docs/CONFIG.md` is in `mcp/docs.rs`. Does not own connecting
//! (steward-mcp). Errors name the server, the field and the line, and never quote an `env`
//! or `headers` value.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use steward_mcp::{ServerSpec, Transport, parse_effect, valid_server_name};
use toml::de::{DeTable, DeValue};

use super::suggest::closest;

mod docs;
use super::{ConfigError, Entry, Shown, Source};
pub use docs::DOCS;

/// Fields of one `[mcp.servers.NAME]` table.
const FIELDS: &[&str] = &[
    "command",
    "args",
    "env",
    "url",
    "headers",
    "timeout_secs",
    "enabled",
    "allow_sampling",
    "trust_annotations",
    "tools",
];
const MAX_TIMEOUT_SECS: i128 = 600;

/// A value from an `[mcp.servers.NAME]` table, detached from the parser.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Raw {
    Str(String),
    Int(i128),
    Bool(bool),
    Strings(Vec<String>),
    /// A table of strings (`env`, `headers`).
    Map(BTreeMap<String, String>),
    /// `tools.NAME.effect`: tool → (effect text, line).
    Tools(BTreeMap<String, (String, usize)>),
    /// Wrong shape; the text says what it was.
    Bad(String),
}

#[derive(Debug)]
pub(crate) struct RawServer {
    pub name: String,
    pub line: usize,
    pub fields: BTreeMap<String, (Raw, usize)>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .unwrap_or(text)
        .matches('\n')
        .count()
        + 1
}

fn type_name(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a datetime",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// Read the `[mcp]` table: only `servers`, each a table of known fields. Every mistake is
/// reported (each one naming its server, field and line); a server table with one is left
/// out, and the other servers are kept, so one typo never drops every server.
pub(crate) fn collect(
    mcp: &DeTable<'_>,
    text: &str,
    path: &Path,
) -> (Vec<RawServer>, Vec<ConfigError>) {
    let unknown = |key: String, line: usize, candidates: &[String]| ConfigError::UnknownKey {
        suggestion: closest(&key, candidates.iter().map(String::as_str)),
        key,
        path: path.to_path_buf(),
        line,
    };
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (k, v) in mcp {
        let line = line_of(text, k.span().start);
        let key = k.get_ref().to_string();
        let (DeValue::Table(servers), true) = (v.get_ref(), key == "servers") else {
            errors.push(unknown(format!("mcp.{key}"), line, &["mcp.servers".into()]));
            continue;
        };
        for (name, table) in servers {
            let name_str = name.get_ref().to_string();
            let line = line_of(text, name.span().start);
            let DeValue::Table(t) = table.get_ref() else {
                errors.push(invalid(
                    &format!("mcp.servers.{name_str}"),
                    path,
                    line,
                    "must be a table like [mcp.servers.NAME]".into(),
                ));
                continue;
            };
            let allowed: Vec<String> = FIELDS
                .iter()
                .map(|f| format!("mcp.servers.{name_str}.{f}"))
                .collect();
            let before = errors.len();
            let mut fields = BTreeMap::new();
            for (fk, fv) in t {
                let field = fk.get_ref().to_string();
                let fline = line_of(text, fk.span().start);
                if !FIELDS.contains(&field.as_str()) {
                    errors.push(unknown(
                        format!("mcp.servers.{name_str}.{field}"),
                        fline,
                        &allowed,
                    ));
                    continue;
                }
                let raw = if field == "tools" {
                    tools(fv.get_ref(), text, path, &name_str, &mut errors)
                } else {
                    raw_value(fv.get_ref())
                };
                fields.insert(field, (raw, fline));
            }
            if errors.len() == before {
                out.push(RawServer {
                    name: name_str,
                    line,
                    fields,
                });
            }
        }
    }
    (out, errors)
}

fn raw_value(v: &DeValue<'_>) -> Raw {
    match v {
        DeValue::String(s) => Raw::Str(s.to_string()),
        DeValue::Integer(i) => i128::from_str_radix(i.as_str(), i.radix())
            .map(Raw::Int)
            .unwrap_or(Raw::Bad("an out-of-range integer".into())),
        DeValue::Boolean(b) => Raw::Bool(*b),
        DeValue::Array(items) => {
            let mut strings = Vec::new();
            for item in items.iter() {
                match item.get_ref() {
                    DeValue::String(s) => strings.push(s.to_string()),
                    other => return Raw::Bad(format!("an array holding {}", type_name(other))),
                }
            }
            Raw::Strings(strings)
        }
        DeValue::Table(t) => {
            let mut map = BTreeMap::new();
            for (k, v) in t {
                match v.get_ref() {
                    DeValue::String(s) => {
                        map.insert(k.get_ref().to_string(), s.to_string());
                    }
                    other => {
                        return Raw::Bad(format!(
                            "a table whose `{}` is {}",
                            k.get_ref(),
                            type_name(other)
                        ));
                    }
                }
            }
            Raw::Map(map)
        }
        other => Raw::Bad(type_name(other).to_owned()),
    }
}

/// `tools.NAME.effect = "..."` (dotted keys or `[mcp.servers.X.tools.NAME]` tables). Each
/// mistake is pushed to `errors`.
fn tools(
    v: &DeValue<'_>,
    text: &str,
    path: &Path,
    server: &str,
    errors: &mut Vec<ConfigError>,
) -> Raw {
    let DeValue::Table(t) = v else {
        return Raw::Bad(type_name(v).to_owned());
    };
    let mut out = BTreeMap::new();
    for (tool, settings) in t {
        let tool_name = tool.get_ref().to_string();
        let line = line_of(text, tool.span().start);
        let key = format!("mcp.servers.{server}.tools.{tool_name}");
        let DeValue::Table(s) = settings.get_ref() else {
            errors.push(invalid(
                &key,
                path,
                line,
                "must be a table with `effect`".into(),
            ));
            continue;
        };
        for (k, v) in s {
            let kline = line_of(text, k.span().start);
            if k.get_ref() != "effect" {
                errors.push(ConfigError::UnknownKey {
                    key: format!("{key}.{}", k.get_ref()),
                    path: path.to_path_buf(),
                    line: kline,
                    suggestion: Some(format!("{key}.effect")),
                });
                continue;
            }
            let DeValue::String(e) = v.get_ref() else {
                errors.push(invalid(
                    &format!("{key}.effect"),
                    path,
                    kline,
                    format!("must be a string, got {}", type_name(v.get_ref())),
                ));
                continue;
            };
            out.insert(tool_name.clone(), (e.to_string(), kline));
        }
    }
    Raw::Tools(out)
}

fn invalid(key: &str, path: &Path, line: usize, reason: String) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_owned(),
        origin: format!("file {} line {line}", path.display()),
        reason,
    }
}

/// `${VAR}` → the variable's value; `$$` is not special. Unset or malformed → the reason.
fn expand(value: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err("has a `${` without its closing `}`".into());
        };
        let var = &after[..end];
        let ok = !var.is_empty() && var.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !ok {
            return Err("uses `${...}` with an invalid variable name".into());
        }
        match env(var) {
            Some(v) => out.push_str(&v),
            None => {
                return Err(format!(
                    "refers to the environment variable {var}, which is not set"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Validate one table into a spec plus its `config show` entry.
pub(crate) fn build(
    raw: &RawServer,
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(ServerSpec, Entry), ConfigError> {
    let name = &raw.name;
    let table_key = format!("mcp.servers.{name}");
    if !valid_server_name(name) {
        return Err(invalid(
            &table_key,
            path,
            raw.line,
            "server names must be 1 to 32 of a-z, 0-9 and _, without a leading, trailing or double _ (tools are named NAME__tool)".into(),
        ));
    }
    let field_err = |field: &str, reason: String| {
        let line = raw.fields.get(field).map_or(raw.line, |(_, l)| *l);
        invalid(&format!("{table_key}.{field}"), path, line, reason)
    };
    let get = |f: &str| raw.fields.get(f).map(|(v, _)| v);
    let shape = |f: &str, want: &str| -> ConfigError {
        let got = match get(f) {
            Some(Raw::Str(_)) => "a string".to_owned(),
            Some(Raw::Int(_)) => "an integer".to_owned(),
            Some(Raw::Bool(_)) => "a boolean".to_owned(),
            Some(Raw::Strings(_)) => "an array".to_owned(),
            Some(Raw::Map(_) | Raw::Tools(_)) => "a table".to_owned(),
            Some(Raw::Bad(t)) => t.clone(),
            None => "nothing".to_owned(),
        };
        field_err(f, format!("must be {want}, got {got}"))
    };
    let string = |f: &str| -> Result<Option<String>, ConfigError> {
        match get(f) {
            None => Ok(None),
            Some(Raw::Str(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
            Some(Raw::Str(_)) => Err(field_err(f, "must not be empty".into())),
            Some(_) => Err(shape(f, "a string")),
        }
    };
    let flag = |f: &str, default: bool| -> Result<bool, ConfigError> {
        match get(f) {
            None => Ok(default),
            Some(Raw::Bool(b)) => Ok(*b),
            Some(_) => Err(shape(f, "true or false")),
        }
    };
    // Secret maps: the reason never includes a value.
    let secret_map = |f: &str| -> Result<BTreeMap<String, String>, ConfigError> {
        match get(f) {
            None => Ok(BTreeMap::new()),
            Some(Raw::Map(m)) => {
                let mut out = BTreeMap::new();
                for (k, v) in m {
                    let value = expand(v, env)
                        .map_err(|why| field_err(f, format!("the value of `{k}` {why}")))?;
                    out.insert(k.clone(), value);
                }
                Ok(out)
            }
            Some(_) => Err(shape(f, "a table of strings")),
        }
    };

    let command = string("command")?;
    let url = string("url")?;
    let transport = match (command, url) {
        (Some(_), Some(_)) => {
            return Err(invalid(&table_key, path, raw.line, "has both `command` and `url`; a server is either a program (command) or an HTTP endpoint (url)".into()));
        }
        (None, None) => {
            return Err(invalid(&table_key, path, raw.line, "needs `command` (a program speaking MCP on stdio) or `url` (a streamable HTTP endpoint)".into()));
        }
        (Some(command), None) => {
            if get("headers").is_some() {
                return Err(field_err("headers", "applies only to `url` servers".into()));
            }
            let args = match get("args") {
                None => Vec::new(),
                Some(Raw::Strings(a)) => a.clone(),
                Some(_) => return Err(shape("args", "an array of strings")),
            };
            let env_vars = secret_map("env")?;
            if let Some(bad) = env_vars
                .keys()
                .find(|k| k.is_empty() || k.contains('=') || k.contains('\0'))
            {
                return Err(field_err(
                    "env",
                    format!("`{bad}` is not a valid variable name"),
                ));
            }
            Transport::Stdio {
                command,
                args,
                env: env_vars,
            }
        }
        (None, Some(url)) => {
            for f in ["args", "env"] {
                if get(f).is_some() {
                    return Err(field_err(f, "applies only to `command` servers".into()));
                }
            }
            let url =
                expand(&url, env).map_err(|why| field_err("url", format!("the URL {why}")))?;
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://"))
                || url.contains(char::is_whitespace)
            {
                return Err(field_err(
                    "url",
                    "must be an http:// or https:// URL without spaces".to_owned(),
                ));
            }
            let headers = secret_map("headers")?;
            for (k, v) in &headers {
                let name_ok = !k.is_empty()
                    && k.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
                if !name_ok {
                    return Err(field_err(
                        "headers",
                        format!("`{k}` is not a valid header name"),
                    ));
                }
                if v.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
                    return Err(field_err(
                        "headers",
                        format!("the value of `{k}` contains control characters"),
                    ));
                }
            }
            Transport::Http { url, headers }
        }
    };
    let mut spec = ServerSpec::new(name.clone(), transport);
    match get("timeout_secs") {
        None => {}
        Some(Raw::Int(n)) if (1..=MAX_TIMEOUT_SECS).contains(n) => {
            spec.timeout = Duration::from_secs(*n as u64);
        }
        Some(Raw::Int(n)) => {
            return Err(field_err(
                "timeout_secs",
                format!("must be between 1 and {MAX_TIMEOUT_SECS} (got {n})"),
            ));
        }
        Some(_) => return Err(shape("timeout_secs", "an integer")),
    }
    spec.enabled = flag("enabled", true)?;
    spec.allow_sampling = flag("allow_sampling", false)?;
    spec.trust_annotations = flag("trust_annotations", false)?;
    match get("tools") {
        None => {}
        Some(Raw::Tools(t)) => {
            for (tool, (effect, line)) in t {
                let e = parse_effect(effect).ok_or_else(|| {
                    invalid(
                        &format!("{table_key}.tools.{tool}.effect"),
                        path,
                        *line,
                        format!("must be \"read\", \"write\", \"external\" or \"destructive\" (got {effect:?})"),
                    )
                })?;
                spec.effects.insert(tool.clone(), e);
            }
        }
        Some(_) => return Err(shape("tools", "a table like tools.NAME.effect = \"read\"")),
    }
    let mut notes = Vec::new();
    if !spec.enabled {
        notes.push("disabled");
    }
    if spec.trust_annotations {
        notes.push("annotations trusted");
    }
    let shown = format!(
        "{} {}{}",
        spec.transport_kind(),
        spec.target(),
        if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join(", "))
        }
    );
    let entry = Entry {
        key: table_key,
        value: Shown::Plain(shown),
        source: Source::File(path.to_path_buf()),
    };
    Ok((spec, entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_variables() {
        let env = |k: &str| (k == "TOKEN").then(|| "s3cret".to_owned());
        assert_eq!(expand("Bearer ${TOKEN}", &env).unwrap(), "Bearer s3cret");
        assert_eq!(expand("plain", &env).unwrap(), "plain");
        assert_eq!(expand("${TOKEN}${TOKEN}", &env).unwrap(), "s3crets3cret");
        assert!(expand("${MISSING}", &env).unwrap_err().contains("MISSING"));
        assert!(expand("${TOKEN", &env).is_err());
        assert!(expand("${A B}", &env).is_err());
    }
}
