//! Value rules: how a raw value (file, env var or default text) becomes a typed `Value`.
//!
//! Owns: the `Rule` vocabulary, its human description (used in errors and docs), and
//! the checks. Does not own: which key uses which rule (see `registry`) or error
//! wording around key/source (see `ConfigError`). Reasons returned here never quote
//! the value, so they are safe for secrets; callers add the value for non-secrets.

use std::net::SocketAddr;

/// A validated value, typed by its rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    Text(String),
    Int(u64),
    Bool(bool),
}

impl Value {
    pub(crate) fn text(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
        }
    }

    /// Rules guarantee the variant; a mismatch would be a registry bug caught by tests.
    pub(crate) fn int(&self) -> u64 {
        match self {
            Value::Int(n) => *n,
            _ => 0,
        }
    }

    pub(crate) fn flag(&self) -> bool {
        matches!(self, Value::Bool(true))
    }
}

/// A raw value read from the config file, detached from the parser's borrowed types.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FileValue {
    Str(String),
    Int(i128),
    Bool(bool),
    /// Any other TOML type; holds its name for the error message.
    Other(&'static str),
}

impl FileValue {
    fn type_name(&self) -> &'static str {
        match self {
            FileValue::Str(_) => "a string",
            FileValue::Int(_) => "an integer",
            FileValue::Bool(_) => "a boolean",
            FileValue::Other(t) => t,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `provider:model`; whether the provider exists is checked once all providers are known.
    ModelRef,
    Path,
    Timezone,
    NonEmpty,
    SocketAddr,
    Int {
        min: u64,
        max: u64,
    },
    /// The HTTP bearer token: long enough to resist guessing, header-safe.
    Token,
    /// A provider API key: header-safe.
    ApiKey,
    HttpUrl,
    Bool,
    /// Name of an environment variable.
    EnvName,
    /// `openai` | `anthropic` | `gemini`.
    ProviderKind,
    /// `local` | `none` | `openai:<model>` | `gemini:<model>` | `ollama:<model>`.
    Embedder,
    /// Host names or IPs, each optionally with `:port`, separated by commas (`web.allow_hosts`).
    HostList,
    /// Browser origins (`scheme://host[:port]`), comma-separated (`http.cors_origins`).
    OriginList,
    /// `none` | `searxng` | `brave` | `tavily`.
    SearchBackend,
    /// A principal id by `steward_protocol::PrincipalId`'s rule, other than Steward's own
    /// (`system`), which no surface may authenticate anyone as.
    PrincipalId,
    /// `none`, or part kinds (`image`, `audio`, `file`) separated by commas.
    PartKinds,
    /// A Telegram bot token by `steward_telegram::BotToken`'s rule.
    TelegramBotToken,
    /// Telegram user ids, comma-separated, by `steward_telegram::AllowedUsers`'s rule.
    TelegramUserIds,
    /// `steward_telegram::WebhookSecret`'s rule.
    TelegramWebhookSecret,
    /// A job schedule by `steward_jobs::schedule::Schedule`'s rule (empty = disabled).
    Schedule,
    /// `HH:MM-HH:MM` (`steward_jobs::voice::parse_quiet_hours`).
    QuietHours,
    /// Proactive genres, comma-separated (`steward_jobs::voice::parse_silenced`).
    Genres,
    /// A JSON object (a tool's arguments), at most 4 KiB.
    JsonObject,
    /// A vault key: 64 hex digits (`steward_store::vault::VaultKey::from_hex`).
    VaultKey,
}

impl Rule {
    /// A (non-secret) value as `config show` and errors print it: URLs with their userinfo
    /// and query values masked (`steward_protocol::secret_url`), anything else as is.
    pub(crate) fn shown(self, text: &str) -> String {
        match self {
            Rule::HttpUrl => steward_protocol::secret_url::mask_url(text),
            _ => text.to_owned(),
        }
    }

