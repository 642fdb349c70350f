//! What one configured MCP server is: its name, how to reach it (a child process over stdio
//! or a streamable HTTP URL), its limits and the owner's overrides. Plain data, validated by
//! the binary's config loader (`crates/steward/src/config/mcp.rs`) before it gets here.
//!
//! Owns: the types, their secret-free `Debug`, name rules and defaults. Does not own parsing
//! TOML (the binary) or connecting (see `client`).

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;
use steward_protocol::Effect;

/// Per-call timeout when the configuration does not give one. Below the tool registry's own
/// 30 s limit, so our clearer "the MCP server did not answer" message wins the race.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(25);
/// Longest server name; tool names are `<server>__<tool>` within 64 characters.
pub const MAX_SERVER_NAME: usize = 32;

/// One `[mcp.servers.NAME]` table.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// `[a-z0-9_]{1,32}`, no leading, trailing or doubled `_` (see [`valid_server_name`]).
    pub name: String,
    pub transport: Transport,
    /// Connecting, listing and every call are bounded by this.
    pub timeout: Duration,
    /// `false` = configured but never started (shown by `steward mcp list`).
    pub enabled: bool,
    /// Server tool name (as the server spells it) → effect, overriding its annotations.
    pub effects: BTreeMap<String, Effect>,
    /// Advertise the sampling capability to this server. Requests are still refused (see
    /// `client::handler`), so this only lets servers that insist on it start.
    pub allow_sampling: bool,
    /// Believe this server's `readOnlyHint`s (the owner vouches for it). Without it every
    /// tool not overridden in `effects` asks, whatever the server claims: an annotation is
    /// the server's word about itself, and a hostile server would say "read-only".
    pub trust_annotations: bool,
}

/// How to reach a server.
#[derive(Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP on stdin/stdout. It does not inherit Steward's
    /// environment: only [`INHERITED_ENV`] plus `env`.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Values may be secrets: never logged or shown.
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP at `url`.
    Http {
        url: String,
        /// Values may be secrets (an `Authorization` header): never logged or shown.
        headers: BTreeMap<String, String>,
    },
}

/// Variables a stdio server inherits from Steward (what it needs to find programs and a home,
/// nothing that usually holds a secret). Everything else it gets only through `env`.
pub const INHERITED_ENV: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ",
];

impl ServerSpec {
    /// A spec with the defaults (enabled, default timeout, no overrides, no sampling,
    /// annotations not trusted).
    pub fn new(name: impl Into<String>, transport: Transport) -> Self {
        Self {
            name: name.into(),
            transport,
            timeout: DEFAULT_CALL_TIMEOUT,
            enabled: true,
            effects: BTreeMap::new(),
            allow_sampling: false,
            trust_annotations: false,
        }
    }

    /// "stdio" or "http", for listings.
    pub fn transport_kind(&self) -> &'static str {
        match self.transport {
            Transport::Stdio { .. } => "stdio",
            Transport::Http { .. } => "http",
        }
    }

    /// The command or URL, without any secret (env and headers are left out).
    pub fn target(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => {
                let mut s = command.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            Transport::Http { url, .. } => shown_url(url),
        }
    }

    /// Every secret-bearing value (env values, header values), for redacting server output.
    pub fn secret_values(&self) -> Vec<String> {
        let values = match &self.transport {
            Transport::Stdio { env, .. } => env.values(),
            Transport::Http { headers, .. } => headers.values(),
        };
        let mut out: Vec<String> = values.cloned().collect();
        if let Transport::Http { url, .. } = &self.transport {
            out.extend(steward_protocol::secret_url::url_secrets(url));
        }
        // Very short values would redact half the alphabet; they are not worth hiding.
        out.retain(|v| v.len() >= 4);
        out
    }
}

/// A URL as listings show it: userinfo, query values and fragment masked by the one rule in
/// `steward_protocol::secret_url` (API keys often ride in a query string).
pub fn shown_url(url: &str) -> String {
    steward_protocol::secret_url::mask_url(url)
}

/// `[a-z0-9_]{1,32}` with no leading, trailing or doubled `_`, so `<server>__<tool>` always
/// splits back at its first `__`.
pub fn valid_server_name(name: &str) -> bool {
    (1..=MAX_SERVER_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !name.starts_with('_')
        && !name.ends_with('_')
        && !name.contains("__")
}

/// `read` | `write` | `external` | `destructive` (the effects an override may give).
pub fn parse_effect(s: &str) -> Option<Effect> {
    match s {
        "read" => Some(Effect::Read),
        "write" => Some(Effect::Write),
        "external" => Some(Effect::External),
        "destructive" => Some(Effect::Destructive),
        _ => None,
    }
}

pub fn effect_name(e: Effect) -> &'static str {
    match e {
        Effect::Read => "read",
        Effect::Memory => "memory",
        Effect::Write => "write",
        Effect::External => "external",
        Effect::Destructive => "destructive",
    }
}

struct Keys<'a>(&'a BTreeMap<String, String>);

impl fmt::Debug for Keys<'_> {
    // Names only: the values may be secrets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &Keys(env))
                .finish(),
            Transport::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", &shown_url(url))
                .field("headers", &Keys(headers))
                .finish(),
        }
    }
}

impl fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerSpec")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("timeout", &self.timeout)
            .field("enabled", &self.enabled)
            .field("effects", &self.effects)
            .field("allow_sampling", &self.allow_sampling)
            .field("trust_annotations", &self.trust_annotations)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_names() {
        for good in ["a", "everything", "git_hub2", &"a".repeat(32)] {
            assert!(valid_server_name(good), "{good}");
        }
        for bad in [
            "",
            "A",
            "a-b",
            "_a",
            "a_",
            "a__b",
            "a b",
            "é",
            &"a".repeat(33),
        ] {
            assert!(!valid_server_name(bad), "{bad}");
        }
    }

    #[test]
    fn urls_are_shown_without_credentials() {
        assert_eq!(
            shown_url("http://127.0.0.1:3001/mcp"),
            "http://127.0.0.1:3001/mcp"
        );
        assert_eq!(
            shown_url("https://u:pw@h.example/mcp?api_key=k123#x"),
            "https://…@h.example/mcp?api_key=…#…"
        );
        assert_eq!(
            shown_url("https://h.example?key=abcd"),
            "https://h.example?key=…"
        );
        let spec = ServerSpec::new(
            "x",
            Transport::Http {
                url: "https://u:pw12@h/mcp?api_key=k123".into(),
                headers: BTreeMap::new(),
            },
        );
        let secrets = spec.secret_values();
        for want in ["u:pw12", "pw12", "k123"] {
            assert!(secrets.contains(&want.to_owned()), "{want}: {secrets:?}");
        }
        assert!(!spec.target().contains("k123"));
    }

    #[test]
    fn debug_hides_env_and_header_values() {
        let mut env = BTreeMap::new();
        env.insert("TOKEN".to_owned(), "sk-very-secret".to_owned());
        let spec = ServerSpec::new(
            "x",
            Transport::Stdio {
                command: "srv".into(),
                args: vec![],
                env,
            },
        );
        let shown = format!("{spec:?}");
        assert!(shown.contains("TOKEN"), "{shown}");
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        let mut headers = BTreeMap::new();
        headers.insert("Authorization".to_owned(), "Bearer hunter22".to_owned());
        let http = ServerSpec::new(
            "y",
            Transport::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers,
            },
        );
        let shown = format!("{http:?} {}", http.target());
        assert!(!shown.contains("hunter22"), "{shown}");
    }
}