    /// The rule in words, as shown in errors and generated docs.
    pub(crate) fn describe(self) -> String {
        match self {
            Rule::ModelRef => "`provider:model`, e.g. `openai:gpt-4.1-mini`".into(),
            Rule::Path => "a non-empty path".into(),
            Rule::Timezone => "an IANA time zone name, e.g. `Europe/Paris`".into(),
            Rule::NonEmpty => "a non-empty string".into(),
            Rule::SocketAddr => "an IP:port socket address, e.g. `127.0.0.1:8080`".into(),
            Rule::Int { min, max } if max == u64::MAX => format!("an integer >= {min}"),
            Rule::Int { min, max } => format!("an integer in {min}..={max}"),
            Rule::Token => "at least 16 visible ASCII characters, no spaces".into(),
            Rule::ApiKey => "non-empty visible ASCII, no spaces".into(),
            Rule::HttpUrl => "an http:// or https:// URL".into(),
            Rule::Bool => "true or false".into(),
            Rule::EnvName => "an environment variable name like `GROQ_API_KEY`".into(),
            Rule::ProviderKind => "one of \"openai\", \"anthropic\", \"gemini\"".into(),
            Rule::Embedder => {
                "`local`, `none`, or `openai:<model>` / `gemini:<model>` / `ollama:<model>`".into()
            }
            Rule::HostList => {
                "host names or IP addresses, each optionally with :port, separated by commas, \
                 e.g. `nas.local, 192.168.1.10:5000`"
                    .into()
            }
            Rule::OriginList => "origins as scheme://host[:port], separated by commas, e.g. \
                 `https://chat.example.com, http://localhost:3000` (no path, no wildcard)"
                .into(),
            Rule::SearchBackend => "one of \"none\", \"searxng\", \"brave\", \"tavily\"".into(),
            Rule::PrincipalId => format!(
                "{}, not `{}`",
                steward_protocol::ValueKind::PrincipalId.rule(),
                steward_protocol::PrincipalId::SYSTEM
            ),
            Rule::PartKinds => "`none` (text only) or part kinds separated by commas: `image`, \
                 `audio`, `file` (each only as far as the provider's API takes it)"
                .into(),
            Rule::TelegramBotToken => steward_telegram::BotToken::RULE.into(),
            Rule::TelegramUserIds => steward_telegram::AllowedUsers::RULE.into(),
            Rule::TelegramWebhookSecret => steward_telegram::WebhookSecret::RULE.into(),
            Rule::Schedule => {
                "a schedule: `every 15m` (m, h or d; at least a minute), `daily 07:30`, `weekly mon 08:00`, \
                 `cron 0 9 * * 1-5` (5 fields, in `timezone`), or empty to disable"
                    .into()
            }
            Rule::QuietHours => {
                "`HH:MM-HH:MM` in `timezone`, e.g. `22:00-07:00` (may pass midnight)".into()
            }
            Rule::VaultKey => "64 hex digits (32 random bytes, e.g. `openssl rand -hex 32`)".into(),
            Rule::JsonObject => "a JSON object, e.g. `{\"city\": \"Lyon\"}` (at most 4 KiB)".into(),
            Rule::Genres => format!(
                "genres separated by commas, each one of {}",
                steward_jobs::voice::genre::ALL.join(", ")
            ),
        }
    }

    /// Whether the rule wants a TOML string (as opposed to an integer or boolean).
    fn wants_text(self) -> bool {
        !matches!(self, Rule::Int { .. } | Rule::Bool)
    }

    /// Check a textual value (env var or built-in default).
    pub(crate) fn parse_text(self, raw: &str) -> Result<Value, String> {
        match self {
            Rule::Int { .. } => {
                let n: u64 = raw
                    .trim()
                    .parse()
                    .map_err(|_| format!("must be {}", self.describe()))?;
                self.check_int(i128::from(n))
            }
            Rule::Bool => match raw.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Ok(Value::Bool(true)),
                "false" | "0" | "no" | "off" => Ok(Value::Bool(false)),
                _ => Err(format!("must be {}", self.describe())),
            },
            _ => self.check_text(raw),
        }
    }

    /// Check a value from the config file, where TOML types must match the rule.
    pub(crate) fn parse_file(self, raw: &FileValue) -> Result<Value, String> {
        match (self, raw) {
            (Rule::Int { .. }, FileValue::Int(n)) => self.check_int(*n),
            (Rule::Bool, FileValue::Bool(b)) => Ok(Value::Bool(*b)),
            (rule, FileValue::Str(s)) if rule.wants_text() => self.check_text(s),
            (rule, other) => {
                let wanted = match rule {
                    Rule::Int { .. } => "an integer",
                    Rule::Bool => "a boolean",
                    _ => "a string",
                };
                Err(format!(
                    "expected {wanted}, found {}; must be {}",
                    other.type_name(),
                    rule.describe()
                ))
            }
        }
    }

    fn check_int(self, n: i128) -> Result<Value, String> {
        let Rule::Int { min, max } = self else {
            return Err(format!("must be {}", self.describe()));
        };
        match u64::try_from(n) {
            Ok(v) if (min..=max).contains(&v) => Ok(Value::Int(v)),
            _ => Err(format!("must be {}", self.describe())),
        }
    }

    fn check_text(self, s: &str) -> Result<Value, String> {
        let ok = match self {
            Rule::ModelRef => crate::config::settings::split_model_ref(s).is_some(),
            Rule::Path | Rule::NonEmpty => !s.trim().is_empty(),
            Rule::Timezone => s.parse::<chrono_tz::Tz>().is_ok(),
            Rule::SocketAddr => s.parse::<SocketAddr>().is_ok(),
            Rule::Token => s.len() >= 16 && s.bytes().all(|b| b.is_ascii_graphic()),
            Rule::ApiKey => !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic()),
            Rule::HttpUrl => is_http_url(s),
            Rule::EnvName => is_env_name(s),
            Rule::ProviderKind => crate::config::settings::ProviderKindSetting::parse(s).is_some(),
            Rule::Embedder => {
                matches!(s, "local" | "none")
                    || crate::config::settings::split_model_ref(s)
                        .is_some_and(|(p, _)| matches!(p, "openai" | "gemini" | "ollama"))
            }
            Rule::HostList => steward_web::AllowList::parse(s).is_ok(),
            Rule::OriginList => steward_server::CorsOrigins::parse(s).is_ok(),
            Rule::SearchBackend => steward_web::SearchBackend::parse(s).is_some(),
            Rule::PrincipalId => {
                steward_protocol::PrincipalId::parse(s).is_ok()
                    && s != steward_protocol::PrincipalId::SYSTEM
            }
            Rule::PartKinds => part_kinds(s).is_some(),
            Rule::TelegramBotToken => steward_telegram::BotToken::parse(s).is_ok(),
            Rule::TelegramUserIds => steward_telegram::AllowedUsers::parse(s).is_ok(),
            Rule::TelegramWebhookSecret => steward_telegram::WebhookSecret::parse(s).is_ok(),
            Rule::Schedule => s.parse::<steward_jobs::schedule::Schedule>().is_ok(),
            Rule::QuietHours => {
                steward_jobs::voice::parse_quiet_hours(s).is_ok_and(|q| q.is_some())
            }
            Rule::Genres => steward_jobs::voice::parse_silenced(s).is_ok(),
            Rule::VaultKey => steward_store::vault::VaultKey::from_hex(s).is_ok(),
            Rule::JsonObject => {
                s.len() <= 4096
                    && serde_json::from_str::<serde_json::Value>(s).is_ok_and(|v| v.is_object())
            }
            Rule::Int { .. } | Rule::Bool => false,
        };
        if !ok {
            return Err(format!("must be {}", self.describe()));
        }
        // A trailing slash would double up when clients append paths.
        let normalized = match self {
            Rule::HttpUrl => s.trim_end_matches('/').to_string(),
            _ => s.to_string(),
        };
        Ok(Value::Text(normalized))
    }
}

fn is_http_url(s: &str) -> bool {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"));
    match rest {
        Some(rest) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            !host.is_empty() && s.bytes().all(|b| b.is_ascii_graphic())
        }
        None => false,
    }
}

fn is_env_name(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `none` → no kinds; `image, file` → those; anything else (an unknown or repeated kind, an
/// empty item) → None.
pub(crate) fn part_kinds(s: &str) -> Option<Vec<steward_protocol::PartKind>> {
    if s.trim() == "none" {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for item in s.split(',') {
        let kind = steward_protocol::PartKind::parse(item.trim()).ok()?;
        if out.contains(&kind) {
            return None;
        }
        out.push(kind);
    }
    Some(out)
}

/// `[a-z0-9_-]{1,32}`: user-defined provider names.
pub(crate) fn is_provider_name(s: &str) -> bool {
    (1..=32).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_bounds_are_inclusive() {
        let r = Rule::Int { min: 1, max: 64 };
        assert_eq!(r.parse_text("1"), Ok(Value::Int(1)));
        assert_eq!(r.parse_text("64"), Ok(Value::Int(64)));
        assert!(r.parse_text("0").is_err());
        assert!(r.parse_text("65").is_err());
        assert!(r.parse_file(&FileValue::Int(-3)).is_err());
        assert!(r.parse_file(&FileValue::Str("8".into())).is_err());
    }

    #[test]
    fn token_rule_rejects_short_and_spaces_without_quoting() {
        let secret = "short-secret";
        let err = Rule::Token.parse_text(secret).unwrap_err();
        assert!(!err.contains(secret));
        assert!(Rule::Token.parse_text("aaaaaaaa bbbbbbbbb").is_err());
        assert!(Rule::Token.parse_text("abcdefghijklmnop").is_ok());
    }

    #[test]
    fn urls_and_names() {
        assert_eq!(
            Rule::HttpUrl.parse_text("http://127.0.0.1:9/v1/"),
            Ok(Value::Text("http://127.0.0.1:9/v1".into()))
        );
        assert!(Rule::HttpUrl.parse_text("ftp://x").is_err());
        assert!(Rule::HttpUrl.parse_text("https://").is_err());
        assert!(Rule::EnvName.parse_text("GROQ_API_KEY").is_ok());
        assert!(Rule::EnvName.parse_text("1BAD").is_err());
        assert!(is_provider_name("groq-2"));
        assert!(!is_provider_name("Groq"));
        assert!(!is_provider_name(&"a".repeat(33)));
    }

    #[test]
    fn the_owner_is_a_principal_id_but_never_steward_itself() {
        assert!(Rule::PrincipalId.parse_text("owner").is_ok());
        assert!(Rule::PrincipalId.parse_text("tg:12345").is_ok());
        for bad in ["", "ann smith", "system", &"p".repeat(129)] {
            assert!(Rule::PrincipalId.parse_text(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn part_kind_lists() {
        use steward_protocol::PartKind;
        assert_eq!(part_kinds("none"), Some(vec![]));
        assert_eq!(
            part_kinds("image, file"),
            Some(vec![PartKind::Image, PartKind::File])
        );
        for bad in [
            "",
            "video",
            "image,,file",
            "image,image",
            "none,image",
            "Image",
        ] {
            assert!(Rule::PartKinds.parse_text(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn telegram_user_ids_are_positive_integers_separated_by_commas() {
        assert_eq!(
            Rule::TelegramUserIds.parse_text("123456789, 42"),
            Ok(Value::Text("123456789, 42".into()))
        );
        for bad in ["", "0", "-1", "1,,2", "@ann", "1 2", "99999999999999999999"] {
            let err = Rule::TelegramUserIds.parse_text(bad).unwrap_err();
            assert!(err.contains("positive integers"), "{bad:?}: {err}");
        }
        assert!(
            Rule::TelegramUserIds
                .parse_file(&FileValue::Int(42))
                .is_err(),
            "a bare TOML integer is not the list's text"
        );
    }

    #[test]
    fn telegram_bot_tokens_are_checked_without_being_quoted() {
        let good = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq";
        assert!(Rule::TelegramBotToken.parse_text(good).is_ok());
        let bad = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDs/../x";
        let err = Rule::TelegramBotToken.parse_text(bad).unwrap_err();
        assert!(!err.contains("AAHdq"), "{err}");
        assert!(Rule::TelegramBotToken.parse_text("not-a-token").is_err());
    }

    #[test]
    fn timezone_and_model_ref() {
        assert!(Rule::Timezone.parse_text("Europe/Paris").is_ok());
        assert!(Rule::Timezone.parse_text("Mars/Olympus").is_err());
        assert!(Rule::ModelRef.parse_text("ollama:llama3.2:3b").is_ok());
        assert!(Rule::ModelRef.parse_text("gpt-4").is_err());
        assert!(Rule::ModelRef.parse_text(":gpt").is_err());
    }
}
